#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Flags: compilation (ID3 `TCMP`, MP4 `cpil`, Vorbis `COMPILATION`),
/// gapless playback (MP4 `pgap`), podcast (ID3 `PCST`, MP4 `pcst`) and
/// show-movement (`TXXX:SHOWMOVEMENT`, MP4 `shwm`, Vorbis `SHOWMOVEMENT`).
///
/// Read from an integer (MP4 atoms, ID3 `PCST`'s counter) or the texts
/// "1"/"0", "true"/"false", "yes"/"no"; shown as ``DisplayValue/integer(_:)``
/// 1 or 0 (``Metadata/compilation`` gives the `Bool`). Written as the
/// one-byte integer iTunes writes in MP4 and as "1"/"0" elsewhere (`TCMP`
/// "1" as iTunes and Picard write it; `COMPILATION=1` as Picard does).
public struct BooleanMetadataConverter: MetadataConverter {
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            let flag: Bool?
            switch item.value {
            case .integer(let number): flag = number != 0
            case .data(let bytes) where item.key == "PCST" && bytes.count == 4: flag = bytes.contains { $0 != 0 }
            default: flag = item.value.stringValue.flatMap { DisplayValue.text($0).boolean }
            }
            if let flag { return .integer(flag ? 1 : 0) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        guard let flag = value.boolean else {
            throw MediaError(.invalidValue, "\(field.rawValue) is a flag: 1 or 0, true or false, not '\(value.text ?? "")'")
        }
        if key.keySpace == .iTunes {
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .integer(flag ? 1 : 0), dataType: .signedInteger)]
        }
        if key.keySpace == .id3, key.key == "PCST" {
            // iTunes' podcast frame: a 32-bit counter, non-zero for a podcast.
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .data(Data([0, 0, 0, flag ? 1 : 0])), dataType: .binary)]
        }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(flag ? "1" : "0"), dataType: .utf8)]
    }
}
