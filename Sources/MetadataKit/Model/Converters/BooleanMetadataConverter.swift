#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Flags: compilation, gapless playback, podcast and show-movement.
///
/// Read from an integer or the texts "1"/"0", "true"/"false", "yes"/"no";
/// shown as ``DisplayValue/integer(_:)`` 1 or 0 (``Metadata/isCompilation``
/// gives the `Bool`). Written as "1"/"0" (as iTunes and Picard write a
/// compilation flag in text tags); a key space that stores flags otherwise
/// (an integer atom, a counter frame) says how through its ``KeySpaceCodec``.
public struct BooleanMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            let flag: Bool? =
                switch item.value {
                case .integer(let number): number != 0
                default: item.value.stringValue.flatMap { DisplayValue.text($0).boolean }
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
        if let special = try KeySpaceCodecs.standard.items(for: field, value: .integer(flag ? 1 : 0), key: key, existing: existing) {
            return special
        }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(flag ? "1" : "0"), dataType: .utf8)]
    }
}
