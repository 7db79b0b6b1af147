#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Matroska video, audio or subtitles (`.mkv`, `.mka`, `.mks`); the MIME
    /// type is `audio/x-matroska` for a file with audio and no video.
    public static let matroska = FileType(identifier: "matroska", mimeType: "video/x-matroska")
    /// WebM, the Matroska subset of the web; `audio/webm` without video.
    public static let webm = FileType(identifier: "webm", mimeType: "video/webm")
}

extension MediaFormat {
    /// Matroska (RFC 9559): an EBML header whose DocType is `matroska`.
    static let matroska = MediaFormat(
        identifier: FileType.matroska.identifier, name: "Matroska", extensions: ["mkv", "mka", "mks", "mk3d"],
        mimeTypes: [FileType.matroska.mimeType, "audio/x-matroska"], keySpaces: [.matroska], fieldCodecs: [MatroskaFieldCodec()],
        keyTables: [.matroska],
        recognizes: { probe in isEBML(probe) && EBMLHeader.docType(of: probe.source) != "webm" },
        parse: MatroskaParser.parse, planEdit: MatroskaEditPlanner.plan, chapterWriting: .byPlanner)

    /// WebM: an EBML header whose DocType is `webm` (read and written like Matroska).
    static let webm = MediaFormat(
        identifier: FileType.webm.identifier, name: "WebM", extensions: ["webm"],
        mimeTypes: [FileType.webm.mimeType, "audio/webm"], keySpaces: [.matroska], fieldCodecs: [MatroskaFieldCodec()],
        keyTables: [.matroska],
        recognizes: { probe in isEBML(probe) && EBMLHeader.docType(of: probe.source) == "webm" },
        parse: MatroskaParser.parse, planEdit: MatroskaEditPlanner.plan, chapterWriting: .byPlanner)

    private static func isEBML(_ probe: FormatProbe) -> Bool {
        probe.head.starts(with: [0x1A, 0x45, 0xDF, 0xA3])
    }
}
