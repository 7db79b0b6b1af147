/// The year or date. ID3v2.4 keeps it whole in `TDRC`; ID3v2.3 splits it into
/// `TYER` (yyyy), `TDAT` (DDMM) and `TIME` (HHMM) (ID3v2.3.0 §4.2.1), which
/// are joined back into "yyyy-MM-dd[THH:mm]" here. `TDAT`/`TIME` alone are no
/// year. Other formats keep the date as one string, shown as stored.
public struct YearMetadataConverter: MetadataConverter {
    public init() {}

    private static let dayKeys: Set<String> = ["TDAT", "TDA"]
    private static let timeKeys: Set<String> = ["TIME", "TIM"]

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items where item.keySpace != .id3 || !(Self.dayKeys.contains(item.key) || Self.timeKeys.contains(item.key)) {
            guard var text = item.value.stringValues.first(where: { !$0.isEmpty }) ?? item.value.stringValue, !text.isEmpty else {
                continue
            }
            if item.keySpace == .id3, item.key == "TYER" || item.key == "TYE", text.count == 4 {
                func digits(_ keys: Set<String>) -> [Character]? {
                    guard let value = items.first(where: { keys.contains($0.key) })?.value.stringValue,
                          value.count == 4, value.allSatisfy(\.isNumber) else { return nil }
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

    public func items(for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
                      existing: [MetadataItem]) throws -> [MetadataItem] {
        try DefaultMetadataConverter().items(for: field, value: value, key: key, existing: existing)
    }
}
