#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Track and disc number and count: ID3 `TRCK`/`TPOS` text "n/N", MP4
/// `trkn`/`disk` number pairs, ID3v1.1's track byte.
public struct PositionMetadataConverter: MetadataConverter {
    public init() {}

    /// Parses "n", "n/N", " n / N " (and "/N"); nil when neither part is a
    /// number. A part that starts with digits gives its leading number
    /// ("90000A" → 90000, "3 of 12" → 3), as TagLib and mutagen read them;
    /// the stored text is not changed.
    public static func parse(_ text: String) -> (number: Int?, total: Int?)? {
        var utf8 = text
        if let parsed = utf8.withUTF8(parseASCII) { return parsed.number == nil && parsed.total == nil ? nil : parsed }
        return parseCharacters(text)
    }

    /// ``parse(_:)`` character by character (the reference the UTF-8 fast path
    /// must agree with; tests compare them).
    static func parseCharacters(_ text: String) -> (number: Int?, total: Int?)? {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ part: Substring?) -> Int? {
            guard let part else { return nil }
            let digits = part.trimmingSpaces.prefix { $0.isASCIIDigit }
            return Int(digits).flatMap { $0 >= 0 ? $0 : nil }
        }
        let result = (number(parts.first), parts.count > 1 ? number(parts[1]) : nil)
        return result.0 == nil && result.1 == nil ? nil : result
    }

    /// ``parse(_:)`` on the UTF-8 bytes, for text whose numbers are plain
    /// ASCII digits (every byte after a number's digits ASCII too): nil when it
    /// is not, and the characters must be looked at (a digit followed by a
    /// combining mark is not a digit). Runs for every track and disc number read.
    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> (number: Int?, total: Int?)? {
        let slash = bytes.firstIndex(of: UInt8(ascii: "/"))
        let number = leadingNumber(bytes, from: 0, to: slash ?? bytes.count)
        guard number.plain else { return nil }
        guard let slash else { return (number.value, nil) }
        let total = leadingNumber(bytes, from: slash + 1, to: bytes.count)
        return total.plain ? (number.value, total.value) : nil
    }

    /// The number the digits after any spaces and tabs in `start..<end` spell
    /// (nil for no digits or one too large for `Int`, as `Int(_:)` gives);
    /// `plain` is false when a byte after the digits is not ASCII.
    private static func leadingNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (value: Int?, plain: Bool) {
        var index = start
        while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let digitsStart = index
        var value = 0
        var overflow = false
        while index < end, (0x30...0x39).contains(bytes[index]) {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - 0x30))
            overflow = overflow || overflow1 || overflow2
            value = sum
            index += 1
        }
        return (index == digitsStart || overflow ? nil : value, index == end || bytes[index] < 0x80)
    }

    /// Vorbis comment fields that hold only a count (see ``MetadataKeyMap/vorbisKeys``).
    static let vorbisTotalKeys: Set<String> = ["TRACKTOTAL", "TOTALTRACKS", "DISCTOTAL", "TOTALDISCS"]

    /// Whether the item under `key` holds only a count: Vorbis `TRACKTOTAL`
    /// and the like, Matroska `TOTAL_PARTS` (RFC 9559 tagging: the number of
    /// parts at the level below, so `50/TOTAL_PARTS` counts an album's tracks
    /// and `60/TOTAL_PARTS` a set's discs).
    static func holdsCountOnly(_ keySpace: MetadataKeySpace, _ key: String) -> Bool {
        switch keySpace {
        case .vorbis: return vorbisTotalKeys.contains(key)
        case .matroska: return key.hasSuffix("TOTAL_PARTS")
        default: return false
        }
    }

    private static func pair(of item: MetadataItem) -> (number: Int?, total: Int?)? {
        if holdsCountOnly(item.keySpace, item.key) {
            return item.value.stringValue.flatMap(parse).flatMap { $0.number.map { (nil, $0) } }
        }
        switch item.value {
        case .numberPair(let number, let total):
            return (number == 0 ? nil : number, total == 0 ? nil : total)
        case .integer(let number):
            return number > 0 && number <= Int64(Int32.max) ? (Int(number), nil) : nil
        default:
            return item.value.stringValue.flatMap(parse)
        }
    }

    private static func isCount(_ field: MetadataField) -> Bool {
        field == .trackCount || field == .discCount
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            guard let pair = Self.pair(of: item) else { continue }
            if let value = Self.isCount(field) ? pair.total : pair.number { return .integer(value) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        let current = existing.lazy.compactMap(Self.pair).first ?? (nil, nil)
        var number = current.number
        var total = current.total
        if let value, value.integer == nil {
            throw MediaError(.invalidValue, "\(field.rawValue) must be a whole number, not '\(value.text ?? "")'")
        }
        let newValue = value?.integer
        if let newValue, newValue < 0 {
            throw MediaError(.invalidValue, "\(field.rawValue) must not be negative")
        }
        if Self.isCount(field) { total = newValue } else { number = newValue }
        if number == nil && total == nil { return [] }
        switch key.keySpace {
        case .iTunes:
            guard (number ?? 0) <= 0xFFFF, (total ?? 0) <= 0xFFFF else {
                throw MediaError(.invalidValue, "\(field.rawValue) must be at most 65535 in MP4 '\(key.key)'")
            }
            return [
                MetadataItem(
                    keySpace: key.keySpace, key: key.key,
                    value: .numberPair(number: number ?? 0, total: total), dataType: .numberPair)
            ]
        case .vorbis:
            return Self.vorbisItems(
                field: field, number: number, total: total, key: key,
                inlineTotal: current.total != nil && !Self.vorbisTotalKeys.contains(key.key))
        case .matroska where Self.holdsCountOnly(key.keySpace, key.key):
            return total.map { [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String($0)), dataType: .utf8)] } ?? []
        case .id3v1:
            guard let number, number <= 255 else {
                throw MediaError(.invalidValue, "ID3v1 holds a track number from 1 to 255")
            }
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .integer(Int64(number)), dataType: .unsignedInteger)]
        default:
            let text = total.map { "\(number.map(String.init) ?? "")/\($0)" } ?? number.map(String.init) ?? ""
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8)]
        }
    }

    /// Vorbis comments keep the number and the count apart (`TRACKNUMBER`,
    /// `TRACKTOTAL`), except that a changed number keeps an "n/N" value as
    /// "n/N" (`inlineTotal`). A count goes to the total key the file has
    /// (`key` when it is one), else `TRACKTOTAL`/`DISCTOTAL`.
    private static func vorbisItems(
        field: MetadataField, number: Int?, total: Int?, key: MetadataKeyMap.RawKey,
        inlineTotal: Bool
    ) -> [MetadataItem] {
        let isTrack = field == .trackNumber || field == .trackCount
        let numberKey = isTrack ? "TRACKNUMBER" : "DISCNUMBER"
        let totalKey = vorbisTotalKeys.contains(key.key) ? key.key : isTrack ? "TRACKTOTAL" : "DISCTOTAL"
        func item(_ key: String, _ text: String) -> MetadataItem {
            MetadataItem(keySpace: .vorbis, key: key, value: .string(text), dataType: .utf8)
        }
        if !isCount(field), inlineTotal, let number, let total {
            return [item(numberKey, "\(number)/\(total)")]
        }
        return (number.map { [item(numberKey, String($0))] } ?? []) + (total.map { [item(totalKey, String($0))] } ?? [])
    }
}
