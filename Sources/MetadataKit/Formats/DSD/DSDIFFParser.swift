#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads DSDIFF files (``DSDIFFStructure``): properties from 'PROP' and the
/// sound data chunk; tags from the 'DIIN' chunk (``DSDIFFEditedMaster``,
/// ``MetadataKeySpace/dsdiff`` items) and the first 'ID3 ' chunk
/// (``DSDID3Tag``, ``MetadataKeySpace/id3`` items), in chunk order. Where
/// both hold a field, ID3 wins (``MetadataKeyMap``).
///
/// An ID3 tag with damaged frames is read around them
/// (``DSDID3Tag/readAround(in:source:url:)``). A file that ends inside its
/// sound data is read-only; other damage is read
/// around and reported in ``ParsedFile/warnings`` (an 'ID3 ' chunk cut by
/// the end of the file is read as far as it goes; a save keeps its bytes
/// after the form and writes the items in a new chunk).
enum DSDIFFParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let dff = try DSDIFFStructure(parsing: source)
        var warnings = dff.warnings
        var items: [MetadataItem] = []
        var chapterTables: [ChapterTable] = []
        if let diin = dff.first("DIIN") {
            let master = try DSDIFFEditedMaster(parsing: diin, source: source)
            items += master.items
            warnings += master.warnings
        }
        // An 'ID3 ' chunk cut by the end of the file is read as far as it goes (as mutagen reads it).
        let id3Chunk = dff.first("ID3 ") ?? dff.cut.flatMap { $0.id == "ID3 " ? $0 : nil }
        if let chunk = id3Chunk,
            let tag = try DSDID3Tag.readAround(in: chunk.payloadOffset..<chunk.payloadEnd(atMost: source.size), source: source, url: url)
        {
            items += tag.items
            warnings += tag.warnings
            chapterTables = tag.chapterTables
        }
        warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(
            fileType: .dsdiff, items: items, properties: dff.properties, isEditable: !dff.isTruncated, warnings: warnings,
            chapterTables: chapterTables)
    }
}
