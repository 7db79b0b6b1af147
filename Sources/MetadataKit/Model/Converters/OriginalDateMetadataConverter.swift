#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The original release date, as stored: read and written as
/// ``DefaultMetadataConverter`` does, except where a key space keeps a
/// fuller date beside a year-only one (ID3v2.3 `TORY` with
/// `TXXX:ORIGINALDATE`) and says so through its ``KeySpaceCodec``.
public struct OriginalDateMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        DefaultMetadataConverter().displayValueAskingCodecs(for: field, from: items)
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
