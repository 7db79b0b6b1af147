#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads raw AC-3 and E-AC-3 streams (`.ac3`, `.eac3`, `.ec3`).
///
/// - Tags: ID3v2 at the start, APEv2 and ID3v1 at the end, as in MP3 files
///   (``RawStreamParser``).
/// - Properties (``AC3FrameHeader``, ``ElementaryStreamScanner``): codec,
///   rate and channels (`acmod` + `lfeon`) from the first frame; the duration
///   from every frame (1536 samples per AC-3 frame, 256 per E-AC-3 audio
///   block of independent substream 0); the bit rate is the nominal one of an
///   AC-3 stream, else the stream's bytes × 8 / duration.
enum AC3Parser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        var first: AC3FrameHeader?
        var parsed = try RawStreamParser.parse(source, url, fileType: .ac3) { source, start, end in
            guard
                let scan = try ElementaryStreamScanner.scan(
                    source, from: start, to: end, headerLength: AC3FrameHeader.length, syncByte: 0x0B,
                    parse: { AC3FrameHeader($0)?.frame }),
                let header = AC3FrameHeader(try source.getBytes(at: scan.firstOffset, count: AC3FrameHeader.length)[...])
            else { return nil }
            first = header
            var properties = MediaProperties()
            properties.codec = header.codec
            properties.channels = header.channels
            properties.sampleRate = header.sampleRate
            return (properties, scan)
        }
        if first?.isEnhanced == true {
            parsed.fileType = .eac3
        } else if let nominal = first?.nominalBitrate, parsed.properties.bitrate != nil {
            parsed.properties.bitrate = nominal
        }
        return parsed
    }

    /// The scan of the stream in `start..<end` (for the planner's check of a cut stream).
    @Sendable static func scan(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> (
        MediaProperties, ElementaryStreamScanner.Scan
    )? {
        try ElementaryStreamScanner.scan(
            source, from: start, to: end, headerLength: AC3FrameHeader.length, syncByte: 0x0B,
            parse: { AC3FrameHeader($0)?.frame }
        ).map { (MediaProperties(), $0) }
    }

    /// Whether an AC-3 or E-AC-3 stream starts right at `offset` (three frames
    /// in a row, or fewer up to the end of the file).
    static func startsStream(in source: FileSource, at offset: Int64) throws -> Bool {
        try ElementaryStreamScanner.startsStream(
            in: source, at: offset, to: source.size, count: 3, headerLength: AC3FrameHeader.length,
            parse: { AC3FrameHeader($0)?.frame })
    }
}
