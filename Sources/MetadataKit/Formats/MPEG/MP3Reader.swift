import Foundation

/// Reads MP3 files: ID3v2, ID3v1, MPEG audio properties. Placeholder, replaced by the MP3 parser.
enum MP3Reader {
    static func read(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        throw MediaError(.unsupportedFeature, "MP3 reading is not implemented yet")
    }
}
