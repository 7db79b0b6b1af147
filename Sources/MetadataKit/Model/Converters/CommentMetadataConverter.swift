#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Comments: among several, the first non-empty one wins (several strings
/// in one item are joined with "; "). A key space whose comment items
/// include machine-written ones (ID3 `COMM` frames with a description) or
/// that gives a new comment a language says so through its ``KeySpaceCodec``.
public struct CommentMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            // Joined by hand: the standard library's generic `joined(separator:)`
            // looks its element type up by name on first use (165,000 instructions).
            var text = ""
            for value in item.value.stringValues where !value.isEmpty {
                if !text.isEmpty { text += "; " }
                text += value
            }
            if !text.isEmpty { return .text(text) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let text = value?.text else { return [] }
        if let special = try KeySpaceCodecs.standard.items(for: field, value: .text(text), key: key, existing: existing) {
            return special
        }
        return [
            MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8, language: existing.first?.language)
        ]
    }
}

/// Artwork: every picture item, in file order. A key space that limits
/// what its pictures hold (no picture type; one picture per description)
/// checks or adjusts them through its ``KeySpaceCodec``.
public struct ArtworkMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        let pictures = items.compactMap { item -> Artwork? in
            if case .picture(let artwork) = item.value { return artwork }
            return nil
        }
        return pictures.isEmpty ? nil : .artwork(pictures)
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        guard let pictures = value.artwork else {
            throw MediaError(.invalidValue, "artwork needs pictures")
        }
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        return Self.items(for: pictures, key: key)
    }

    /// One picture item per picture, its data type from its MIME type.
    public static func items(for pictures: [Artwork], key: MetadataKeyMap.RawKey) -> [MetadataItem] {
        pictures.map { picture in
            let type: MetadataDataType =
                switch picture.mimeType {
                case "image/jpeg": .jpeg
                case "image/png": .png
                case "image/bmp": .bmp
                case "image/gif": .gif
                default: .binary
                }
            return MetadataItem(keySpace: key.keySpace, key: key.key, value: .picture(picture), dataType: type)
        }
    }
}
