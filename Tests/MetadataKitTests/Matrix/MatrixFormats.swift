import Foundation

@testable import MetadataKit

/// One writable format of the operation matrix: how ffmpeg makes a file of
/// it (with the tags ffmpeg writes, as real files made by encoders carry),
/// and which independent readers look at it.
struct MatrixFormat: Sendable, CustomStringConvertible {
    var name: String
    var fileExtension: String
    /// ffmpeg's codec and muxer options.
    var ffmpeg: [String]
    /// The family of mutagen keys its tag has (see Tests/Tools/mutagen-dump.py).
    var family: String
    /// An ffmpeg encoder the file needs beyond the usual ones.
    var encoder: String?
    /// The fields whose TagLib property is not read back for this format
    /// (TagLib's ASF tag has no comment property, …).
    var taglibSkips: Set<MetadataField> = []
    /// The fields ffprobe doesn't show for this format (a WAV's composer: ffmpeg reads
    /// a WAV's LIST/INFO, which has no composer, and not its ID3 chunk).
    var ffprobeSkips: Set<MetadataField> = []
    /// Whether mutagen reads the tag the base file holds (it reads a WAV's ID3
    /// chunk only, not its LIST/INFO).
    var mutagenReads = true
    /// Whether mutagen adds an ID3 tag with the base tags after ffmpeg (as
    /// Picard and other mutagen-based taggers tag WAV files).
    var addsID3WithMutagen = false
    /// Whether several values are stored as one text joined by "/" (ID3v2.3).
    var joinsLists = false
    /// Whether TagLib (1.13 here: no Matroska) reads the format.
    var taglibReads = true
    /// Whether exiftool is asked too (MP4, Matroska, WAV and AIFF).
    var exiftoolReads: Bool { ["M4A", "Matroska", "WAV", "AIFF"].contains { name.hasPrefix($0) } }
    /// A Python script run on the base file after ffmpeg (its path is
    /// `sys.argv[1]`): how the files of an unusual class are made.
    var prepare: String? = nil
    /// Fields the base file holds in an unusual way (several atoms or
    /// fields, two keys, a frame of another version): every operation on
    /// them starts from the base file, not from a file whose field was set.
    var heldFields: [MetadataField] = []
    var description: String { name }

    static let all: [MatrixFormat] =
        [
            MatrixFormat(
                name: "MP3 ID3v2.4", fileExtension: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-id3v2_version", "4"], family: "id3",
                encoder: "libmp3lame"),
            MatrixFormat(
                name: "MP3 ID3v2.3+v1", fileExtension: "mp3",
                ffmpeg: ["-c:a", "libmp3lame", "-id3v2_version", "3", "-write_id3v1", "1"], family: "id3", encoder: "libmp3lame",
                joinsLists: true),
            MatrixFormat(name: "M4A", fileExtension: "m4a", ffmpeg: ["-c:a", "aac"], family: "mp4"),
            MatrixFormat(name: "FLAC", fileExtension: "flac", ffmpeg: ["-c:a", "flac"], family: "vorbis"),
            MatrixFormat(name: "Ogg Vorbis", fileExtension: "ogg", ffmpeg: ["-c:a", "libvorbis"], family: "vorbis", encoder: "libvorbis"),
            MatrixFormat(
                name: "Opus", fileExtension: "opus", ffmpeg: ["-c:a", "libopus", "-ar", "48000"], family: "vorbis", encoder: "libopus"),
            MatrixFormat(
                name: "WAV (INFO)", fileExtension: "wav", ffmpeg: ["-c:a", "pcm_s16le"], family: "id3", ffprobeSkips: [.composer],
                mutagenReads: false),
            MatrixFormat(
                name: "WAV (INFO+ID3)", fileExtension: "wav", ffmpeg: ["-c:a", "pcm_s16le"], family: "id3", ffprobeSkips: [.composer],
                addsID3WithMutagen: true),
            MatrixFormat(name: "AIFF", fileExtension: "aiff", ffmpeg: ["-c:a", "pcm_s16be", "-write_id3v2", "1"], family: "id3"),
            MatrixFormat(name: "WMA", fileExtension: "wma", ffmpeg: ["-c:a", "wmav2"], family: "asf", taglibSkips: [.comments]),
            MatrixFormat(name: "WavPack", fileExtension: "wv", ffmpeg: ["-c:a", "wavpack"], family: "ape"),
            MatrixFormat(
                name: "Matroska (MKA)", fileExtension: "mka", ffmpeg: ["-c:a", "flac"], family: "matroska", taglibReads: false),
            // ffmpeg writes no Musepack: its WAV is encoded by mpcenc and tagged by mutagen, as Picard tags it.
            MatrixFormat(
                name: "Musepack", fileExtension: "mpc", ffmpeg: ["-f", "wav"], family: "ape", prepare: MatrixPreparation.musepack),
        ] + unusual

    /// Files whose fields are held the way some taggers leave them.
    static let unusual: [MatrixFormat] = [
        MatrixFormat(
            name: "M4A ©ART ×3 atoms", fileExtension: "m4a", ffmpeg: ["-c:a", "aac"], family: "mp4",
            prepare: MatrixPreparation.threeArtistAtoms, heldFields: [.artist]),
        MatrixFormat(
            name: "FLAC several fields", fileExtension: "flac", ffmpeg: ["-c:a", "flac"], family: "vorbis",
            prepare: MatrixPreparation.severalVorbisFields, heldFields: [.artist, .genre, .composer]),
        MatrixFormat(
            name: "WavPack Year+DATE", fileExtension: "wv", ffmpeg: ["-c:a", "wavpack"], family: "ape",
            prepare: MatrixPreparation.apeYearAndDate, heldFields: [.date]),
        MatrixFormat(
            name: "MP3 v2.3 with TDRC", fileExtension: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-id3v2_version", "3"],
            family: "id3", encoder: "libmp3lame", joinsLists: true,
            prepare: MatrixPreparation.id3v23(date: ("TDRC", "2001-05-06")), heldFields: [.date]),
        MatrixFormat(
            name: "MP3 v2.3 ISO TYER", fileExtension: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-id3v2_version", "3"],
            family: "id3", encoder: "libmp3lame", joinsLists: true,
            prepare: MatrixPreparation.id3v23(date: ("TYER", "2020-01-01T00:00:00.000Z")), heldFields: [.date]),
        MatrixFormat(
            name: "MP3 stacked ID3v2", fileExtension: "mp3", ffmpeg: ["-c:a", "libmp3lame", "-id3v2_version", "4"],
            family: "id3", encoder: "libmp3lame", prepare: MatrixPreparation.stackedTag, heldFields: [.label, .grouping]),
    ]

    /// The tags every base file starts with (ffmpeg's generic names, which
    /// each muxer stores its own way).
    static let baseTags: [(String, String)] = [
        ("title", "Base Title"), ("artist", "Base Artist"), ("album", "Base Album"), ("album_artist", "Base Album Artist"),
        ("genre", "Rock"), ("date", "2001"), ("track", "3/10"), ("comment", "Base comment"), ("composer", "Base Composer"),
    ]

    /// Makes the base file of this format in `folder`.
    func makeBase(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("base.\(fileExtension)")
        let tags = Self.baseTags.flatMap { ["-metadata", "\($0.0)=\($0.1)"] }
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.3", "-ac", "1"] + ffmpeg + tags
                + ["-y", url.path])
        if addsID3WithMutagen {
            let script = """
                import sys
                from mutagen.wave import WAVE
                from mutagen.id3 import TIT2, TPE1, TALB, TPE2, TCON, TDRC, TRCK, COMM, TCOM
                f = WAVE(sys.argv[1])
                f.add_tags()
                for frame in (TIT2(encoding=3, text="Base Title"), TPE1(encoding=3, text="Base Artist"),
                              TALB(encoding=3, text="Base Album"), TPE2(encoding=3, text="Base Album Artist"),
                              TCON(encoding=3, text="Rock"), TDRC(encoding=3, text="2001"), TRCK(encoding=3, text="3/10"),
                              COMM(encoding=3, lang="eng", desc="", text="Base comment"), TCOM(encoding=3, text="Base Composer")):
                    f.tags.add(frame)
                f.save()
                """
            try TestSupport.runChecked("python3", ["-c", script, url.path])
        }
        if let prepare { try TestSupport.runChecked("python3", ["-c", prepare, url.path]) }
        return url
    }
}

/// What independent readers call each field, per tag family (mutagen's
/// keys; see ``PicardMapping`` for ID3, MP4 and Vorbis). APEv2 and ASF
/// names follow Picard's tables for those tags (as TagLib maps them too).
enum MatrixKeys {
    /// The mutagen keys (family-prefixed) that hold `field` in `family`, most
    /// usual first; empty when the family has none that readers agree on.
    static func mutagenKeys(_ field: MetadataField, family: String) -> [String] {
        let picard = PicardMapping.keys[field]
        switch family {
        case "id3":
            var keys = picard?.id3.map { ["id3:" + $0] } ?? []
            switch field {
            case .trackNumber, .trackCount: keys = ["id3:TRCK"]
            case .discNumber, .discCount: keys = ["id3:TPOS"]
            case .date: keys = ["id3:TDRC", "id3:TYER"]
            case .bpm: keys = ["id3:TBPM"]
            case .arranger, .engineer, .producer, .djMixer, .mixer: keys = ["id3:TIPL", "id3:IPLS"]
            case .performers: keys = ["id3:TMCL", "id3:IPLS"]
            case .originalDate: keys = ["id3:TDOR", "id3:TORY", "id3:TXXX:ORIGINALDATE"]
            case .releaseDate: keys = ["id3:TDRL", "id3:TXXX:RELEASEDATE"]
            case .comments: keys = ["id3:COMM::eng", "id3:COMM::XXX", "id3:COMM", "id3:COMM:ID3v1 Comment:eng"]
            default: break
            }
            return keys
        case "matroska":
            // mkvtoolnix's view (Tests/Tools/matroska-dump.py) of the names the
            // Matroska tagging guidelines give (MatroskaKeys.swift's table).
            return (MetadataKeyMap.matroskaKeys[field] ?? []).filter { !$0.key.hasPrefix("Attachment/") }.map { "mkv:" + $0.key }
        case "mp4":
            switch field {
            case .trackNumber, .trackCount: return ["mp4:trkn"]
            case .discNumber, .discCount: return ["mp4:disk"]
            case .date: return ["mp4:©day"]
            case .bpm: return ["mp4:tmpo"]
            case .genre: return ["mp4:©gen", "mp4:gnre"]
            default: return picard?.mp4.map { ["mp4:" + $0] } ?? []
            }
        case "vorbis":
            switch field {
            case .trackNumber: return ["vorbis:TRACKNUMBER"]
            case .trackCount: return ["vorbis:TRACKTOTAL", "vorbis:TOTALTRACKS"]
            case .discNumber: return ["vorbis:DISCNUMBER"]
            case .discCount: return ["vorbis:DISCTOTAL", "vorbis:TOTALDISCS"]
            case .date: return ["vorbis:DATE"]
            case .bpm: return ["vorbis:BPM"]
            case .comments: return ["vorbis:COMMENT", "vorbis:DESCRIPTION"]
            default: return picard?.vorbis.map { ["vorbis:" + $0] } ?? []
            }
        case "ape":
            return (apeNames[field] ?? []).map { "ape:" + $0.lowercased() }
        case "asf":
            return (asfNames[field] ?? []).map { "asf:" + $0 }
        default:
            return []
        }
    }

    /// Picard's APEv2 names (mutagen keeps APE keys as written, case and all).
    static let apeNames: [MetadataField: [String]] = [
        .title: ["Title"], .artist: ["Artist"], .album: ["Album"], .albumArtist: ["Album Artist"],
        .genre: ["Genre"], .date: ["Year", "Date"], .trackNumber: ["Track"], .trackCount: ["Track"],
        .discNumber: ["Disc"], .discCount: ["Disc"], .comments: ["Comment"], .composer: ["Composer"],
        .grouping: ["Grouping"], .bpm: ["BPM"], .lyrics: ["Lyrics"], .copyright: ["Copyright"],
        .conductor: ["Conductor"], .label: ["Label"], .isrc: ["ISRC"], .catalogNumber: ["CatalogNumber"],
    ]

    /// WM attribute names, as Picard and TagLib's ASF tag map them.
    static let asfNames: [MetadataField: [String]] = [
        .conductor: ["WM/Conductor"], .lyricist: ["WM/Writer"], .remixer: ["WM/ModifiedBy"], .producer: ["WM/Producer"],
        .subtitle: ["WM/SubTitle"], .discSubtitle: ["WM/SetSubTitle"], .mood: ["WM/Mood"], .media: ["WM/Media"],
        .catalogNumber: ["WM/CatalogNo"], .barcode: ["WM/Barcode"], .encodedBy: ["WM/EncodedBy"],
        .titleSort: ["WM/TitleSortOrder"], .artistSort: ["WM/ArtistSortOrder"], .albumSort: ["WM/AlbumSortOrder"],
        .albumArtistSort: ["WM/AlbumArtistSortOrder"], .composerSort: ["WM/ComposerSortOrder"], .initialKey: ["WM/InitialKey"],
        .language: ["WM/Language"], .script: ["WM/Script"], .artists: ["WM/ARTISTS"], .website: ["WM/AuthorURL"],
        .originalAlbum: ["WM/OriginalAlbumTitle"], .originalArtist: ["WM/OriginalArtist"],
        .musicBrainzReleaseGroupID: ["MusicBrainz/Release Group Id"], .musicBrainzAlbumArtistID: ["MusicBrainz/Album Artist Id"],
        .musicBrainzWorkID: ["MusicBrainz/Work Id"], .musicBrainzReleaseTrackID: ["MusicBrainz/Release Track Id"],
        .acoustID: ["Acoustid/Id"], .acoustIDFingerprint: ["Acoustid/Fingerprint"],
        .title: ["Title"], .artist: ["Author"], .album: ["WM/AlbumTitle"], .albumArtist: ["WM/AlbumArtist"],
        .genre: ["WM/Genre"], .date: ["WM/Year"], .trackNumber: ["WM/TrackNumber"], .discNumber: ["WM/PartOfSet"],
        .discCount: ["WM/PartOfSet"], .comments: ["Description"], .composer: ["WM/Composer"],
        .grouping: ["WM/ContentGroupDescription"], .bpm: ["WM/BeatsPerMinute"], .lyrics: ["WM/Lyrics"],
        .copyright: ["Copyright"], .label: ["WM/Publisher"], .isrc: ["WM/ISRC"],
        .musicBrainzRecordingID: ["MusicBrainz/Track Id"], .musicBrainzReleaseID: ["MusicBrainz/Album Id"],
        .musicBrainzArtistID: ["MusicBrainz/Artist Id"], .originalYear: ["WM/OriginalReleaseYear"],
    ]

    /// TagLib's property names of the fields whose names TagLib gives every format alike.
    static let taglibNames: [MetadataField: [String]] = [
        .title: ["TITLE"], .artist: ["ARTIST"], .album: ["ALBUM"], .albumArtist: ["ALBUMARTIST"], .genre: ["GENRE"],
        .date: ["DATE"], .trackNumber: ["TRACKNUMBER"], .discNumber: ["DISCNUMBER"], .comments: ["COMMENT", "DESCRIPTION"],
        .composer: ["COMPOSER"], .bpm: ["BPM"], .copyright: ["COPYRIGHT"],
    ]

    /// ffprobe's (lower-cased) tag names of the core fields.
    static let ffprobeNames: [MetadataField: [String]] = [
        .title: ["title"], .artist: ["artist"], .album: ["album"], .genre: ["genre"],
        .comments: ["comment", "description"], .composer: ["composer"],
    ]

    /// exiftool's tag names for the fields it names alike in MP4, Matroska,
    /// RIFF INFO (album: Product) and ID3.
    static let exiftoolNames: [MetadataField: [String]] = [
        .title: ["exif:Title"], .artist: ["exif:Artist"], .album: ["exif:Album", "exif:Product"], .genre: ["exif:Genre"],
        .comments: ["exif:Comment"], .composer: ["exif:Composer"],
    ]
}

/// The scripts that make the unusual base files of ``MatrixFormat/unusual``.
enum MatrixPreparation {
    /// Each artist in its own `©ART` atom, as some taggers write them (mutagen
    /// and exiftool show all three); the `moov` is at the end of ffmpeg's
    /// M4A, so no chunk offset moves.
    static let threeArtistAtoms = artistAtoms(["Base Artist", "Second Artist", "Third Artist"])

    /// The M4A's `©ART` atom replaced by one atom per name in `names`.
    static func artistAtoms(_ names: [String]) -> String {
        """
        import struct, sys
        path = sys.argv[1]
        data = bytearray(open(path, "rb").read())
        def find(start, end, kind):
            while start < end:
                size, name = struct.unpack(">I4s", data[start:start + 8])
                if name == kind:
                    return start, size
                start += size
            raise SystemExit("no " + repr(kind))
        moov = find(0, len(data), b"moov")
        udta = find(moov[0] + 8, moov[0] + moov[1], b"udta")
        meta = find(udta[0] + 8, udta[0] + udta[1], b"meta")
        ilst = find(meta[0] + 12, meta[0] + meta[1], b"ilst")
        art = find(ilst[0] + 8, ilst[0] + ilst[1], b"\\xa9ART")
        def atom(text):
            payload = text.encode()
            inner = struct.pack(">I4sI4s", 16 + len(payload), b"data", 1, b"\\0\\0\\0\\0") + payload
            return struct.pack(">I4s", 8 + len(inner), b"\\xa9ART") + inner
        new = b"".join(atom(name) for name in [\(names.map { "\"\($0)\"" }.joined(separator: ", "))])
        grow = len(new) - art[1]
        data[art[0]:art[0] + art[1]] = new
        for offset in (moov[0], udta[0], meta[0], ilst[0]):
            size = struct.unpack(">I", data[offset:offset + 4])[0]
            data[offset:offset + 4] = struct.pack(">I", size + grow)
        open(path, "wb").write(data)
        """
    }

    /// The WAV ffmpeg wrote under the .mpc name encoded by `mpcenc` (SV8),
    /// then the base tags written by mutagen as an APEv2 tag.
    static let musepack = """
        import os, shutil, subprocess, sys, tempfile
        from mutagen.musepack import Musepack
        path = sys.argv[1]
        folder = tempfile.mkdtemp()
        wav = os.path.join(folder, "in.wav")
        shutil.copyfile(path, wav)
        subprocess.run(["mpcenc", "--silent", "--overwrite", wav, path], check=True, capture_output=True)
        shutil.rmtree(folder)
        f = Musepack(path)
        if f.tags is None:
            f.add_tags()
        for key, value in (("Title", "Base Title"), ("Artist", "Base Artist"), ("Album", "Base Album"),
                           ("Album Artist", "Base Album Artist"), ("Genre", "Rock"), ("Year", "2001"),
                           ("Track", "3/10"), ("Comment", "Base comment"), ("Composer", "Base Composer")):
            f[key] = value
        f.save()
        """

    /// Several Vorbis fields of one name, as mutagen and Picard write lists.
    static let severalVorbisFields = """
        import sys
        from mutagen.flac import FLAC
        f = FLAC(sys.argv[1])
        f["ARTIST"] = ["Base Artist", "Second Artist"]
        f["GENRE"] = ["Rock", "Pop"]
        f["COMPOSER"] = ["Base Composer", "Second Composer"]
        f.save()
        """

    /// An APEv2 tag with both `Year` (TagLib's, Picard's) and `DATE` (ffmpeg's).
    static let apeYearAndDate = """
        import sys
        from mutagen.wavpack import WavPack
        f = WavPack(sys.argv[1])
        f["Year"] = "2001"
        f.save()
        """

    /// A second ID3v2.4 tag right after ffmpeg's (label and grouping in
    /// it), as a tagger that writes its tag behind one it didn't see leaves
    /// it: mutagen reads the first tag only; a save merges both into one.
    static let stackedTag = """
        import struct, sys
        path = sys.argv[1]
        data = open(path, "rb").read()
        def synchsafe(n):
            return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        first, rest = data[:10 + size], data[10 + size:]
        def frame(name, text):
            body = b"\\x03" + text.encode("utf-8")
            return name.encode() + synchsafe(len(body)) + b"\\x00\\x00" + body
        body = frame("TPUB", "Stacked Label") + frame("TIT1", "Stacked Grouping") + b"\\x00" * 64
        open(path, "wb").write(first + b"ID3\\x04\\x00\\x00" + synchsafe(len(body)) + body + rest)
        """

    /// The ffmpeg tag replaced by an ID3v2.3 tag with the base fields and
    /// `date` as the date frame: a v2.4 `TDRC` (as converters that only
    /// relabel the version leave it) or a `TYER` holding a whole timestamp.
    static func id3v23(date: (String, String)) -> String {
        """
        import struct, sys
        path = sys.argv[1]
        data = open(path, "rb").read()
        def synchsafe(n):
            return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
        if data[:3] == b"ID3":
            size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
            data = data[10 + size:]
        def frame(name, text):
            body = b"\\x00" + text.encode("latin-1")
            return name.encode() + struct.pack(">I", len(body)) + b"\\x00\\x00" + body
        frames = [("TIT2", "Base Title"), ("TPE1", "Base Artist"), ("TALB", "Base Album"), ("TPE2", "Base Album Artist"),
                  ("TCON", "Rock"), ("TRCK", "3/10"), ("TCOM", "Base Composer"), ("\(date.0)", "\(date.1)")]
        body = b"".join(frame(name, text) for name, text in frames) + b"\\x00" * 256
        open(path, "wb").write(b"ID3\\x03\\x00\\x00" + synchsafe(len(body)) + body + data)
        """
    }
}
