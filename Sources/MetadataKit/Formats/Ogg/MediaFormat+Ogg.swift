#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Ogg, whatever the codec (``MediaProperties/codec`` tells it).
    public static let ogg = FileType(identifier: "ogg", mimeType: "audio/ogg")
}

extension MediaFormat {
    /// Ogg Vorbis, Opus, Speex, Ogg FLAC and Ogg Theora, with their Vorbis
    /// comment (a Theora stream's when it leads the file or has no audio stream beside it, see `OggHeaderScan`); the
    /// other logical streams' comments are read-only `ogg-stream` items.
    /// Recognised by the `OggS` capture pattern at the start.
    static let ogg = MediaFormat(
        identifier: FileType.ogg.identifier, name: "Ogg (Vorbis, Opus, Speex, FLAC, Theora)",
        extensions: ["ogg", "oga", "opus", "spx", "ogv"], mimeTypes: [FileType.ogg.mimeType, "video/ogg"], keySpaces: [.vorbis],
        uppercasedKeySpaces: [.vorbis],
        fieldCodecs: [VorbisFieldCodec()], keyTables: [.vorbis],
        recognizes: { probe in probe.starts(with: "OggS") },
        parse: OggParser.parse, planEdit: OggEditPlanner.plan,
        chapterWriting: .asItems(VorbisChapters.storing))
}
