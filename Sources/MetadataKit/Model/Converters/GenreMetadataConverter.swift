#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Genre: a name, shown as stored ("NEW AGE" stays "NEW AGE"). Several
/// genres are a list (``DisplayValue/texts(_:)``; ``Metadata/genre`` names
/// them joined by "; "), written as several strings. A key space that
/// stores a genre as a number of the standard list, or parses references
/// in its text (ID3 `TCON`, ``parseID3(_:)``), does so through its
/// ``KeySpaceCodec``.
public struct GenreMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    /// A genre named as stored ("NEW AGE" stays "NEW AGE"), with the index
    /// of the listed genre it spells, if any.
    public static func stored(_ name: String) -> Genre {
        var genre = Genre(name: name)
        genre.name = name
        return genre
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            if let value = Self.value(of: item.value.stringValues.filter { !$0.isEmpty }.map(Self.stored)) { return value }
        }
        return nil
    }

    /// The value of the genres one item holds: one genre, a list, or none.
    public static func value(of genres: [Genre]) -> DisplayValue? {
        if genres.count == 1 { return .genre(genres[0]) }
        if genres.count > 1 { return .texts(genres.map(\.name)) }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        if case .texts(let names) = value {
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .strings(names), dataType: .utf8)]
        }
        guard let genre = value.genre else { throw MediaError(.invalidValue, "genre needs a name") }
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(genre.name), dataType: .utf8)]
    }
}
