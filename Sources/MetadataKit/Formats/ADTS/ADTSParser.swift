#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads raw AAC streams in ADTS framing (`.aac`), and in ADIF framing (one
/// header at the start, ``ADIFHeader``).
///
/// - Tags: the leading ID3v2 tags, an appended ID3v2 tag, the APEv2 tag
///   nearest the end and ID3v1 are found and read exactly as in MP3 files
///   (``MP3Layout``, ``MP3Trailer``; further APE tags and Lyrics3 blocks at
///   the end are kept out of the audio).
/// - Properties (``ADTSFrameHeader``, ``ElementaryStreamScanner``): rate,
///   channels and codec ("AAC LC", …) from the first frame; the duration from
///   every frame's 1024 samples per raw data block; the bit rate is the
///   stream's bytes × 8 / duration. ADIF: rate, channels and codec from
///   the header's first program config element, the duration from the
///   stream's bytes at the header's bit rate.
/// - A file with no ADTS frame or ADIF header and no tag is not read
///   (`unsupportedFormat`).
enum ADTSParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        try RawStreamParser.parse(source, url, fileType: .aac, properties: properties)
    }

    /// The properties of the ADIF or ADTS stream in `start..<end`.
    @Sendable static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> (
        MediaProperties, ElementaryStreamScanner.Scan
    )? {
        if let adif = try adif(source, from: start, to: end) { return adif }
        guard
            let scan = try ElementaryStreamScanner.scan(
                source, from: start, to: end, headerLength: ADTSFrameHeader.length, syncByte: 0xFF,
                parse: { ADTSFrameHeader($0)?.frame })
        else { return nil }
        let first = ADTSFrameHeader(try source.getBytes(at: scan.firstOffset, count: ADTSFrameHeader.length)[...])
        var properties = MediaProperties()
        properties.codec = first?.codec ?? "AAC"
        properties.channels = first?.channels
        properties.sampleRate = first?.sampleRate
        return (properties, scan)
    }

    /// The properties of an ADIF stream at `start` (nil when the bytes
    /// there are no ADIF identifier); a header that ends early gives the
    /// codec and a warning.
    static func adif(_ source: FileSource, from start: Int64, to end: Int64) throws -> (MediaProperties, ElementaryStreamScanner.Scan)? {
        guard end - start >= 4, ADIFHeader.starts(try source.getBytes(at: start, count: 4)) else { return nil }
        let bytes = try source.getBytes(at: start, count: Int(min(end - start, Int64(ADIFHeader.maximumLength))))
        var properties = MediaProperties()
        properties.codec = "AAC"
        var scan = ElementaryStreamScanner.Scan(
            firstOffset: start, first: ElementaryStreamFrame(length: 0, samples: 0, sampleRate: 0, streamKey: 0))
        guard let header = ADIFHeader(bytes) else {
            scan.warnings.append(MediaWarning(.truncated, "the ADIF header ends early or is damaged", offset: start))
            return (properties, scan)
        }
        properties.codec = header.codec
        properties.sampleRate = header.sampleRate
        properties.channels = header.channels > 0 ? header.channels : nil
        scan.bytes = end - start - Int64(header.length)
        if header.bitrate > 0 { scan.duration = Double(scan.bytes) * 8 / Double(header.bitrate) }
        return (properties, scan)
    }

    /// Whether an ADTS stream starts right at `offset` (three frames in a row,
    /// or fewer up to the end of the file), or an ADIF header.
    static func startsStream(in source: FileSource, at offset: Int64) throws -> Bool {
        if source.size - offset >= 4, ADIFHeader.starts(try source.getBytes(at: offset, count: 4)) { return true }
        return try ElementaryStreamScanner.startsStream(
            in: source, at: offset, to: source.size, count: 3, headerLength: ADTSFrameHeader.length,
            parse: { ADTSFrameHeader($0)?.frame })
    }
}

/// What ADTS and AC-3 streams share: ID3 and APEv2 tags as in MP3
/// (``MP3Layout``), so their edits are planned by ``MP3EditPlanner`` (an APE
/// tag the file has is rewritten when its items change; none is added, see
/// ``MP3APETagUpdate``), and properties from a stream scan.
enum RawStreamParser {
    /// The properties of the audio in `start..<end` and the scan they come
    /// from; nil when there is no stream there.
    typealias PropertiesReader = (FileSource, Int64, Int64) throws -> (MediaProperties, ElementaryStreamScanner.Scan)?

    /// ``MP3EditPlanner``, after refusing a stream cut short (``ElementaryStreamScanner/Scan/cut``):
    /// decoders take a tag at the end of such a file for the rest of the cut frame.
    static func planner(
        _ read:
            @escaping @Sendable (FileSource, Int64, Int64) throws -> (
                MediaProperties, ElementaryStreamScanner.Scan
            )?
    ) -> @Sendable (FileSource, [MetadataItem], SaveOptions) throws -> FileEditPlan {
        { source, items, options in
            let layout = try MP3Layout(parsing: source, url: URL(fileURLWithPath: source.path, isDirectory: false))
            if let cut = try read(source, layout.audioStart, layout.trailer.audioEnd)?.1.cut {
                throw MediaError(
                    .truncated,
                    "\(cut.message); a tag after it is decoded as part of the cut frame, so MetadataKit doesn't write this file",
                    offset: cut.offset)
            }
            return try MP3EditPlanner.plan(source, items, options)
        }
    }

    static func parse(_ source: FileSource, _ url: URL, fileType: FileType, properties read: PropertiesReader) throws -> ParsedFile {
        let layout = try MP3Layout(parsing: source, url: url)
        var items = layout.frames.items
        if let v1 = layout.trailer.id3v1Items { items += v1 }
        if let ape = layout.trailer.apeTag { items += try ape.metadataItems(source: source, url: url) }
        let hasTag = !layout.tags.isEmpty || layout.trailer.id3v1Items != nil || layout.trailer.apeTag != nil
        var warnings = layout.warnings
        var properties = MediaProperties()
        var cut = false
        if let result = try read(source, layout.audioStart, layout.trailer.audioEnd) {
            let (found, scan) = result
            properties = found
            if scan.duration > 0, Double(scan.bytes) * 8 / scan.duration < 1e15 {
                properties.duration = scan.duration
                properties.bitrate = Int((Double(scan.bytes) * 8 / scan.duration).rounded())
            }
            warnings += scan.warnings
            if scan.cut != nil { cut = true }
        } else if !hasTag {
            throw MediaError(.unsupportedFormat, "no ID3 tag and no \(fileType.identifier) frame found", offset: layout.audioStart)
        } else {
            warnings.append(MediaWarning(.malformed, "no audio frame found after the tags", offset: layout.audioStart))
        }
        let isEditable = !cut && layout.obstacle(version: layout.version(for: .keep), source: source) == nil
        warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(fileType: fileType, items: items, properties: properties, isEditable: isEditable, warnings: warnings)
    }

    /// Whether the file starts with a stream `startsStream` recognises, right
    /// at its start or right after a leading ID3v2 tag.
    static func recognizes(_ probe: FormatProbe, startsStream: (FileSource, Int64) throws -> Bool) throws -> Bool {
        guard let offset = probe.afterFirstID3Tag else { return false }
        return try startsStream(probe.source, offset)
    }
}
