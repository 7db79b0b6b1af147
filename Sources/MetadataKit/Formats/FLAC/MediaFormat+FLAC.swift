#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Native FLAC.
    public static let flac = FileType(identifier: "flac", mimeType: "audio/flac")
}

extension MediaFormat {
    /// Native FLAC with a Vorbis comment and PICTURE blocks, and the
    /// Broadcast Wave chunks of `riff` blocks (read-only). Recognised by
    /// `fLaC` at the start or right after leading ID3v2 tags (which some
    /// taggers put there).
    static let flac = MediaFormat(
        identifier: FileType.flac.identifier, name: "FLAC", extensions: ["flac"], mimeTypes: [FileType.flac.mimeType],
        keySpaces: [.vorbis] + BroadcastWAV.keySpaces, uppercasedKeySpaces: [.vorbis], fieldCodecs: [VorbisFieldCodec()],
        keyTables: [.vorbis],
        recognizes: { probe in probe.starts(with: "fLaC") || probe.afterID3Tags?.bytes.starts(with: "fLaC".utf8) == true },
        parse: FLACParser.parse, planEdit: FLACEditPlanner.plan,
        chapterWriting: .asItems(VorbisChapters.storing))
}
