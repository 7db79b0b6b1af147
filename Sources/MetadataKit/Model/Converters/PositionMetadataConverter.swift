#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Track and disc number and count, as "n/N" text (ID3 `TRCK`/`TPOS`, APE
/// `Track`), a number, or a number pair; key spaces that keep them
/// otherwise say how through their ``KeySpaceCodec``. Writing one keeps the
/// other part the key holds.
public struct PositionMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
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

    /// The number and the count `item` holds as `field` and its partner
    /// read them (the track number and count, or the disc's): what its key
    /// space's codec reads (a Vorbis `TRACKTOTAL` holds only a count), else
    /// a number pair, a number, or "n/N" text.
    /// `items` are the items `item` is read among (``KeySpaceCodec/reading(_:from:among:)``).
    static func pair(of item: MetadataItem, field: MetadataField, among items: [MetadataItem]) -> (number: Int?, total: Int?)? {
        let numberField: MetadataField = isCount(field) ? (field == .trackCount ? .trackNumber : .discNumber) : field
        let countField: MetadataField = isCount(field) ? field : (field == .trackNumber ? .trackCount : .discCount)
        // Most key spaces have no codec, or one that reads a pair as most tags store it.
        guard let codec = KeySpaceCodecs.standard.codec(for: item.keySpace) else { return standardPair(of: item) }
        let number = codec.reading(numberField, from: item, among: items)
        let count = codec.reading(countField, from: item, among: items)
        if number != .standard || count != .standard {
            let pair = (half(number, of: item, field: numberField), half(count, of: item, field: countField))
            return pair.0 == nil && pair.1 == nil ? nil : pair
        }
        return standardPair(of: item)
    }

    /// `field`'s half (the number or the count) of `item` as its codec's
    /// `reading` gives it.
    private static func half(_ reading: FieldReading, of item: MetadataItem, field: MetadataField) -> Int? {
        switch reading {
        case .standard: return standardPair(of: item).flatMap { isCount(field) ? $0.total : $0.number }
        case .none: return nil
        case .value(let value): return value.integer
        }
    }

    /// The pair an item holds as most tags store it.
    private static func standardPair(of item: MetadataItem) -> (number: Int?, total: Int?)? {
        switch item.value {
        case .numberPair(let number, let total):
            return (number == 0 ? nil : number, total == 0 ? nil : total)
        case .integer(let number):
            return number > 0 && number <= Int64(Int32.max) ? (Int(number), nil) : nil
        default:
            return item.value.stringValue.flatMap(parse)
        }
    }

    /// The number and count a write of `value` to `field` leaves: the
    /// other part kept from the first of `existing` that holds a pair.
    /// Throws `invalidValue` for a value that is no whole number, or a negative one.
    public static func position(
        setting field: MetadataField, to value: DisplayValue?, existing: [MetadataItem]
    ) throws -> (number: Int?, total: Int?, current: (number: Int?, total: Int?)) {
        let current = existing.lazy.compactMap { pair(of: $0, field: field, among: existing) }.first ?? (nil, nil)
        var number = current.number
        var total = current.total
        if let value, value.integer == nil {
            throw MediaError(.invalidValue, "\(field.rawValue) must be a whole number, not '\(value.text ?? "")'")
        }
        let newValue = value?.integer
        if let newValue, newValue < 0 {
            throw MediaError(.invalidValue, "\(field.rawValue) must not be negative")
        }
        if isCount(field) { total = newValue } else { number = newValue }
        return (number, total, current)
    }

    static func isCount(_ field: MetadataField) -> Bool {
        field == .trackCount || field == .discCount
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            if let value = Self.value(of: item, field: field, among: items) { return .integer(value) }
        }
        return nil
    }

    /// `field`'s half of ``pair(of:field:among:)`` (the number or the count),
    /// asking the key space's codec for that half only; `items` as for
    /// ``pair(of:field:among:)`` (passed on, not made: this runs for every
    /// track and disc field read).
    static func value(of item: MetadataItem, field: MetadataField, among items: [MetadataItem]) -> Int? {
        let reading = KeySpaceCodecs.standard.codec(for: item.keySpace)?.reading(field, from: item, among: items) ?? .standard
        return half(reading, of: item, field: field)
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        let (number, total, _) = try Self.position(setting: field, to: value, existing: existing)
        if number == nil && total == nil { return [] }
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        let text = total.map { "\(number.map(String.init) ?? "")/\($0)" } ?? number.map(String.init) ?? ""
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8)]
    }
}
