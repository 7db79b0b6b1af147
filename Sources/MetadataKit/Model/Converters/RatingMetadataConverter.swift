#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rating, shown from 0 to 100 while the raw item keeps what the file
/// stores: a number 0–100 as text (MP4 `rate` as MediaMonkey and Mp3tag
/// write it, Vorbis `RATING`); a fraction up to 1.0 ("0.8") is read as a
/// share of 100. A key space with a scale of its own (ID3 `POPM`'s byte)
/// converts through its ``KeySpaceCodec``.
public struct RatingMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            let number: Double?
            switch item.value {
            case .integer(let value): number = Double(value)
            case .double(let value): number = value
            default: number = item.value.stringValue.flatMap { Double(String($0.trimmingSpaces)) }
            }
            guard let number, number.isFinite, (0...100).contains(number) else { continue }
            let scaled = number <= 1 && number != number.rounded() ? number * 100 : number
            return .integer(Int(scaled.rounded()))
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        guard let rating = value.integer, (0...100).contains(rating) else {
            throw MediaError(.invalidValue, "rating must be a whole number from 0 to 100, not '\(value.text ?? "")'")
        }
        if let special = try KeySpaceCodecs.standard.items(for: field, value: .integer(rating), key: key, existing: existing) {
            return special
        }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String(rating)), dataType: .utf8)]
    }
}
