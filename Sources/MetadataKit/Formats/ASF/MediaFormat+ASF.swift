#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FileType {
    /// Windows Media Audio: an ASF file without video.
    public static let wma = FileType(identifier: "asf", mimeType: "audio/x-ms-wma")
    /// Windows Media Video: an ASF file with a video stream.
    public static let wmv = FileType(identifier: "asf", mimeType: "video/x-ms-wmv")
    /// An ASF file with neither audio nor video streams.
    public static let asf = FileType(identifier: "asf", mimeType: "video/x-ms-asf")
}

extension MediaFormat {
    /// Advanced Systems Format: `.wma .wmv .asf`. Recognised by the Header
    /// Object's GUID at the start (ASF Specification §3.1).
    static let asf = MediaFormat(
        identifier: "asf", name: "ASF (WMA / WMV)", extensions: ["wma", "wmv", "asf"],
        mimeTypes: ["audio/x-ms-wma", "video/x-ms-wmv", "video/x-ms-asf"],
        keySpaces: [.asf], fieldCodecs: [ASFFieldCodec()], keyTables: [.asf],
        recognizes: { probe in
            // The probe holds 12 bytes; the GUID's last 4 are read when those match.
            guard probe.head.count >= 12, probe.head.elementsEqual(headerGUIDBytes.prefix(12)) else { return false }
            return try probe.source.getAvailableBytes(at: 0, count: 16) == headerGUIDBytes
        },
        parse: ASFParser.parse, planEdit: ASFEditPlanner.plan)
}

/// The Header Object's GUID as stored, made once (detection compares it with every file's head).
private let headerGUIDBytes = ASFGUID.header.bytes
