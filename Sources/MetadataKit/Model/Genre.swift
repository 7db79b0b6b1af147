/// A musical genre: a name, and its place in the ID3v1 list when it has one.
///
/// The list is ID3v1's 80 genres (0–79) with the Winamp extensions (80–191).
/// Some tags number the same list from 1 (MP4 `gnre`, ``iTunesID``).
public struct Genre: Sendable, Hashable, CustomStringConvertible {
    /// The genre's name as shown to people.
    public var name: String
    /// Index in the ID3v1/Winamp list (0–191), nil for a genre outside it.
    public var id3Index: Int?

    public var description: String { name }

    /// A genre with this name; the index is looked up (case-insensitively, with
    /// the usual alternative spellings) and is nil when the name is not listed.
    public init(name: String) {
        self.name = name
        let key = name.lowercased()
        // The listed spelling when only the case differs (a lowercased lookup:
        // Foundation's caseInsensitiveCompare costs read speed).
        if let index = Genre.listedIndex(lowercased: key) {
            self.id3Index = index
            self.name = Genre.names[index]
        } else {
            self.id3Index = Genre.aliases[key]
        }
    }

    /// The listed genre at `id3Index`; nil outside 0–191.
    public init?(id3Index: Int) {
        guard Genre.names.indices.contains(id3Index) else { return nil }
        self.name = Genre.names[id3Index]
        self.id3Index = id3Index
    }

    /// The ID3 index of a genre name, or nil.
    public static func index(named name: String) -> Int? {
        let key = name.lowercased()
        return listedIndex(lowercased: key) ?? aliases[key]
    }

    /// The 192 names, indexed by ID3 genre number.
    public static let names: [String] = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop",
        "Jazz", "Metal", "New Age", "Oldies", "Other", "Pop", "R&B", "Rap",
        "Reggae", "Rock", "Techno", "Industrial", "Alternative", "Ska", "Death Metal", "Pranks",
        "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop", "Vocal", "Jazz+Funk", "Fusion", "Trance",
        "Classical", "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise",
        "Alternative Rock", "Bass", "Soul", "Punk", "Space", "Meditative", "Instrumental Pop", "Instrumental Rock",
        "Ethnic", "Gothic", "Darkwave", "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream",
        "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40", "Christian Rap", "Pop/Funk", "Jungle",
        "Native American", "Cabaret", "New Wave", "Psychedelic", "Rave", "Showtunes", "Trailer", "Lo-Fi",
        "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll", "Hard Rock",
        // Winamp extensions
        "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebop", "Latin", "Revival",
        "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock", "Psychedelic Rock", "Symphonic Rock", "Slow Rock",
        "Big Band", "Chorus", "Easy Listening", "Acoustic", "Humour", "Speech", "Chanson", "Opera",
        "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus", "Porn Groove", "Satire", "Slow Jam",
        "Club", "Tango", "Samba", "Folklore", "Ballad", "Power Ballad", "Rhythmic Soul", "Freestyle",
        "Duet", "Punk Rock", "Drum Solo", "A Cappella", "Euro-House", "Dance Hall", "Goa", "Drum & Bass",
        "Club-House", "Hardcore Techno", "Terror", "Indie", "BritPop", "Afro-Punk", "Polsk Punk", "Beat",
        "Christian Gangsta Rap", "Heavy Metal", "Black Metal", "Crossover", "Contemporary Christian", "Christian Rock", "Merengue", "Salsa",
        "Thrash Metal", "Anime", "JPop", "Synthpop", "Abstract", "Art Rock", "Baroque", "Bhangra",
        "Big Beat", "Breakbeat", "Chillout", "Downtempo", "Dub", "EBM", "Eclectic", "Electro",
        "Electroclash", "Emo", "Experimental", "Garage", "Global", "IDM", "Illbient", "Industro-Goth",
        "Jam Band", "Krautrock", "Leftfield", "Lounge", "Math Rock", "New Romantic", "Nu-Breakz", "Post-Punk",
        "Post-Rock", "Psytrance", "Shoegaze", "Space Rock", "Trop Rock", "World Music", "Neoclassical", "Audiobook",
        "Audio Theatre", "Neue Deutsche Welle", "Podcast", "Indie Rock", "G-Funk", "Dubstep", "Garage Rock", "Psybient",
    ]

    /// Other spellings found in the wild (ffmpeg, Winamp, older lists).
    private static let aliases: [String: Int] = [
        "alternrock": 40, "alt. rock": 40, "alt rock": 40, "hip hop": 7, "jazz-funk": 29,
        "hardcore": 129, "negerpunk": 133, "rock'n'roll": 78, "rock and roll": 78,
        "drum'n'bass": 127, "drum and bass": 127, "avant-garde": 90, "britpop": 132,
        "j-pop": 146, "synth-pop": 147, "psy-trance": 177, "humor": 100, "euro-techno": 25,
    ]

    /// The listed names' indices by their length in UTF-8 bytes: a lookup
    /// compares the few names of the key's length (every name is ASCII).
    /// Not a dictionary of lowercased names: building one took every
    /// process that reads a genre about 200,000 instructions.
    private static let indicesByLength: [[Int]] = {
        var table: [[Int]] = []
        for (index, name) in names.enumerated() {
            let length = name.utf8.count
            while table.count <= length { table.append([]) }
            table[length].append(index)
        }
        return table
    }()

    /// The index of the listed name that `key` (lowercased) spells in any case.
    private static func listedIndex(lowercased key: String) -> Int? {
        let length = key.utf8.count
        guard length < indicesByLength.count else { return nil }
        for index in indicesByLength[length] {
            let matches = names[index].utf8.elementsEqual(key.utf8) { listed, byte in
                (listed >= 0x41 && listed <= 0x5A ? listed | 0x20 : listed) == byte
            }
            if matches { return index }
        }
        return nil
    }
}
