import Synchronization

/// Which raw keys hold each normalized field, in order of precedence.
///
/// When a field is stored in more than one place, the first key in the list
/// that the file has wins:
/// - MP3: ID3v2 (v2.4/v2.3 frame IDs, then v2.2 IDs), then ID3v1.
/// - MP4 family: the iTunes `ilst` item, then the QuickTime `mdta` key
///   (`com.apple.quicktime.*`, then the bare names ffmpeg writes with
///   `use_metadata_tags`), then the `udta` ©-atom.
/// - FLAC and Ogg: Vorbis comment fields (see `vorbisKeys`).
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
/// **ID3 wins** where both hold a field (see `riffKeys` and `aiffKeys`).
public struct MetadataKeyMap: Sendable {
    /// One raw key: a key space and a key in it.
    public struct RawKey: Hashable, Sendable, CustomStringConvertible {
        /// The tag format and namespace the key belongs to.
        public var keySpace: MetadataKeySpace
        /// The key as the format spells it (`TIT2`, `©nam`, `TITLE`).
        public var key: String
        /// The key `key` in `keySpace`.
        public init(_ keySpace: MetadataKeySpace, _ key: String) {
            self.keySpace = keySpace
            self.key = key
        }
        public var description: String { "\(keySpace.rawValue):\(key)" }
    }

    /// Keys read as a last resort and never written to a file that lacks
    /// them. A key here is a fallback of every field that lists it after a
    /// first key (in its key space) that is not one: `TDRL`, `TDOR` and
    /// `TORY` are the year's fallbacks but the own keys of
    /// ``MetadataField/releaseDate`` and ``MetadataField/originalDate``,
    /// which they start. A change of the field leaves its fallbacks as they
    /// are, except the ``syncedFallbackKeys``.
    public var fallbackKeys: Set<RawKey> = []

    /// The fallback keys kept in step with their field: when the field
    /// changes, the file's items under them are rewritten by its converter
    /// (which may drop them), and removing the field removes them; another
    /// field reading the same items keeps its value (written to its own key
    /// when the items no longer give it). The ID3 `RVA2` frames of ReplayGain.
    public var syncedFallbackKeys: Set<RawKey> = []

    /// Keys other writers use for a field whose own key in the same key
    /// space is another (ffmpeg writes an MP3's comment as ID3 `TXXX:comment`,
    /// players read `COMM`): read as the field, and replaced by the space's
    /// own key when the field is set.
    public var replacedKeys: Set<RawKey> = []

    /// Keys whose place holds one text (ASF's Content Description strings):
    /// several values for them are refused.
    public var singleValueKeys: Set<RawKey> = []

    /// Key spaces in which a tag holds each key once (APEv2 items): when a
    /// file holds one key twice, the later item gives the field, as mutagen
    /// and TagLib read such a tag; the earlier item stays a raw item. Pictures
    /// are the exception: every one is listed in ``Metadata/artwork``.
    public var uniqueKeySpaces: Set<MetadataKeySpace> = []

    /// Raw keys per field, most preferred first.
    public var keys: [MetadataField: [RawKey]] {
        get { blocks?.keys ?? ownKeys }
        set {
            ownKeys = newValue
            index = Self.makeIndex(newValue)
            blocks = nil
        }
    }
    private var ownKeys: [MetadataField: [RawKey]]
    /// Entry of the index: a key space, a field (as its position in
    /// `MetadataField.allCases`) and the key's rank among that field's keys.
    typealias IndexEntry = (keySpace: MetadataKeySpace, field: Int, rank: Int)
    /// For each key string, where it holds a field. Keyed by the key alone so
    /// a lookup hashes one short string (this runs for every item read).
    private var index: [String: [IndexEntry]]
    /// The standard map's blocks of rows (nil for a map made from its keys):
    /// each block is read and indexed when an item of its key spaces is first
    /// looked up, and `keys` merged when first asked, so a process reading
    /// MP3 files never builds the MP4 or Matroska rows.
    private var blocks: LazyBlocks?

    /// A map from each field to its raw keys, most preferred first.
    public init(keys: [MetadataField: [RawKey]]) {
        self.ownKeys = keys
        self.index = Self.makeIndex(keys)
    }

    /// A map of `tables` (blocks with disjoint keys, distinct names), each
    /// field's keys in table order.
    init(tables: [KeyTable]) {
        self.ownKeys = [:]
        self.index = [:]
        self.blocks = LazyBlocks(tables)
    }

    static func makeIndex(_ keys: [MetadataField: [RawKey]]) -> [String: [IndexEntry]] {
        var index: [String: [IndexEntry]] = [:]
        index.reserveCapacity(keys.values.reduce(0) { $0 + $1.count })
        for (position, field) in MetadataField.ordered.enumerated() {
            for (rank, key) in (keys[field] ?? []).enumerated() {
                index[key.key, default: []].append((key.keySpace, position, rank))
            }
        }
        return index
    }

    /// The items of `items` that hold each field, most preferred key first and
    /// file order within one key — `items(for:in:)` for every field in one pass.
    public func itemsByField(_ items: [MetadataItem]) -> [MetadataField: [MetadataItem]] {
        var result: [MetadataField: [MetadataItem]] = [:]
        forEachField(of: items) { field, matching in result[field] = matching }
        return result
    }

    /// Calls `body` once per field that `items` hold, in `MetadataField.allCases`
    /// order, with that field's items (most preferred key first, file order
    /// within one key; in a key space of ``uniqueKeySpaces`` only the last
    /// item of a key, pictures excepted). No dictionary is made: this runs on every load.
    func forEachField(of items: [MetadataItem], _ body: (MetadataField, [MetadataItem]) -> Void) {
        // Every (field, rank, item) match in one list, sorted: a file holds a
        // few dozen items, so this beats a list per field of the hundred.
        var matches: [(field: Int, rank: Int, position: Int)] = []
        matches.reserveCapacity(items.count * 2) // a track or disc item holds two fields
        if let blocks {
            // A key's rank: its block's place, then its place in the block.
            // The blocks of each key space met, fetched once (a file's items
            // come in a few key spaces, mostly in runs).
            var fetched: [(keySpace: MetadataKeySpace, indexes: [(ordinal: Int, index: [String: [IndexEntry]])])] = []
            var current = -1
            for (position, item) in items.enumerated() {
                if current < 0 || fetched[current].keySpace != item.keySpace {
                    if let known = fetched.firstIndex(where: { $0.keySpace == item.keySpace }) {
                        current = known
                    } else {
                        fetched.append((item.keySpace, blocks.indexes(of: item.keySpace)))
                        current = fetched.count - 1
                    }
                }
                for (ordinal, index) in fetched[current].indexes {
                    guard let entries = index[item.key] else { continue }
                    for entry in entries where entry.keySpace == item.keySpace {
                        matches.append((entry.field, ordinal << 32 | entry.rank, position))
                    }
                }
            }
        } else {
            for (position, item) in items.enumerated() {
                guard let entries = index[item.key] else { continue }
                for entry in entries where entry.keySpace == item.keySpace {
                    matches.append((entry.field, entry.rank, position))
                }
            }
        }
        matches.sort { ($0.field, $0.rank, $0.position) < ($1.field, $1.rank, $1.position) }
        var start = 0
        while start < matches.count {
            var end = start + 1
            while end < matches.count && matches[end].field == matches[start].field { end += 1 }
            var matching: [MetadataItem] = []
            matching.reserveCapacity(end - start)
            for match in start..<end {
                let position = matches[match].position
                // The same rank is the same key: a key given again replaces
                // the earlier item in a key space whose keys are unique
                // (pictures all count: a writer may give several one key).
                if match + 1 < end, matches[match + 1].rank == matches[match].rank,
                    matches[match].field != MetadataField.artwork.position, uniqueKeySpaces.contains(items[position].keySpace)
                {
                    continue
                }
                matching.append(items[position])
            }
            body(MetadataField.ordered[matches[start].field], matching)
            start = end
        }
    }

    /// The field that `keySpace`/`key` maps to, if any.
    public func field(for keySpace: MetadataKeySpace, key: String) -> MetadataField? {
        guard let blocks else {
            return (index[key]?.first { $0.keySpace == keySpace }).map { MetadataField.ordered[$0.field] }
        }
        for (_, index) in blocks.indexes(of: keySpace) {
            if let entry = index[key]?.first(where: { $0.keySpace == keySpace }) { return MetadataField.ordered[entry.field] }
        }
        return nil
    }

    /// Makes the index of the blocks of `keySpace` now, as its first lookup
    /// would: for a caller with a core to spare that knows which key spaces
    /// its files hold (`mdkit read` does it on its table thread while the
    /// first file is opened and parsed). Nothing for a map made from its keys.
    package func prepare(_ keySpace: MetadataKeySpace) {
        _ = blocks?.indexes(of: keySpace)
    }

    /// One block of rows, a tag format's raw keys per field, named so that
    /// the standard map takes a block several formats share once. Its rows
    /// (a `static let` of the format's folder) are made when first asked.
    /// Blocks hold disjoint keys.
    struct KeyTable: Sendable {
        /// The block's name, unique among blocks.
        let name: String
        /// The key spaces of its keys.
        let keySpaces: [MetadataKeySpace]
        private let makeRows: @Sendable () -> [MetadataField: [RawKey]]
        /// The block `name` of keys in `keySpaces`, whose rows `rows` gives.
        init(_ name: String, keySpaces: [MetadataKeySpace], rows: @escaping @Sendable () -> [MetadataField: [RawKey]]) {
            self.name = name
            self.keySpaces = keySpaces
            self.makeRows = rows
        }
        /// The raw keys of each field, most preferred first.
        var rows: [MetadataField: [RawKey]] { makeRows() }
    }

    /// The blocks of a map made from tables: each block's index made when an
    /// item of its key spaces is first looked up, the rows merged when first asked.
    final class LazyBlocks: Sendable {
        let all: [KeyTable]
        /// The places in `all` of the blocks of each key space.
        private let byKeySpace: [(keySpace: MetadataKeySpace, ordinals: [Int])]
        private let made = Mutex<(indexes: [[String: [IndexEntry]]?], keys: [MetadataField: [RawKey]]?)>(([], nil))

        init(_ tables: [KeyTable]) {
            all = tables
            var byKeySpace: [(keySpace: MetadataKeySpace, ordinals: [Int])] = []
            for (ordinal, table) in tables.enumerated() {
                for space in table.keySpaces {
                    if let at = byKeySpace.firstIndex(where: { $0.keySpace == space }) {
                        byKeySpace[at].ordinals.append(ordinal)
                    } else {
                        byKeySpace.append((space, [ordinal]))
                    }
                }
            }
            self.byKeySpace = byKeySpace
            made.withLock { $0.indexes = Array(repeating: nil, count: tables.count) }
        }

        /// The index of each block holding keys of `keySpace`, with its place in `all`.
        func indexes(of keySpace: MetadataKeySpace) -> [(ordinal: Int, index: [String: [IndexEntry]])] {
            guard let ordinals = byKeySpace.first(where: { $0.keySpace == keySpace })?.ordinals else { return [] }
            return made.withLock { made in
                ordinals.map { ordinal in
                    if let index = made.indexes[ordinal] { return (ordinal, index) }
                    let index = MetadataKeyMap.makeIndex(all[ordinal].rows)
                    made.indexes[ordinal] = index
                    return (ordinal, index)
                }
            }
        }

        /// Every block's rows, each field's keys in block order.
        var keys: [MetadataField: [RawKey]] {
            made.withLock { made in
                if let keys = made.keys { return keys }
                // Lists by field position (no hashing of fields), made into the dictionary once.
                var lists = [[RawKey]](repeating: [], count: MetadataField.ordered.count)
                for table in all {
                    for (field, rows) in table.rows { lists[field.position].append(contentsOf: rows) }
                }
                var keys: [MetadataField: [RawKey]] = [:]
                keys.reserveCapacity(lists.count)
                for (position, list) in lists.enumerated() where !list.isEmpty {
                    keys[MetadataField.ordered[position]] = list
                }
                made.keys = keys
                return keys
            }
        }
    }
}
