import Foundation

/// Reads the MP4 family (.mp4 .m4a .m4b .m4v .mov .3gp). Placeholder, replaced by the MP4 parser.
enum MP4Reader {
    /// Box types that may open an MP4/QuickTime file.
    static let topLevelTypes: Set<FourCC> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"]

    static func read(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        throw MediaError(.unsupportedFeature, "MP4 reading is not implemented yet")
    }
}
