#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How Matroska tags keep counts: `TOTAL_PARTS` (RFC 9559 tagging) is the
/// number of parts at the level below, so `50/TOTAL_PARTS` counts an
/// album's tracks and `60/TOTAL_PARTS` a set's discs; it holds no number.
/// The Segment title (`Info/Title`, RFC 9559 §5.1.2.13) is one string.
struct MatroskaFieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .matroska }

    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        item.key.hasSuffix("TOTAL_PARTS") ? VorbisFieldCodec.countReading(field, from: item) : .standard
    }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        guard [.trackNumber, .trackCount, .discNumber, .discCount].contains(field), key.hasSuffix("TOTAL_PARTS") else { return nil }
        let (_, total, _) = try PositionMetadataConverter.position(setting: field, to: value, existing: existing)
        return total.map { [MetadataItem(keySpace: keySpace, key: key, value: .string(String($0)), dataType: .utf8)] } ?? []
    }

    var singleValueKeys: Set<String> { ["Info/Title"] }
}
