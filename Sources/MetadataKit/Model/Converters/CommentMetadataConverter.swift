#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Comments. ID3v2 may hold many `COMM` frames, keyed by description and
/// language; the file's comment is the one with an empty description (the
/// key map only offers those, so `iTunNORM`, `iTunSMPB` and other
/// machine-written comments are never shown); a `TXXX:comment` (ffmpeg's)
/// comes after them. Among several, the first non-empty one wins.
public struct CommentMetadataConverter: MetadataConverter {
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items where item.key == "COMM" || item.key == "COM" || item.key.hasPrefix("TXXX:") || item.keySpace != .id3 {
            let text = item.value.stringValues.filter { !$0.isEmpty }.joined(separator: "; ")
            if !text.isEmpty { return .text(text) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let text = value?.text else { return [] }
        let language = existing.first?.language ?? (key.keySpace == .id3 ? "eng" : nil)
        return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8, language: language)]
    }
}

/// Artwork: every picture item (ID3 `APIC`/`PIC`, MP4 `covr` data atoms), in file order.
/// Pictures written to ID3v2 get unique descriptions (see ``items(for:value:key:existing:)``).
public struct ArtworkMetadataConverter: MetadataConverter {
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
        // MP4 `covr` holds no picture type: every reader takes its pictures for covers.
        if key.keySpace == .iTunes, let typed = pictures.first(where: { ![.frontCover, .other].contains($0.pictureType) }) {
            throw MediaError(
                .invalidValue,
                "artwork: MP4 'covr' stores no picture type, so a \(typed.pictureType.name) picture "
                    + "would read back as a front cover; store it as the front cover (--artwork-type front)")
        }
        // ID3v2 allows one APIC per description (ID3v2.4.0 frames §4.14):
        // repeated descriptions get " (2)", " (3)", … (an empty one "2", "3").
        var used = Set<String>()
        let unique = pictures.map { picture -> Artwork in
            guard key.keySpace == .id3 else { return picture }
            var picture = picture
            var number = 2
            let base = picture.description
            while used.contains(picture.description) {
                picture.description = base.isEmpty ? "\(number)" : "\(base) (\(number))"
                number += 1
            }
            used.insert(picture.description)
            return picture
        }
        return unique.map { picture in
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
