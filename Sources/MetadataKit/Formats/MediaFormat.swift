#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One container format MetadataKit reads, and everything the rest of the
/// library needs to know about it: its file types, how it is recognised,
/// how it is read, how an edit is planned, and which raw keys it holds.
///
/// Every supported format is one value in ``all`` (see `FormatRegistry.swift`);
/// detection (``MediaItem/load()``), saving, the key checks of `mdkit write`
/// and the format list of `mdkit --help` all come from that list. A new
/// format is a folder under `Formats/` that defines its value, and one line
/// in ``all``.
public struct MediaFormat: Sendable, Identifiable, CustomStringConvertible {
    /// Short identifier, the ``FileType/identifier`` of its files: `mp3`, `mp4`, `flac`.
    public let identifier: String
    /// Human name: "MPEG audio (MP3)".
    public let name: String
    /// File name extensions, lowercased, without the dot; the first is the usual one.
    public let extensions: [String]
    /// MIME types its files are given (``FileType/mimeType`` is one of these).
    public let mimeTypes: [String]
    /// Raw-item key spaces its files hold, the primary one first (new fields
    /// are written there).
    public let keySpaces: [MetadataKeySpace]
    /// Whether ``MediaItem/save(options:)`` can write files of this format.
    public var isWritable: Bool { planEdit != nil }

    public var id: String { identifier }
    public var description: String { identifier }

    /// Key spaces the planner rebuilds from the normalized fields instead of
    /// keeping their items (ID3v1).
    let derivedKeySpaces: [MetadataKeySpace]
    /// Keys whose items the planner may store in another form that holds the
    /// same field (ID3 dates: `TDRC` in v2.4, `TYER`/`TDAT`/`TIME` in v2.3);
    /// after a save they are checked by the field's value, not by key.
    let reshapedKeys: Set<MetadataKeyMap.RawKey>
    /// Whether an ID3 tag that a save starts gets every field the format's
    /// own text chunks hold (WAV `INFO`, AIFF text chunks, DSDIFF `DIIN`):
    /// TagLib shows only the ID3 tag of such a file once it has one, so a
    /// new tag holding only the new field would hide the others.
    let fillsNewPrimaryTag: Bool
    /// How the key spaces this format's folder owns store the fields whose
    /// form is their own (``KeySpaceCodec``); every format's together are
    /// ``KeySpaceCodecs/standard``.
    let fieldCodecs: [any KeySpaceCodec]
    /// Keys replaced by their key space's own key of the field when it is set
    /// (``MetadataKeyMap/replacedKeys``).
    var replacedKeys: Set<MetadataKeyMap.RawKey> { KeySpaceCodecs.standard.keys(in: keySpaces) { $0.replacedKeys } }
    /// Keys whose place holds one text (``MetadataKeyMap/singleValueKeys``).
    var singleValueKeys: Set<MetadataKeyMap.RawKey> { KeySpaceCodecs.standard.keys(in: keySpaces) { $0.singleValueKeys } }
    /// Key spaces whose keys are case-insensitive; keys are kept uppercased.
    let uppercasedKeySpaces: Set<MetadataKeySpace>
    /// Key spaces in which a tag holds each key once (APEv2 items): when a
    /// file holds a key twice, the later item gives the field, as mutagen and
    /// TagLib read it (both items stay in ``Metadata/items``).
    let uniqueKeySpaces: Set<MetadataKeySpace>
    /// The blocks of this format's rows of ``MetadataKeyMap/standard``, in
    /// order of precedence. Their rows are made when asked (once, for the
    /// standard key map), so that the table of formats costs little to make.
    let keyTables: [MetadataKeyMap.KeyTable]
    /// This format's rows of ``MetadataKeyMap/standard``: the raw keys of each
    /// field, most preferred first (its blocks' rows in order).
    var keyMapRows: [MetadataField: [MetadataKeyMap.RawKey]] {
        keyTables.reduce(into: [:]) { result, table in result.merge(table.rows) { $0 + $1 } }
    }
    /// Whether the file's first bytes (and, rarely, a look further in) say
    /// this format.
    let recognizes: @Sendable (_ probe: FormatProbe) throws -> Bool
    /// Whether a file whose first bytes no format recognises is still read as
    /// this format when its extension is one of ``extensions`` (raw MPEG audio
    /// may start with junk).
    let acceptsByExtension: Bool
    /// Reads a file's raw items, properties and damage warnings.
    let parse: @Sendable (_ source: FileSource, _ url: URL) throws -> ParsedFile
    /// Plans the edit that stores `items` (the file's complete list of raw
    /// items after the change); nil for a read-only format. `basis` is the
    /// ``ParsedFile/editBasis`` of the file's load when the file is unchanged
    /// since (same size, modification time and inode), else nil.
    let planEdit:
        (
            @Sendable (
                _ source: FileSource, _ basis: (any Sendable)?, _ items: [MetadataItem], _ options: SaveOptions
            ) throws -> FileEditPlan
        )?
    /// Reads the file as an ``Asset`` (tracks with sample tables); nil for a
    /// format whose tracks are the streams of its ordinary read.
    let loadAsset: (@Sendable (_ source: FileSource, _ url: URL) throws -> AssetContents)?
    /// How the format stores changed chapters (``MediaItem/chapterTables``).
    let chapterWriting: ChapterWriting

    /// How a format stores chapters when a save changes them.
    enum ChapterWriting: Sendable {
        /// It can't: a save that changes chapters is refused.
        case none
        /// As raw items (ID3 `CHAP`/`CTOC` frames, Vorbis `CHAPTERxxx`
        /// comments): the closure returns the file's items with the chapter
        /// items replaced by those holding `tables` (none for an empty list).
        case asItems(@Sendable (_ tables: [ChapterTable], _ items: [MetadataItem]) throws -> [MetadataItem])
        /// By the edit planner, which finds them in ``SaveOptions/chapterTables``
        /// (Matroska `Chapters`, MP4 chapter tracks).
        case byPlanner
    }

    init(
        identifier: String, name: String, extensions: [String], mimeTypes: [String], keySpaces: [MetadataKeySpace],
        derivedKeySpaces: [MetadataKeySpace] = [], reshapedKeys: Set<MetadataKeyMap.RawKey> = [],
        uppercasedKeySpaces: Set<MetadataKeySpace> = [], uniqueKeySpaces: Set<MetadataKeySpace> = [],
        fillsNewPrimaryTag: Bool = false, fieldCodecs: [any KeySpaceCodec] = [],
        keyTables: [MetadataKeyMap.KeyTable],
        recognizes: @escaping @Sendable (FormatProbe) throws -> Bool, acceptsByExtension: Bool = false,
        parse: @escaping @Sendable (FileSource, URL) throws -> ParsedFile,
        planEdit: (@Sendable (FileSource, [MetadataItem], SaveOptions) throws -> FileEditPlan)?,
        planEditFromBasis: (@Sendable (FileSource, (any Sendable)?, [MetadataItem], SaveOptions) throws -> FileEditPlan)? = nil,
        chapterWriting: ChapterWriting = .none,
        loadAsset: (@Sendable (FileSource, URL) throws -> AssetContents)? = nil
    ) {
        self.identifier = identifier
        self.name = name
        self.extensions = extensions
        self.mimeTypes = mimeTypes
        self.keySpaces = keySpaces
        self.derivedKeySpaces = derivedKeySpaces
        self.reshapedKeys = reshapedKeys
        self.uppercasedKeySpaces = uppercasedKeySpaces
        self.uniqueKeySpaces = uniqueKeySpaces
        self.fillsNewPrimaryTag = fillsNewPrimaryTag
        self.fieldCodecs = fieldCodecs
        self.keyTables = keyTables
        self.recognizes = recognizes
        self.acceptsByExtension = acceptsByExtension
        self.parse = parse
        if let planEditFromBasis {
            self.planEdit = planEditFromBasis
        } else if let planEdit {
            self.planEdit = { @Sendable source, _, items, options in try planEdit(source, items, options) }
        } else {
            self.planEdit = nil
        }
        self.chapterWriting = chapterWriting
        self.loadAsset = loadAsset
    }
}

/// What detection looks at: the first bytes of the file and the file itself
/// (for a format that must look past a leading tag). The name's extension
/// is looked at only when no format recognises the bytes.
struct FormatProbe {
    /// Up to the first ``headCount`` bytes of the file.
    let head: [UInt8]
    let source: FileSource
    private let found = Found()

    static let headCount = 12

    init(head: [UInt8], source: FileSource) {
        self.head = head
        self.source = source
    }

    /// What one format's look past the head found, kept for the next ones.
    private final class Found {
        var afterID3Tags: (offset: Int64, bytes: [UInt8])??
        var afterFirstID3Tag: Int64??
    }

    /// Where a stream that may follow one ID3v2 tag (ADTS, AC-3) starts: 0,
    /// or the end of the ID3v2 tag at the start when it ends inside the
    /// file; nil when the head starts with "ID3" but no such tag is there.
    /// Read once.
    var afterFirstID3Tag: Int64? {
        if let known = found.afterFirstID3Tag { return known }
        var result: Int64? = 0
        if starts(with: "ID3") {
            result = (try? ID3v2Header.parse(from: source, at: 0)).flatMap { $0.end < source.size ? $0.end : nil }
        }
        found.afterFirstID3Tag = .some(result)
        return result
    }

    /// Where the file's leading ID3v2 tags end (at most eight, each within
    /// the file) and up to four bytes from there: the formats that may
    /// follow an ID3v2 tag (FLAC, the APE family) look there. Read once,
    /// when the head starts with "ID3"; nil otherwise.
    var afterID3Tags: (offset: Int64, bytes: [UInt8])? {
        if let known = found.afterID3Tags { return known }
        var result: (offset: Int64, bytes: [UInt8])?
        if starts(with: "ID3") {
            let marker = (try? ID3v2Header.endOfLeadingTags(in: source, stoppingAtDamage: true)) ?? 0
            if marker > 0, let bytes = try? source.getAvailableBytes(at: marker, count: 4) {
                result = (marker, bytes)
            }
        }
        found.afterID3Tags = .some(result)
        return result
    }

    /// Whether the head starts with `text`'s bytes.
    func starts(with text: StaticString) -> Bool {
        text.withUTF8Buffer { head.starts(with: $0) }
    }

    /// The four bytes at `offset` of the head as a code, if the head is that long.
    func fourCC(at offset: Int) -> FourCC? {
        guard head.count >= offset + 4 else { return nil }
        return FourCC(
            UInt32(head[offset]) << 24 | UInt32(head[offset + 1]) << 16 | UInt32(head[offset + 2]) << 8 | UInt32(head[offset + 3]))
    }
}
