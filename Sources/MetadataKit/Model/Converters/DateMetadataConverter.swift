/// The year or date, shown as stored. A key space whose date field has a
/// syntax (ID3v2 and MP4 timestamps) or spreads a date over several items
/// reads and checks it through its ``KeySpaceCodec``; such codecs share
/// ``isTimestamp(_:)`` and ``leadingTimestamp(_:)``.
public struct DateMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            if let text = item.value.stringValues.first(where: { !$0.isEmpty }) ?? item.value.stringValue, !text.isEmpty {
                return .text(text)
            }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        return try DefaultMetadataConverter().textItems(for: field, value: value, key: key, existing: existing)
    }

    /// The longest prefix of `text` that is a timestamp (``isTimestamp(_:)``)
    /// followed by no further digit: "2004" of "2004 (remaster)"; nil for
    /// "Oct 3, 1995".
    public static func leadingTimestamp(_ text: String) -> String? {
        let characters = Array(text)
        for length in [19, 16, 13, 10, 7, 4] where length <= characters.count {
            if length < characters.count, characters[length].isASCII, characters[length].isNumber { continue }
            let prefix = String(characters[..<length])
            if isTimestamp(prefix) { return prefix }
        }
        return nil
    }

    /// The forms ``isTimestamp(_:)`` accepts, for messages.
    public static let acceptedForms =
        "yyyy, yyyy-MM, yyyy-MM-dd, yyyy-MM-ddTHH, yyyy-MM-ddTHH:mm or yyyy-MM-ddTHH:mm:ss (e.g. 2024, 2024-05-01)"

    /// Whether `text` is one of ``acceptedForms``: a subset of ISO 8601
    /// (the timestamps of ID3v2.4 §4.2.5), also with a trailing `Z` after a
    /// time, as iTunes writes it.
    public static func isTimestamp(_ text: String) -> Bool {
        // On the UTF-8 bytes: every character of a timestamp is ASCII, and
        // this runs for every date read.
        let utf8 = text.utf8
        var count = utf8.count
        if count > 10, utf8.last == UInt8(ascii: "Z") { count -= 1 }
        guard count == 4 || count == 7 || count == 10 || count == 13 || count == 16 || count == 19 else { return false }
        let pattern: StaticString = "dddd-dd-ddTdd:dd:dd"
        return pattern.withUTF8Buffer { pattern in
            for (index, byte) in utf8.prefix(count).enumerated() {
                let expected = pattern[index]
                if expected == UInt8(ascii: "d") ? !(0x30...0x39).contains(byte) : byte != expected { return false }
            }
            return true
        }
    }
}
