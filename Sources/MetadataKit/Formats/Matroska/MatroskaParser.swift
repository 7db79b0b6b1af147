#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads Matroska and WebM files (RFC 9559): the Segment title, Tags,
/// attachments and chapters as ``MetadataKeySpace/matroska`` items and
/// chapter tables, and the tracks as properties.
///
/// Only the elements before the first Cluster and the SeekHead's targets
/// are read (see ``MatroskaLayout``); attachment data stays in the file
/// until asked for. Forgiving: damage inside an element is read around and
/// reported as a warning.
enum MatroskaParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let file = try MatroskaFile(parsing: source)
        var items: [MetadataItem] = []
        if let title = file.info?.title {
            items.append(MetadataItem(keySpace: .matroska, key: "Info/Title", value: .string(title), dataType: .utf8))
        }
        items += file.tags.flatMap(\.items)
        items += file.attachments.map { $0.item(source: source, url: url) }

        var properties = MediaProperties()
        properties.duration = file.info?.seconds
        properties.streams = file.tracks.map(\.stream)
        let video = file.tracks.first { $0.type == 1 }
        let audio = file.tracks.first { $0.type == 2 }
        properties.codec = (video ?? audio)?.codecName
        properties.width = video?.pixelWidth
        properties.height = video?.pixelHeight
        if let audio {
            let stream = audio.stream
            properties.sampleRate = stream.sampleRate
            properties.channels = stream.channels
            properties.bitsPerSample = audio.bitDepth
        }
        if let duration = properties.duration, duration > 0 {
            let bits = Double(source.size) * 8 / duration
            if bits.isFinite, bits < 1e12 { properties.bitrate = Int(bits.rounded()) }
        }
        let isWebM = file.layout.header.docType == "webm"
        let mime = (isWebM ? "" : "x-") + (isWebM ? "webm" : "matroska")
        let fileType = FileType(
            identifier: isWebM ? FileType.webm.identifier : FileType.matroska.identifier,
            mimeType: (video == nil && audio != nil ? "audio/" : "video/") + mime)
        var parsed = ParsedFile(
            fileType: fileType, items: items, properties: properties, isEditable: file.isEditable, warnings: file.warnings)
        parsed.chapterTables = file.chapters
        return parsed
    }
}

/// Everything read from a Matroska file, for the parser and the planner.
struct MatroskaFile {
    var layout: MatroskaLayout
    var info: MatroskaInfo?
    var tracks: [MatroskaTrack] = []
    /// One entry per Tags element, in file order.
    var tags: [MatroskaTags] = []
    var attachments: [MatroskaAttachment] = []
    var chapters: [ChapterTable] = []
    var warnings: [MediaWarning] = []

    /// Whether a save can be planned: one Info element (several Tags
    /// elements are merged by the save, see ``MatroskaEditPlanner``).
    var isEditable: Bool { layout.all(MatroskaID.info).count == 1 }

    init(parsing source: FileSource) throws {
        layout = try MatroskaLayout(parsing: source)
        warnings = layout.warnings
        if let element = layout.first(MatroskaID.info) {
            info = try MatroskaInfo(parsing: source, element: element, warnings: &warnings)
        } else {
            warnings.append(MediaWarning(.malformed, "the Segment has no Info element", offset: layout.segment.offset))
        }
        if let element = layout.first(MatroskaID.tracks) {
            tracks = try MatroskaTrack.parseTracks(source, element: element, warnings: &warnings)
        }
        for element in layout.all(MatroskaID.tags) {
            tags.append(try MatroskaTags(parsing: source, element: element, warnings: &warnings))
        }
        if let element = layout.first(MatroskaID.attachments) {
            attachments = try MatroskaAttachment.parse(source, element: element, warnings: &warnings)
        }
        if let element = layout.first(MatroskaID.chapters) {
            chapters = try MatroskaChapters.parse(source, element: element, warnings: &warnings)
        }
    }
}
