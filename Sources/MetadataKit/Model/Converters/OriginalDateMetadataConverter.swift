#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The original release date, as stored. ID3v2.3 has only a year for it
/// (`TORY`, ID3v2.3.0 §4.2.1); a v2.3 save keeps a fuller `TDOR` date in
/// `TXXX:ORIGINALDATE` too (see `ID3v2FrameMapping`), and a file converted
/// back to v2.4 then holds `TDOR` "1987" beside `TXXX:ORIGINALDATE`
/// "1987-02-03". The fuller date of the same year wins, so the value
/// survives the round trip; everything else is read and written as
/// ``DefaultMetadataConverter`` does (a new date goes to `TDOR`).
public struct OriginalDateMetadataConverter: MetadataConverter {
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        let value = DefaultMetadataConverter().displayValue(for: field, from: items)
        guard let shown = value?.text,
            let fuller = items.first(where: { $0.keySpace == .id3 && $0.key == "TXXX:ORIGINALDATE" })?.value.stringValue,
            fuller.count > shown.count, fuller.hasPrefix(shown)
        else { return value }
        return .text(fuller)
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        try DefaultMetadataConverter().items(for: field, value: value, key: key, existing: existing)
    }
}
