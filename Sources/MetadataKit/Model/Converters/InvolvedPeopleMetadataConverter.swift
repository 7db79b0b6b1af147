#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// People by role: arranger, engineer, producer, DJ mixer, mixer and
/// performers, each under a key of its own (Vorbis `ARRANGER`, MP4
/// `----:com.apple.iTunes:PRODUCER`), read and written as
/// ``DefaultMetadataConverter`` does. A key space that keeps several roles
/// as pairs in one item (ID3 `TIPL`, `TMCL`, `IPLS`) reads and rewrites
/// them through its ``KeySpaceCodec``, with the roles of ``roles``.
public struct InvolvedPeopleMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    /// The role of each field in lists of (role, name) pairs (Picard's).
    public static let roles: [MetadataField: String] = [
        .arranger: "arranger", .engineer: "engineer", .producer: "producer", .djMixer: "DJ-mix", .mixer: "mix",
    ]

    /// Whether `field` is a key of ``roles``: a switch, so that a reader
    /// asking it for every item hashes nothing (a test checks the two agree).
    static func isRole(_ field: MetadataField) -> Bool {
        switch field {
        case .arranger, .engineer, .producer, .djMixer, .mixer: return true
        default: return false
        }
    }

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
