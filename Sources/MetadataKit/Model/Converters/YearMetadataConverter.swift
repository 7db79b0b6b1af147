/// The year or date. ID3v2.4 keeps it whole in `TDRC`; ID3v2.3 splits it into
/// `TYER` (yyyy), `TDAT` (DDMM) and `TIME` (HHMM) (ID3v2.3.0 §4.2.1), which
/// are joined back into "yyyy-MM-dd[THH:mm]" here. `TDAT`/`TIME` alone are no
/// year. An ID3v1 year that is not digits (a damaged or garbled tag) is no
/// year either, and an ID3v2 `TDRC`/`TYER` that is not a timestamp gives its
/// leading timestamp ("2004" of "2004 (remaster)") or none ("Oct 3, 1995"),
/// as TagLib (a number) and mutagen (a timestamp) read them; the raw items
/// stay. Other formats keep the date as one string, shown as stored.
///
/// Where the date field has a syntax (ID3v2.4 `TDRC`, ID3v2.3 `TYER`,
/// MP4 `©day`: ISO 8601 timestamps), a value that isn't one is refused when
/// written (`invalidValue`, naming the accepted forms); free-text date fields
/// (Vorbis `DATE`, RIFF `ICRD`, …) take any text.
public struct YearMetadataConverter: MetadataConverter {
    public init() {}

    private static let dayKeys: Set<String> = ["TDAT", "TDA"]
    private static let timeKeys: Set<String> = ["TIME", "TIM"]

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items where item.keySpace != .id3 || !(Self.dayKeys.contains(item.key) || Self.timeKeys.contains(item.key)) {
            guard var text = item.value.stringValues.first(where: { !$0.isEmpty }) ?? item.value.stringValue, !text.isEmpty else {
                continue
            }
            if item.keySpace == .id3v1, !text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) { continue }
            if item.keySpace == .id3, Self.id3YearKeys.contains(item.key), !Self.isTimestamp(text) {
                // ID3v2.4 §4.2.5: a timestamp. Its leading timestamp, as mutagen and TagLib read it; none: no year.
                guard let prefix = Self.leadingTimestamp(text) else { continue }
                text = prefix
            }
            if item.keySpace == .id3, item.key == "TYER" || item.key == "TYE", text.count == 4 {
                func digits(_ keys: Set<String>) -> [Character]? {
                    guard let value = items.first(where: { keys.contains($0.key) })?.value.stringValue,
                        value.count == 4, value.allSatisfy(\.isNumber)
                    else { return nil }
                    return Array(value)
                }
                if let day = digits(Self.dayKeys) {
                    text += "-\(day[2])\(day[3])-\(day[0])\(day[1])"
                    if let time = digits(Self.timeKeys) { text += "T\(time[0])\(time[1]):\(time[2])\(time[3])" }
                }
            }
            return .text(text)
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        if let text = value?.text, Self.timestampKeys.contains(key), !Self.isTimestamp(text) {
            throw MediaError(.invalidValue, "year '\(text)' is not a date \(key) can hold; use \(Self.acceptedForms)")
        }
        return try DefaultMetadataConverter().items(for: field, value: value, key: key, existing: existing)
    }

    /// The date keys whose value is an ISO 8601 timestamp (ID3v2.4 §4.2.5
    /// `TDRC`; ID3v2.3 `TYER` is its year, which v2.3 saves take from it;
    /// MP4 `©day`).
    public static let timestampKeys: Set<MetadataKeyMap.RawKey> = [
        .init(.id3, "TDRC"), .init(.id3, "TYER"), .init(.iTunes, "©day"), .init(.quickTimeUserData, "©day"),
    ]

    /// The ID3 frames the year is read from whose text is a timestamp.
    private static let id3YearKeys: Set<String> = ["TDRC", "TYER", "TYE"]

    /// The longest prefix of `text` that is a timestamp (``isTimestamp(_:)``)
    /// followed by no further digit: "2004" of "2004 (remaster)"; nil for
    /// "Oct 3, 1995".
    static func leadingTimestamp(_ text: String) -> String? {
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

    /// Whether `text` is one of ``acceptedForms``: the timestamps of
    /// ID3v2.4 (§4.2.5, a subset of ISO 8601), which MP4 `©day` takes too
    /// (there also with a trailing `Z`, as iTunes writes it).
    public static func isTimestamp(_ text: String) -> Bool {
        var text = Substring(text)
        if text.count > 10, text.hasSuffix("Z") { text = text.dropLast() }
        let pattern = Array("dddd-dd-ddTdd:dd:dd")
        guard [4, 7, 10, 13, 16, 19].contains(text.count) else { return false }
        for (character, expected) in zip(text, pattern) {
            if expected == "d" ? !("0"..."9").contains(character) : character != expected { return false }
        }
        return true
    }
}
