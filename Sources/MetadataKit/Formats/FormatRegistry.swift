#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaFormat {
    /// Every format MetadataKit reads, in the order detection asks them
    /// (the tracker modules, which must read past the first bytes to be
    /// sure, come after MP3; Shorten, which may follow an ID3v2 tag as the
    /// APE family does, before it).
    ///
    /// Adding a format: a folder under `Formats/` that defines its
    /// `MediaFormat` value, and one entry here.
    public static let all: [MediaFormat] = [
        .wav, .aiff, .flac, .ogg, .mp4, .matroska, .webm, .asf, .dsf, .dsdiff,
        .monkeysAudio, .wavPack, .musepack, .trueAudio, .optimFROG, .tak, .aac, .ac3, .shorten, .mp3, .it, .xm, .s3m, .mod,
    ]

    /// Items several formats hold whose fields are read but never written
    /// (``ReadOnlyFieldSource``): XMP packets.
    static let readOnlyFieldSources: [ReadOnlyFieldSource] = [XMPFields.source]

    /// Each format's ``recognizes``, in the order of ``all``.
    private static let recognizers = all.map(\.recognizes)

    /// The format whose ``identifier`` is `identifier`.
    public static func named(_ identifier: String) -> MediaFormat? {
        all.first { $0.identifier == identifier }
    }

    /// The first format in registry order whose ``extensions`` hold
    /// `pathExtension` (lowercase, without the dot).
    package static func first(withExtension pathExtension: String) -> MediaFormat? {
        all.first { $0.extensions.contains(pathExtension) }
    }

    /// Every key space some format holds, in registry order.
    public static let allKeySpaces: [MetadataKeySpace] = {
        var seen = Set<MetadataKeySpace>()
        return all.flatMap(\.keySpaces).filter { seen.insert($0).inserted }
    }()

    /// `key` as files of the formats holding `keySpace` store it: Vorbis
    /// comment names are case-insensitive and kept uppercased; other keys are
    /// returned as given.
    public static func normalizedKey(_ key: String, in keySpace: MetadataKeySpace) -> String {
        all.contains { $0.uppercasedKeySpaces.contains(keySpace) } ? key.uppercased() : key
    }

    /// Picks the format of the file read through `source` from its first
    /// bytes; the extension only decides when no format recognises them.
    static func detect(_ source: FileSource, url: URL) throws -> MediaFormat {
        guard source.size > 0 else {
            throw MediaError(.unsupportedFormat, "the file is empty", offset: 0)
        }
        let probe = FormatProbe(head: try source.getAvailableBytes(at: 0, count: FormatProbe.headCount), source: source)
        // The closures alone: looping over `all` would copy every format's value.
        for (index, recognizes) in recognizers.enumerated() where try recognizes(probe) {
            return all[index]
        }
        let pathExtension = url.pathExtension.lowercased()
        if let format = all.first(where: { $0.acceptsByExtension && $0.extensions.contains(pathExtension) }) {
            return format
        }
        throw MediaError(
            .unsupportedFormat,
            "not a supported media file (the first bytes are none of: "
                + all.map(\.name).joined(separator: ", ") + ")", offset: 0)
    }
}

extension KeySpaceCodecs {
    /// The codecs every format in ``MediaFormat/all`` carries: the ones the
    /// model's converters ask (``MetadataConverterRegistry/standard``).
    public static let standard = KeySpaceCodecs(MediaFormat.all.flatMap(\.fieldCodecs))
}

extension MetadataKeyMap {
    /// The standard table (see the type's documentation): the rows of every
    /// format in ``MediaFormat/all``, and the keys its key spaces' codecs
    /// treat apart.
    public static let standard: MetadataKeyMap = {
        var map = MetadataKeyMap(tables: keyTables(of: MediaFormat.all))
        let codecs = KeySpaceCodecs.standard
        map.uniqueKeySpaces = MediaFormat.all.reduce(into: []) { $0.formUnion($1.uniqueKeySpaces) }
        map.replacedKeys = codecs.keys { $0.replacedKeys }
        map.singleValueKeys = codecs.keys { $0.singleValueKeys }
        map.fallbackKeys = codecs.keys { $0.fallbackKeys }
        map.syncedFallbackKeys = codecs.keys { $0.syncedFallbackKeys }
        return map
    }()

    /// Every format's blocks of rows in registry order, each once (a format's
    /// own blocks keep their order). Blocks hold disjoint keys
    /// (FormatRegistryTests), so this is the key-by-key merge of the formats' rows.
    static func keyTables(of formats: [MediaFormat]) -> [KeyTable] {
        var tables: [KeyTable] = []
        for format in formats {
            for table in format.keyTables where !tables.contains(where: { $0.name == table.name }) {
                tables.append(table)
            }
        }
        return tables
    }
}
