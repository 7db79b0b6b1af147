#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The movement number and count. ID3 keeps both in one `MVIN` frame as
/// "n/N" (iTunes' text frame, in v2.3 and v2.4), so a change of one keeps
/// the other there; MP4 keeps them apart in the integer atoms `©mvi` and
/// `©mvc`, Vorbis comments in `MOVEMENT` and `MOVEMENTTOTAL`.
public struct MovementMetadataConverter: MetadataConverter {
    public init() {}

    /// The number and count an item holds: "n/N" in `MVIN`, else one number
    /// (the field's own).
    private static func pair(_ item: MetadataItem, field: MetadataField) -> (number: Int?, total: Int?)? {
        if case .integer(let number) = item.value {
            guard (0...Int64(Int32.max)).contains(number) else { return nil }
            return field == .movementCount ? (nil, Int(number)) : (Int(number), nil)
        }
        guard let text = item.value.stringValue, let pair = PositionMetadataConverter.parse(text) else { return nil }
        if item.keySpace == .id3 { return pair }
        return field == .movementCount ? (nil, pair.number) : (pair.number, nil)
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            guard let pair = Self.pair(item, field: field) else { continue }
            if let value = field == .movementCount ? pair.total : pair.number { return .integer(value) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        if let value, value.integer == nil {
            throw MediaError(.invalidValue, "\(field.rawValue) must be a whole number, not '\(value.text ?? "")'")
        }
        let newValue = value?.integer
        if let newValue, !(0...0xFFFF).contains(newValue) {
            throw MediaError(.invalidValue, "\(field.rawValue) must be a whole number from 0 to 65535")
        }
        if key.keySpace == .id3 {
            let current = existing.lazy.compactMap { Self.pair($0, field: field) }.first ?? (nil, nil)
            let number = field == .movementCount ? current.number : newValue
            let total = field == .movementCount ? newValue : current.total
            if number == nil && total == nil { return [] }
            let text = total.map { "\(number.map(String.init) ?? "")/\($0)" } ?? number.map(String.init) ?? ""
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .latin1)]
        }
        guard let newValue else { return [] }
        if key.keySpace == .iTunes {
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .integer(Int64(newValue)), dataType: .signedInteger)]
        }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String(newValue)), dataType: .utf8)]
    }
}
