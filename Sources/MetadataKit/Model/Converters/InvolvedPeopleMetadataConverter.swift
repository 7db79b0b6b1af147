#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// People by role. ID3 keeps them as pairs of strings in one frame:
/// `TIPL` (involved people: role, name, …; ID3v2.4.0 frames §4.2.2), `TMCL`
/// (musicians: instrument, name, …) and ID3v2.3's `IPLS` (both, §4.4).
/// Picard's roles pick the fields: `arranger`, `engineer`, `producer`,
/// `DJ-mix` (``MetadataField/djMixer``) and `mix` (``MetadataField/mixer``);
/// ``MetadataField/performers`` are `TMCL`'s pairs and `IPLS` pairs of other
/// roles, shown "Name (instrument)" as Vorbis `PERFORMER` holds them.
///
/// Changing one role rewrites the frame with the other roles' pairs kept
/// (the field's keys share the frame). Other formats keep each field under
/// its own key (Vorbis `ARRANGER`, MP4 `----:com.apple.iTunes:PRODUCER`),
/// read and written as ``DefaultMetadataConverter`` does.
public struct InvolvedPeopleMetadataConverter: MetadataConverter {
    public init() {}

    /// The `TIPL`/`IPLS` role of each field (Picard's).
    public static let roles: [MetadataField: String] = [
        .arranger: "arranger", .engineer: "engineer", .producer: "producer", .djMixer: "DJ-mix", .mixer: "mix",
    ]

    /// The ID3 frames of pairs (v2.2 `IPL` too).
    static let pairFrames: Set<String> = ["TIPL", "TMCL", "IPLS", "IPL"]

    private static func pairs(_ item: MetadataItem) -> [(role: String, name: String)] {
        let strings = item.value.stringValues
        return stride(from: 0, to: strings.count - 1, by: 2).map { (strings[$0], strings[$0 + 1]) }
    }

    /// Whether the pair `role` belongs to `field` in frame `key`.
    private static func belongs(_ role: String, in key: String, to field: MetadataField) -> Bool {
        let known = roles.values.contains { role.equalsIgnoringCase(ascii: $0) }
        if field == .performers { return key == "TMCL" || !known }
        return key != "TMCL" && roles[field].map { role.equalsIgnoringCase(ascii: $0) } == true
    }

    /// "Name (role)", or the name alone for an empty role.
    private static func performer(_ pair: (role: String, name: String)) -> String {
        pair.role.isEmpty ? pair.name : "\(pair.name) (\(pair.role))"
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for (index, item) in items.enumerated() {
            guard item.keySpace == .id3, Self.pairFrames.contains(item.key) else {
                // One key per field: read as ``DefaultMetadataConverter`` does, the key given again included.
                if DefaultMetadataConverter().value(of: item, for: field) != nil {
                    return DefaultMetadataConverter().displayValue(for: field, from: Array(items[index...]))
                }
                continue
            }
            let matching = Self.pairs(item).filter { Self.belongs($0.role, in: item.key, to: field) && !$0.name.isEmpty }
            if let value = DisplayValue.list(field == .performers ? matching.map(Self.performer) : matching.map(\.name)) {
                return value
            }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard key.keySpace == .id3, Self.pairFrames.contains(key.key) else {
            return try DefaultMetadataConverter().items(for: field, value: value, key: key, existing: existing)
        }
        var pairs = existing.flatMap(Self.pairs).filter { !Self.belongs($0.role, in: key.key, to: field) }
        for name in value?.texts ?? [] {
            if field == .performers {
                // "Name (instrument)"; a name without one gets an empty instrument.
                if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
                    let role = name[name.index(after: open)..<name.index(before: name.endIndex)]
                    pairs.append((String(role), String(name[..<open].trimmingSpaces)))
                } else {
                    pairs.append(("", name))
                }
            } else if let role = Self.roles[field] {
                pairs.append((role, name))
            }
        }
        if pairs.isEmpty { return [] }
        return [
            MetadataItem(
                keySpace: key.keySpace, key: key.key, value: .strings(pairs.flatMap { [$0.role, $0.name] }),
                dataType: existing.first?.dataType ?? .utf8)
        ]
    }
}
