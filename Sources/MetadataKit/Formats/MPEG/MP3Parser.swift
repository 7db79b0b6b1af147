#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads MP3 (and MP2/MP1) files: the ID3v2 tags at the start (stacked tags
/// merged, see ``MP3Layout``), an ID3v2 tag appended at the end, ID3v1, and
/// the MPEG audio properties. The APEv2 tag nearest the end is read too (key
/// space ``MetadataKeySpace/ape``, as TagLib does); Lyrics3 v2 blocks and
/// further APE tags are recognised only to keep them out of the audio range.
///
/// The read is forgiving: damage inside the ID3v2 tags is read around and
/// reported in ``ParsedFile/warnings``. The file is editable when a save
/// keeping every frame can keep them all (see ``ID3v2TagWriter``).
enum MP3Parser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let layout = try MP3Layout(parsing: source, url: url)
        var items = layout.frames.items
        if let v1 = layout.trailer.id3v1Items { items += v1 }
        if let ape = layout.trailer.apeTag { items += try ape.metadataItems(source: source, url: url) }
        let hasTag = !layout.tags.isEmpty || layout.trailer.id3v1Items != nil || layout.trailer.apeTag != nil

        let properties = try MPEGAudioScanner.properties(in: source, from: layout.audioStart, to: layout.trailer.audioEnd)
        guard properties != nil || hasTag else {
            let head = try source.getBytes(
                at: layout.audioStart, count: Int(min(Int64(ADTSFrameHeader.length), source.size - layout.audioStart)))
            if let problem = ADTSFrameHeader.problem(in: head[...]) {
                throw MediaError(.unsupportedFormat, problem, offset: layout.audioStart)
            }
            throw MediaError(.unsupportedFormat, "no ID3 tag and no MPEG audio frame found", offset: layout.audioStart)
        }
        let isEditable = layout.obstacle(version: layout.version(for: .keep), source: source) == nil
        let chapters = ID3Chapters.read(layout.frames)
        return ParsedFile(
            fileType: .mp3, items: items, properties: properties ?? MediaProperties(), isEditable: isEditable,
            warnings: layout.warnings + chapters.warnings, chapterTables: chapters.tables, editBasis: layout)
    }
}
