#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads ASF files (`.wma`, `.wmv`, `.asf`; ASF Specification rev.
/// 01.20.03): every attribute of the Content Description, Extended Content
/// Description, Metadata and Metadata Library objects as an
/// ``MetadataKeySpace/asf`` item (see ``ASFAttribute/item(languages:source:url:)``
/// for the types), `WM/Picture` values as pictures whose bytes stay in the
/// file, and the properties (see ``ASFProperties``).
///
/// Forgiving: damage is read around and reported in ``ParsedFile/warnings``
/// (see ``ASFHeader``). A file whose header objects could not all be read
/// can't be saved (see ``ASFEditPlanner``).
enum ASFParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        // The pictures stay in the file (Artwork reads them): their images are not read.
        let header = try ASFHeader(parsing: source, readingImages: false)
        let items = header.attributes.map { $0.item(languages: header.languages, source: source, url: url) }
        let (properties, warnings) = ASFProperties.properties(header)
        let kinds = Set(properties.streams.map(\.mediaType))
        let fileType: FileType = kinds.contains(.video) ? .wmv : kinds.contains(.audio) ? .wma : .asf
        return ParsedFile(
            fileType: fileType, items: items, properties: properties, isEditable: header.isIntact,
            warnings: header.warnings + warnings)
    }
}
