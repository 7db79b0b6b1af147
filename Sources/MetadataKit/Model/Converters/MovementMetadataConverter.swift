#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The movement number and count, each a number of its own (Vorbis
/// `MOVEMENT` and `MOVEMENTTOTAL`, MP4 `©mvi` and `©mvc`). A key space that
/// keeps both in one item (ID3 `MVIN` "n/N") or as integers says how
/// through its ``KeySpaceCodec``.
public struct MovementMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    /// The number `item` holds as `field`, as most tags store it.
    private static func number(_ item: MetadataItem) -> Int? {
        if case .integer(let number) = item.value {
            return (0...Int64(Int32.max)).contains(number) ? Int(number) : nil
        }
        return item.value.stringValue.flatMap(PositionMetadataConverter.parse)?.number
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            if let number = Self.number(item) { return .integer(number) }
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
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        guard let newValue else { return [] }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String(newValue)), dataType: .utf8)]
    }
}
