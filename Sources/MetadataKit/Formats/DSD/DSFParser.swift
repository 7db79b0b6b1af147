#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads DSF files (``DSFStructure``): properties from the 'fmt ' chunk,
/// tags from the ID3v2 tag the metadata pointer leads to (``DSDID3Tag``),
/// as ``MetadataKeySpace/id3`` items.
///
/// A pointer that leads nowhere useful (into the sample data, past the end,
/// to bytes that are no ID3 tag) is a warning and the file reads as untagged;
/// a save then writes a new tag after the sample data. A tag with damaged
/// frames is read around them (``DSDID3Tag/readAround(in:source:url:)``).
/// A file that ends inside its data chunk is read-only.
enum DSFParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let dsf = try DSFStructure(parsing: source)
        var warnings = dsf.warnings
        var items: [MetadataItem] = []
        var chapterTables: [ChapterTable] = []
        if let region = dsf.tagRegion {
            if let tag = try DSDID3Tag.readAround(in: region, source: source, url: url) {
                items = tag.items
                warnings += tag.warnings
                chapterTables = tag.chapterTables
            } else {
                warnings.append(
                    MediaWarning(
                        .malformed, "the metadata pointer leads to bytes that are no ID3v2 tag; they are kept by a save",
                        offset: region.lowerBound))
            }
        }
        warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(
            fileType: .dsf, items: items, properties: dsf.properties, isEditable: !dsf.isTruncated, warnings: warnings,
            chapterTables: chapterTables)
    }
}
