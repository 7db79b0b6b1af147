/// Turns edits of the normalized fields into edits of the raw items.
///
/// For each field whose display value changed since load, every key space of
/// the file that holds the field gets its items replaced by the converter's
/// output for that key (so an MP4 with both `©nam` and a `udta` `©nam` has
/// both updated, and a file that keeps its title only under an `mdta` key is
/// updated there). When no key space holds the field yet, it is added in the
/// format's primary key space (`id3` for MP3, `itunes` for MP4). Removing a
/// field (nil) removes its items everywhere. Raw items edited directly
/// through ``Metadata/items`` are kept as edited.
struct MetadataChanges {
    var keyMap: MetadataKeyMap = .standard
    var registry: MetadataConverterRegistry = .standard

    /// The raw items to write, given the metadata as loaded and as edited.
    /// `keySpaces` lists the key spaces the format can write, primary first.
    /// `derived` key spaces are rebuilt by the writer from the normalized
    /// fields (ID3v1): a changed value is never written there, but a removed
    /// field is removed there too.
    func resolvedItems(
        loaded: Metadata, edited: Metadata, keySpaces: [MetadataKeySpace],
        derived: [MetadataKeySpace] = []
    ) throws -> [MetadataItem] {
        var items = edited.items
        for field in MetadataField.allCases where edited[field] != loaded[field] {
            let value = edited[field]
            let writable = (keyMap.keys[field] ?? []).filter {
                keySpaces.contains($0.keySpace) && !(field == .year && keyMap.fallbackKeys.contains($0))
            }
            let candidates = writable.filter { !derived.contains($0.keySpace) }
            let present = candidates.filter { key in items.contains { $0.keySpace == key.keySpace && $0.key == key.key } }
            // One key per key space: the first present one (or the primary key when adding).
            var targets: [MetadataKeyMap.RawKey] = []
            for key in present where !targets.contains(where: { $0.keySpace == key.keySpace }) {
                targets.append(key)
            }
            if targets.isEmpty, value != nil, let primary = candidates.first(where: { $0.keySpace == keySpaces.first }) {
                targets = [primary]
            }
            let converter = registry.converter(for: field)
            // What the converter wrote stays even when the field is removed (ID3 `TIPL`
            // keeps the other roles' pairs).
            var produced: [MetadataItem] = []
            for target in targets {
                let existing = items.filter { $0.keySpace == target.keySpace && $0.key == target.key }
                let replacement = try converter.items(for: field, value: value, key: target, existing: existing)
                // Other keys of the same field in this key space (e.g. a v2.2 `TT2` beside `TIT2`) go.
                let sameSpace = Set(candidates.filter { $0.keySpace == target.keySpace }.map(\.key))
                let position = items.firstIndex { $0.keySpace == target.keySpace && sameSpace.contains($0.key) } ?? items.endIndex
                let kept = items.enumerated().filter { !($0.element.keySpace == target.keySpace && sameSpace.contains($0.element.key)) }
                let before = kept.filter { $0.offset < position }.map(\.element)
                let after = kept.filter { $0.offset >= position }.map(\.element)
                items = before + replacement + after
                produced += replacement
            }
            if value == nil {
                let keys = Set(writable)
                items.removeAll {
                    keys.contains(MetadataKeyMap.RawKey($0.keySpace, $0.key)) && !isPartOfOtherField($0, field: field, edited: edited)
                        && !produced.contains($0)
                }
            }
        }
        return items
    }

    /// Fields that share an item with another field (track and disc number
    /// with their count, ID3 `MVIN` "n/N" with the movement count): removing
    /// one must not remove an item the other still uses (the converter
    /// already rewrote it).
    private static let partners: [MetadataField: MetadataField] = [
        .trackNumber: .trackCount, .trackCount: .trackNumber, .discNumber: .discCount, .discCount: .discNumber,
        .movementNumber: .movementCount, .movementCount: .movementNumber,
    ]

    private func isPartOfOtherField(_ item: MetadataItem, field: MetadataField, edited: Metadata) -> Bool {
        guard let partner = Self.partners[field], edited[partner] != nil else { return false }
        return (keyMap.keys[partner] ?? []).contains(MetadataKeyMap.RawKey(item.keySpace, item.key))
    }
}
