#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The MP4 save policy for fields kept outside the iTunes list.
///
/// A field the save changes and that the file keeps only under QuickTime
/// `mdta` keys or in `udta` ©-atoms is updated there (by
/// ``MetadataChanges``) and also written to the iTunes list: mutagen, TagLib
/// and AtomicParsley read nothing but `moov/udta/meta/ilst`, while ffmpeg
/// and exiftool read all three places. The iTunes value comes from the same
/// converter, so every reader sees the same value; fields nobody changed
/// are not copied.
struct MP4MetadataMirror {
    let source: FileSource
    let url: URL
    var keyMap: MetadataKeyMap = .standard
    var registry: MetadataConverterRegistry = .standard

    /// `items` (the resolved items of a save of the movie `moov`), with the
    /// iTunes items of each changed field that the iTunes list lacks.
    /// `loadedItems` are `moov`'s items when a load has read them (else
    /// they are read here).
    func mirroringChanges(_ items: [MetadataItem], moov: MP4Box, loaded loadedItems: [MetadataItem]? = nil) throws
        -> [MetadataItem]
    {
        let loaded = Metadata(items: try loadedItems ?? MP4MetadataParser(source: source, url: url).items(in: moov))
        let edited = Metadata(items: items)
        var result = items
        for field in MetadataField.allCases where edited[field] != loaded[field] {
            guard let value = edited[field] else { continue }
            let keys = (keyMap.keys[field] ?? []).filter { $0.keySpace == .iTunes && !keyMap.fallbackKeys.contains($0) }
            guard let primary = keys.first,
                !items.contains(where: { item in item.keySpace == .iTunes && keys.contains { $0.key == item.key } })
            else {
                continue
            }
            // Track and disc numbers share an item with their counts: build on what an earlier field added.
            let existing = result.filter { $0.keySpace == .iTunes && $0.key == primary.key }
            let replacement = try registry.converter(for: field).items(for: field, value: value, key: primary, existing: existing)
            result.removeAll { $0.keySpace == .iTunes && $0.key == primary.key }
            result += replacement
        }
        return result
    }
}
