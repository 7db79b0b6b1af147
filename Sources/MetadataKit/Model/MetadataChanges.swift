/// Turns edits of the normalized fields into edits of the raw items.
///
/// For each field whose display value changed since load, every key space of
/// the file that holds the field gets its items replaced by the converter's
/// output for that key (so an MP4 with both `©nam` and a `udta` `©nam` has
/// both updated, and a file that keeps its title only under an `mdta` key is
/// updated there). When no key space holds the field yet, it is added in the
/// format's primary key space (`id3` for MP3, `itunes` for MP4), or, when
/// that has no key for it, in the first key space the file has that does
/// (a WAV's `bext` chunk for `originator`). Removing a
/// field (nil) removes its items everywhere. A field's fallback keys
/// (``MetadataKeyMap/fallbackKeys``) are never written to a file that lacks
/// them; those kept in step with it (``MetadataKeyMap/syncedFallbackKeys``,
/// ID3 `RVA2`) are rewritten by its converter or removed with it. Raw items
/// edited directly through ``Metadata/items`` are kept as edited.
struct MetadataChanges {
    var keyMap: MetadataKeyMap = .standard
    var registry: MetadataConverterRegistry = .standard
    /// The caller's fields (``MetadataSchema/customFields``).
    var customFields: [MetadataSchema.CustomField] = []

    /// The raw items to write, given the metadata as loaded and as edited.
    /// `keySpaces` lists the key spaces the format can write, primary first.
    /// `derived` key spaces are rebuilt by the writer from the normalized
    /// fields (ID3v1): a changed value is never written there, but a removed
    /// field is removed there too.
    ///
    /// A value that holds nothing (empty text, no pictures) removes the field,
    /// as in other taggers. A value that breaks its field's rule
    /// (``FieldRules``) or that the format has no key for is refused
    /// (`invalidValue`, naming the field and the reason) before anything is
    /// written. `formatName` names the format in that message.
    func resolvedItems(
        loaded: Metadata, edited: Metadata, keySpaces: [MetadataKeySpace],
        derived: [MetadataKeySpace] = [], formatName: String? = nil, fillsNewPrimaryTag: Bool = false
    ) throws -> [MetadataItem] {
        let change = Change(
            loaded: loaded, edited: edited, keySpaces: keySpaces, derived: derived, fillsNewPrimaryTag: fillsNewPrimaryTag,
            formatName: formatName)
        var items = edited.items
        for field in MetadataField.allCases where edited[field] != loaded[field] {
            let value = Self.meaningful(edited[field])
            if let value { try FieldRules.check(field, value) }
            try apply(field, value: value, to: &items, change)
        }
        let names = Set(edited.custom.keys).union(loaded.custom.keys)
        for name in names.sorted() where edited[custom: name] != loaded[custom: name] {
            try applyCustom(name, value: Self.meaningful(edited[custom: name]), to: &items, change)
        }
        if fillsNewPrimaryTag {
            copyIntoNewPrimaryTag(&items, change)
        }
        return items
    }

    /// When the edit starts the primary tag (the ID3 chunk of a WAV file
    /// that had only `INFO`), every unchanged field the file's other tags
    /// hold is copied into it, so that a reader that looks only there (TagLib
    /// and mutagen read a WAV's ID3 tag first) still sees the whole tag. A
    /// value the primary key can't hold stays where it is.
    private func copyIntoNewPrimaryTag(_ items: inout [MetadataItem], _ change: Change) {
        guard let primary = change.keySpaces.first, !change.loaded.items.contains(where: { $0.keySpace == primary }),
            items.contains(where: { $0.keySpace == primary })
        else { return }
        // Only what the other tags hold: a field read from a read-only source (XMP) is not theirs.
        let native = Metadata(items: change.loaded.items, registry: registry, keyMap: keyMap)
        for field in MetadataField.allCases where change.edited[field] == change.loaded[field] && native[field] != nil {
            let primaryKeys = (keyMap.keys[field] ?? []).filter { $0.keySpace == primary }
            guard let value = Self.meaningful(change.edited[field]), field != .artwork, let key = primaryKeys.first,
                !fallbackKeys(of: field).contains(key),
                !items.contains(where: { item in item.keySpace == primary && primaryKeys.contains { $0.key == item.key } }),
                let copy = try? registry.converter(for: field).items(for: field, value: value, key: key, existing: [])
            else { continue }
            items += copy
        }
    }

    /// `value`, or nil when it holds nothing: empty text (every text of a
    /// list empty), a genre without a name, no pictures.
    static func meaningful(_ value: DisplayValue?) -> DisplayValue? {
        switch value {
        case .text(let text)?: return text.isEmpty ? nil : value
        case .texts(let texts)?: return DisplayValue.list(texts.filter { !$0.isEmpty })
        case .genre(let genre)?: return genre.name.isEmpty && genre.id3Index == nil ? nil : value
        case .artwork(let pictures)?: return pictures.isEmpty ? nil : value
        default: return value
        }
    }

    /// What one call of ``resolvedItems(loaded:edited:keySpaces:derived:)`` works from.
    fileprivate struct Change {
        var loaded: Metadata
        var edited: Metadata
        var keySpaces: [MetadataKeySpace]
        var derived: [MetadataKeySpace]
        /// Whether a primary tag the edit starts gets the other tags' fields (see ``MediaFormat/fillsNewPrimaryTag``).
        var fillsNewPrimaryTag: Bool
        /// The format's name, for messages.
        var formatName: String?
    }

    /// The keys `field` reads only as a last resort (see
    /// ``MetadataKeyMap/fallbackKeys``): those of the key map's fallback keys
    /// that follow a first key of the field, in their key space, that is not one.
    func fallbackKeys(of field: MetadataField) -> [MetadataKeyMap.RawKey] {
        let keys = keyMap.keys[field] ?? []
        return keys.filter { key in
            guard keyMap.fallbackKeys.contains(key), let first = keys.first(where: { $0.keySpace == key.keySpace }) else { return false }
            return !keyMap.fallbackKeys.contains(first)
        }
    }

    /// Writes `value` (nil: removes) for `field` into `items`.
    private func apply(_ field: MetadataField, value: DisplayValue?, to items: inout [MetadataItem], _ change: Change) throws {
        let fallbacks = fallbackKeys(of: field)
        let writable = (keyMap.keys[field] ?? []).filter { change.keySpaces.contains($0.keySpace) && !fallbacks.contains($0) }
        let candidates = writable.filter { !change.derived.contains($0.keySpace) }
        let present = candidates.filter { key in items.contains { $0.keySpace == key.keySpace && $0.key == key.key } }
        // One key per key space that holds the field: the first present one, unless that is a key
        // the space's own key replaces (then the space's first key); the primary key when adding.
        var targets: [MetadataKeyMap.RawKey] = []
        for key in present where !targets.contains(where: { $0.keySpace == key.keySpace }) {
            if keyMap.replacedKeys.contains(key) {
                guard let own = candidates.first(where: { $0.keySpace == key.keySpace && !keyMap.replacedKeys.contains($0) }) else {
                    continue
                }
                targets.append(own)
            } else {
                targets.append(key)
            }
        }
        if targets.isEmpty, value != nil, let primary = candidates.first(where: { $0.keySpace == change.keySpaces.first }) {
            targets = [primary]
        }
        // The primary tag has no key for it: a tag the file has that holds it
        // (a WAV's `bext` chunk with an empty originator).
        if targets.isEmpty, value != nil,
            let held = candidates.first(where: { key in change.loaded.items.contains { $0.keySpace == key.keySpace } })
        {
            targets = [held]
        }
        if targets.isEmpty, value != nil {
            // Neither a tag of the file nor the format's primary tag has a key for it: refused, not dropped.
            let format = change.formatName.map { "\($0) files have" } ?? "this format has"
            throw MediaError(.invalidValue, "\(format) no place for \(field.rawValue): no tag of the file's kind holds it")
        }
        let converter = registry.converter(for: field)
        // What the converter wrote stays even when the field is removed (ID3 `TIPL`
        // keeps the other roles' pairs).
        var produced: [MetadataItem] = []
        for target in targets {
            if case .texts(let values)? = value, values.count > 1, keyMap.singleValueKeys.contains(target) {
                throw MediaError(
                    .invalidValue, "\(field.rawValue) holds one value in \(target.keySpace.rawValue) '\(target.key)'; got \(values.count)")
            }
            let existing = items.filter { $0.keySpace == target.keySpace && $0.key == target.key }
            let replacement = try converter.items(for: field, value: value, key: target, existing: existing)
            // Other keys of the same field in this key space (e.g. a v2.2 `TT2` beside `TIT2`) go.
            let sameSpace = Set(candidates.filter { $0.keySpace == target.keySpace }.map(\.key))
            Self.replace(in: &items, with: replacement) { $0.keySpace == target.keySpace && sameSpace.contains($0.key) }
            produced += replacement
        }
        if value == nil {
            let keys = Set(writable)
            items.removeAll {
                keys.contains(MetadataKeyMap.RawKey($0.keySpace, $0.key)) && !isPartOfOtherField($0, field: field, edited: change.edited)
                    && !produced.contains($0)
            }
        }
        let synced = fallbacks.filter {
            keyMap.syncedFallbackKeys.contains($0) && change.keySpaces.contains($0.keySpace) && !change.derived.contains($0.keySpace)
        }
        for key in synced {
            let existing = items.filter { $0.keySpace == key.keySpace && $0.key == key.key }
            guard !existing.isEmpty else { continue }
            let replacement = value == nil ? [] : try converter.items(for: field, value: value, key: key, existing: existing)
            Self.replace(in: &items, with: replacement) { $0.keySpace == key.keySpace && $0.key == key.key }
            // Another field that read these items and is not changed keeps its value.
            for other in MetadataField.allCases where other != field && (keyMap.keys[other] ?? []).contains(key) {
                guard let kept = change.edited[other], kept == change.loaded[other], displayValue(of: other, in: items) != kept else {
                    continue
                }
                try apply(other, value: kept, to: &items, change)
            }
        }
    }

    /// Replaces the items `matching` selects by `replacement`, placed where the first of them was (at the end when none).
    fileprivate static func replace(in items: inout [MetadataItem], with replacement: [MetadataItem], matching: (MetadataItem) -> Bool) {
        // One pass: the replacement goes where the first matching item was
        // (at the end when none matched), the other items keep their order.
        var result: [MetadataItem] = []
        result.reserveCapacity(items.count + replacement.count)
        var placed = false
        for item in items {
            if !matching(item) {
                result.append(item)
            } else if !placed {
                result.append(contentsOf: replacement)
                placed = true
            }
        }
        if !placed { result.append(contentsOf: replacement) }
        items = result
    }

    /// The display value `items` give `field`.
    private func displayValue(of field: MetadataField, in items: [MetadataItem]) -> DisplayValue? {
        let matching = (keyMap.keys[field] ?? []).flatMap { key in items.filter { $0.keySpace == key.keySpace && $0.key == key.key } }
        return registry.converter(for: field).displayValue(for: field, from: matching)
    }

    /// Fields that share an item with another field (track and disc number
    /// with their count, ID3 `MVIN` "n/N" with the movement count): removing
    /// one must not remove an item the other still uses (the converter
    /// already rewrote it).
    private static let partners: [MetadataField: MetadataField] = [
        .trackNumber: .trackCount, .trackCount: .trackNumber, .discNumber: .discCount, .discCount: .discNumber,
        .movementNumber: .movementCount, .movementCount: .movementNumber,
    ]

    /// Whether `item` still gives `field`'s partner a value (the partner's
    /// converter reads one from it: an ID3v1 track byte holds no count).
    private func isPartOfOtherField(_ item: MetadataItem, field: MetadataField, edited: Metadata) -> Bool {
        guard let partner = Self.partners[field], edited[partner] != nil,
            (keyMap.keys[partner] ?? []).contains(MetadataKeyMap.RawKey(item.keySpace, item.key))
        else { return false }
        return registry.converter(for: partner).displayValue(for: partner, from: [item]) != nil
    }
}

extension MetadataChanges {
    /// Changes that write the converters, key map and custom fields of `schema`.
    init(schema: MetadataSchema) {
        self.init(keyMap: schema.keyMap, registry: schema.converters, customFields: schema.customFields)
    }

    /// Writes `value` (nil: removes) for the custom field `name` into `items`:
    /// text items under the first of its keys in each writable key space
    /// that holds it, else under its key in the primary key space, else in
    /// a key space the file has; refused when there is none.
    fileprivate func applyCustom(_ name: String, value: DisplayValue?, to items: inout [MetadataItem], _ change: Change) throws {
        guard let field = customFields.first(where: { $0.name == name }) else {
            throw MediaError(.invalidValue, "no custom field '\(name)' is registered in the item's schema")
        }
        let candidates = field.keys.filter { change.keySpaces.contains($0.keySpace) && !change.derived.contains($0.keySpace) }
        guard let value else {
            let keys = Set(candidates)
            items.removeAll { keys.contains(MetadataKeyMap.RawKey($0.keySpace, $0.key)) }
            return
        }
        guard value.artwork == nil, !value.texts.isEmpty else {
            throw MediaError(.invalidValue, "the custom field '\(name)' holds text")
        }
        var targets: [MetadataKeyMap.RawKey] = []
        for key in candidates where !targets.contains(where: { $0.keySpace == key.keySpace }) {
            if items.contains(where: { $0.keySpace == key.keySpace && $0.key == key.key }) { targets.append(key) }
        }
        if targets.isEmpty {
            let primary = candidates.first { $0.keySpace == change.keySpaces.first }
            let held = candidates.first { key in change.loaded.items.contains { $0.keySpace == key.keySpace } }
            guard let target = primary ?? held else {
                let format = change.formatName.map { "\($0) files have" } ?? "this format has"
                throw MediaError(
                    .invalidValue, "\(format) no place for the custom field '\(name)': none of its keys is in a tag of the file's kind")
            }
            targets = [target]
        }
        for target in targets {
            if case .texts(let values) = value, values.count > 1, keyMap.singleValueKeys.contains(target) {
                throw MediaError(.invalidValue, "the custom field '\(name)' holds one value in \(target); got \(values.count)")
            }
            let existing = items.filter { $0.keySpace == target.keySpace && $0.key == target.key }
            let stored: MetadataValue = value.texts.count == 1 ? .string(value.texts[0]) : .strings(value.texts)
            let replacement = [
                MetadataItem(keySpace: target.keySpace, key: target.key, value: stored, dataType: .utf8, language: existing.first?.language)
            ]
            // The field's other keys in this key space go.
            let sameSpace = Set(candidates.filter { $0.keySpace == target.keySpace }.map(\.key))
            Self.replace(in: &items, with: replacement) { $0.keySpace == target.keySpace && sameSpace.contains($0.key) }
        }
    }
}
