#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ReplayGain gains and peaks, as the stored text ("-6.50 dB",
/// "0.988159"): text keys (ID3 `TXXX:REPLAYGAIN_*`, Vorbis, MP4, APE) are
/// read and written as ``DefaultMetadataConverter`` does. A key space that
/// keeps them in a binary form as well (ID3v2.4 `RVA2`, read as
/// ``MetadataKeyMap/fallbackKeys`` and kept in step as
/// ``MetadataKeyMap/syncedFallbackKeys``) reads and updates it through its
/// ``KeySpaceCodec``.
public struct ReplayGainMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    /// Whether `field` is a gain (else a peak).
    public static func isGain(_ field: MetadataField) -> Bool {
        field == .replayGainTrackGain || field == .replayGainAlbumGain
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            if let value = DefaultMetadataConverter().displayValue(for: field, from: [item]) { return value }
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
}
