/// Which raw keys hold each normalized field, in order of precedence.
///
/// When a field is stored in more than one place, the first key in the list
/// that the file has wins:
/// - MP3: ID3v2 (v2.4/v2.3 frame IDs, then v2.2 IDs), then ID3v1.
/// - MP4 family: the iTunes `ilst` item, then the QuickTime `mdta` key
///   (`com.apple.quicktime.*`, then the bare names ffmpeg writes with
///   `use_metadata_tags`), then the `udta` ©-atom.
/// - FLAC and Ogg: Vorbis comment fields (see ``vorbisKeys``).
///
/// | field | ID3v2 | MP4 ilst | mdta | udta | ID3v1 |
/// |---|---|---|---|---|---|
/// | title | TIT2 (TT2) | ©nam | title | ©nam | title |
/// | artist | TPE1 (TP1) | ©ART | artist | ©ART | artist |
/// | albumArtist | TPE2 (TP2) | aART | album_artist | – | – |
/// | album | TALB (TAL) | ©alb | album | ©alb | album |
/// | grouping | TIT1 (TT1), GRP1 | ©grp | grouping | ©grp | – |
/// | composer | TCOM (TCM) | ©wrt | composer | ©wrt, ©com | – |
/// | comments | COMM, empty description (COM) | ©cmt | comment | ©cmt | comment |
/// | artwork | APIC (PIC) | covr | artwork | – | – |
/// | genre | TCON (TCO) | ©gen, gnre | genre | ©gen | genre |
/// | year | TDRC, TYER (TYE) with TDAT/TIME, then release/original dates TDRL, TDOR, TORY | ©day | creationdate, year | ©day | year |
/// | bpm | TBPM (TBP) | tmpo | – | – | – |
/// | track n/N | TRCK (TRK) | trkn | track | – | track |
/// | disc n/N | TPOS (TPA) | disk | disc | – | – |
///
/// WAV and AIFF files hold an ID3v2 tag in an `id3 `/`ID3 ` chunk (the ID3v2
/// keys above) beside their own text: RIFF `LIST`/`INFO` (key space `riff`)
/// and AIFF text chunks (key space `aiff`). These come after the ID3 keys, so
/// **ID3 wins** where both hold a field (see ``riffAIFFKeys``).
public struct MetadataKeyMap: Sendable {
    /// One raw key: a key space and a key in it.
    public struct RawKey: Hashable, Sendable, CustomStringConvertible {
        public var keySpace: MetadataKeySpace
        public var key: String
        public init(_ keySpace: MetadataKeySpace, _ key: String) {
            self.keySpace = keySpace
            self.key = key
        }
        public var description: String { "\(keySpace.rawValue):\(key)" }
    }

    /// Keys read as a last resort but never written or removed when the field
    /// changes: the ID3 release and original dates, which mean something else
    /// than the recording date.
    public var fallbackKeys: Set<RawKey> = [RawKey(.id3, "TDRL"), RawKey(.id3, "TDOR"), RawKey(.id3, "TORY")]

    /// Raw keys per field, most preferred first.
    public var keys: [MetadataField: [RawKey]] {
        didSet { index = Self.makeIndex(keys) }
    }
    /// Entry of the index: a key space, a field (as its position in
    /// `MetadataField.allCases`) and the key's rank among that field's keys.
    private typealias IndexEntry = (keySpace: MetadataKeySpace, field: Int, rank: Int)
    /// For each key string, where it holds a field. Keyed by the key alone so
    /// a lookup hashes one short string (this runs for every item read).
    private var index: [String: [IndexEntry]]

    public init(keys: [MetadataField: [RawKey]]) {
        self.keys = keys
        self.index = Self.makeIndex(keys)
    }

    private static func makeIndex(_ keys: [MetadataField: [RawKey]]) -> [String: [IndexEntry]] {
        var index: [String: [IndexEntry]] = [:]
        for (position, field) in MetadataField.ordered.enumerated() {
            for (rank, key) in (keys[field] ?? []).enumerated() {
                index[key.key, default: []].append((key.keySpace, position, rank))
            }
        }
        return index
    }

    /// The items of `items` that hold each field, most preferred key first and
    /// file order within one key — ``items(for:in:)`` for every field in one pass.
    public func itemsByField(_ items: [MetadataItem]) -> [MetadataField: [MetadataItem]] {
        var result: [MetadataField: [MetadataItem]] = [:]
        forEachField(of: items) { field, matching in result[field] = matching }
        return result
    }

    /// Calls `body` once per field that `items` hold, in `MetadataField.allCases`
    /// order, with that field's items (most preferred key first, file order
    /// within one key). No dictionary is made: this runs on every load.
    func forEachField(of items: [MetadataItem], _ body: (MetadataField, [MetadataItem]) -> Void) {
        var ranked = [[(rank: Int, position: Int)]](repeating: [], count: MetadataField.ordered.count)
        for (position, item) in items.enumerated() {
            guard let entries = index[item.key] else { continue }
            for entry in entries where entry.keySpace == item.keySpace {
                ranked[entry.field].append((entry.rank, position))
            }
        }
        for (field, list) in zip(MetadataField.ordered, ranked) where !list.isEmpty {
            let ordered = list.count == 1 ? list : list.sorted { ($0.rank, $0.position) < ($1.rank, $1.position) }
            body(field, ordered.map { items[$0.position] })
        }
    }

    /// The field that `keySpace`/`key` maps to, if any.
    public func field(for keySpace: MetadataKeySpace, key: String) -> MetadataField? {
        (index[key]?.first { $0.keySpace == keySpace }).map { MetadataField.ordered[$0.field] }
    }

    /// The standard table (see the type's documentation).
    public static let standard: MetadataKeyMap = {
        func entry(id3: [String], itunes: [String] = [], mdta: [String] = [], udta: [String] = [], v1: [String] = []) -> [RawKey] {
            id3.map { RawKey(.id3, $0) } + itunes.map { RawKey(.iTunes, $0) }
                + mdta.flatMap { [RawKey(.quickTimeMetadata, "com.apple.quicktime.\($0)"), RawKey(.quickTimeMetadata, $0)] }
                + udta.map { RawKey(.quickTimeUserData, $0) } + v1.map { RawKey(.id3v1, $0) }
        }
        let track = entry(id3: ["TRCK", "TRK"], itunes: ["trkn"], mdta: ["track"], v1: ["track"])
        let disc = entry(id3: ["TPOS", "TPA"], itunes: ["disk"], mdta: ["disc"])
        var keys: [MetadataField: [RawKey]] = [
            .title: entry(id3: ["TIT2", "TT2"], itunes: ["©nam"], mdta: ["title"], udta: ["©nam"], v1: ["title"]),
            .artist: entry(id3: ["TPE1", "TP1"], itunes: ["©ART"], mdta: ["artist"], udta: ["©ART"], v1: ["artist"]),
            .albumArtist: entry(id3: ["TPE2", "TP2"], itunes: ["aART"], mdta: ["album_artist", "albumArtist"]),
            .album: entry(id3: ["TALB", "TAL"], itunes: ["©alb"], mdta: ["album"], udta: ["©alb"], v1: ["album"]),
            .grouping: entry(id3: ["TIT1", "TT1", "GRP1"], itunes: ["©grp"], mdta: ["grouping"], udta: ["©grp"]),
            .composer: entry(id3: ["TCOM", "TCM"], itunes: ["©wrt"], mdta: ["composer"], udta: ["©wrt", "©com"]),
            .comments: entry(id3: ["COMM", "COM"], itunes: ["©cmt"], mdta: ["comment"], udta: ["©cmt"], v1: ["comment"]),
            .artwork: entry(id3: ["APIC", "PIC"], itunes: ["covr"], mdta: ["artwork"]),
            .genre: entry(id3: ["TCON", "TCO"], itunes: ["©gen", "gnre"], mdta: ["genre"], udta: ["©gen"], v1: ["genre"]),
            .year: entry(id3: ["TDRC", "TYER", "TYE", "TDRL", "TDOR", "TORY", "TDAT", "TIME", "TDA", "TIM"], itunes: ["©day"], mdta: ["creationdate", "year", "date"], udta: ["©day"], v1: ["year"]),
            .bpm: entry(id3: ["TBPM", "TBP"], itunes: ["tmpo"]),
            .trackNumber: track, .trackCount: track,
            .discNumber: disc, .discCount: disc,
        ].merging(riffAIFFKeys) { $0 + $1 }
        for (field, extra) in vorbisKeys { keys[field, default: []] += extra }
        return MetadataKeyMap(keys: keys)
    }()
}
