#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rating, shown from 0 to 100 while the raw item keeps what the file
/// stores:
/// - ID3 `POPM:<e-mail>` (ID3v2.4.0 frames §4.17): a byte 0–255, scaled
///   (`round(raw × 100 / 255)`; written back as `round(value × 255 / 100)`,
///   so 0–100 survives a round trip). The e-mail names the player whose
///   rating it is; the key map lists the common ones (Windows Media Player,
///   MusicBrainz Picard, MediaMonkey, foobar2000, Winamp).
/// - MP4 `rate` (MediaMonkey, Mp3tag) and Vorbis `RATING`: a number 0–100
///   as text; a fraction up to 1.0 ("0.8") is read as a share of 100.
public struct RatingMetadataConverter: MetadataConverter {
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            if item.keySpace == .id3, case .integer(let raw) = item.value, (0...255).contains(raw) {
                return .integer(Int((Double(raw) * 100 / 255).rounded()))
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
        if key.keySpace == .id3 {
            let raw = Int64((Double(rating) * 255 / 100).rounded())
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .integer(raw), dataType: .unsignedInteger)]
        }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(String(rating)), dataType: .utf8)]
    }
}
