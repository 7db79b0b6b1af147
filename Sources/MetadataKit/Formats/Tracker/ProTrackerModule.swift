#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ProTracker-family MOD files with 31 instruments, recognised by the tag
/// at 1080 (15-instrument Soundtracker files have none and are not read).
///
/// Layout (big-endian): title 20 bytes; 31 instruments of 30 bytes (name
/// 22, length in words 2, finetune 1, volume 1, loop start 2, loop length
/// 2); song length (positions) at 950; restart at 951; the 128-entry order
/// table at 952; the tag at 1080; then the patterns (64 rows × channels ×
/// 4 bytes) and the sample data. The title and names fill their fields
/// with no terminating NUL.
enum ProTrackerModule {
    static let tagOffset: Int64 = 1080
    static let headerLength = 1084

    /// The channel count and the tracker TagLib names for the tag at 1080;
    /// nil for a tag no 31-instrument MOD has.
    static func kind(ofTag tag: [UInt8]) -> (channels: Int, tracker: String)? {
        guard tag.count == 4 else { return nil }
        let text = String(decoding: tag, as: UTF8.self)
        func digit(_ byte: UInt8) -> Int? { (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil }
        switch text {
        case "M.K.", "M!K!", "M&K!", "N.T.": return (4, "ProTracker")
        case "CD81", "OKTA": return (8, "Atari Oktalyzer")
        default: break
        }
        if text.hasPrefix("FLT") || text.hasPrefix("TDZ"), let channels = digit(tag[3]), channels > 0 {
            return (channels, "StarTrekker")
        }
        if text.hasSuffix("CHN"), let channels = digit(tag[0]), channels > 0 {
            return (channels, "StarTrekker")
        }
        if text.hasSuffix("CH") || text.hasSuffix("CN"), let tens = digit(tag[0]), let ones = digit(tag[1]), tens * 10 + ones > 0 {
            return (tens * 10 + ones, "TakeTracker")
        }
        return nil
    }

    static func recognizes(_ probe: FormatProbe) throws -> Bool {
        guard probe.source.size >= Int64(headerLength) else { return false }
        return kind(ofTag: try probe.source.getBytes(at: tagOffset, count: 4)) != nil
    }

    static func read(_ source: FileSource) throws -> TrackerModule {
        let header = try source.getAvailableBytes(at: 0, count: headerLength)
        guard header.count == headerLength, let kind = kind(ofTag: Array(header[1080..<1084])) else {
            throw MediaError(.truncated, "the MOD header (\(headerLength) bytes) is cut short", offset: Int64(header.count))
        }
        let names = (0..<31).map { index in
            TrackerTextField(offset: Int64(20 + 30 * index), size: 22, capacity: 22, what: "MOD instrument name \(index + 1)")
        }
        let orders = header[952..<1080]
        let properties = TrackerModuleProperties(
            trackerName: kind.tracker, trackerVersion: nil, lengthInPatterns: Int(header[950]),
            patternCount: Int(orders.max() ?? 0) + 1, instrumentCount: 31, sampleCount: 31)
        return TrackerModule(
            kind: "MOD", title: TrackerTextField(offset: 0, size: 20, capacity: 20, what: "the MOD title"), names: names, message: nil,
            channels: kind.channels, module: properties)
    }
}
