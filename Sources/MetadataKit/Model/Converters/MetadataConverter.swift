#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns the raw items that hold one normalized field into its display value,
/// and a display value back into raw items.
public protocol MetadataConverter: Sendable {
    /// The display value of `field` from `items`, which are the items that hold
    /// it, most preferred first (see ``MetadataKeyMap``). Nil when none of them
    /// gives a usable value.
    func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue?

    /// The raw items that store `value` for `field` under `key`. `existing` holds
    /// the file's current items for that key (a converter may keep parts of
    /// them, e.g. the track count when only the number changes). A nil value
    /// asks for the field to be removed: the result holds whatever must remain.
    /// Throws `invalidValue` when the format can't hold the value.
    func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem]
}

/// Chooses the converter for each normalized field.
public struct MetadataConverterRegistry: Sendable {
    /// One converter per field, in `MetadataField.allCases` order (an array,
    /// not a dictionary: this is looked up for every field of every load).
    private var converters: [any MetadataConverter]

    /// A registry that uses `fallback` for every field not given a converter.
    public init(fallback: any MetadataConverter = DefaultMetadataConverter()) {
        self.converters = Array(repeating: fallback, count: MetadataField.allCases.count)
    }

    /// Uses `converter` for `field` from now on.
    public mutating func register(_ converter: any MetadataConverter, for field: MetadataField) {
        converters[field.position] = converter
    }

    /// The converter for `field`.
    public func converter(for field: MetadataField) -> any MetadataConverter {
        converters[field.position]
    }

    /// Artwork, track, disc, comments, genre, year, the flags, the movement,
    /// the rating, the original date, the ReplayGain gains and peaks and people by role get their special converters; every other field uses
    /// ``DefaultMetadataConverter``.
    public static let standard: MetadataConverterRegistry = {
        var registry = MetadataConverterRegistry()
        registry.register(ArtworkMetadataConverter(), for: .artwork)
        for field in [MetadataField.trackNumber, .trackCount, .discNumber, .discCount] {
            registry.register(PositionMetadataConverter(), for: field)
        }
        registry.register(CommentMetadataConverter(), for: .comments)
        registry.register(GenreMetadataConverter(), for: .genre)
        registry.register(DateMetadataConverter(), for: .date)
        for field in MetadataField.ordered where field.kind == .boolean {
            registry.register(BooleanMetadataConverter(), for: field)
        }
        registry.register(MovementMetadataConverter(), for: .movementNumber)
        registry.register(MovementMetadataConverter(), for: .movementCount)
        registry.register(RatingMetadataConverter(), for: .rating)
        registry.register(OriginalDateMetadataConverter(), for: .originalDate)
        for field in [MetadataField.replayGainTrackGain, .replayGainTrackPeak, .replayGainAlbumGain, .replayGainAlbumPeak] {
            registry.register(ReplayGainMetadataConverter(), for: field)
        }
        for field in [MetadataField.arranger, .engineer, .producer, .djMixer, .mixer, .performers] {
            registry.register(InvolvedPeopleMetadataConverter(), for: field)
        }
        return registry
    }()
}

/// Text and number fields: the first item with a value wins; several strings in
/// one item are a list (``DisplayValue/texts(_:)``, shown joined with "; "),
/// written back as one item of several strings (ID3v2.4 null-separated,
/// ID3v2.3 joined by "/", repeated Vorbis fields, several MP4 `data` atoms).
/// A key space whose items store a field otherwise (bytes, numbers) says how
/// through its ``KeySpaceCodec``.
public struct DefaultMetadataConverter: MetadataConverter {
    /// The converter; it holds no state.
    public init() {}

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for (index, item) in items.enumerated() {
            guard let own = value(of: item, for: field) else { continue }
            // The same key stored again (an MP4 `©ART` per artist, as some taggers
            // write them; repeated ASF attributes): one list, as mutagen reads it.
            // A copy with the same text (ffmpeg writes an ASF artist in both
            // description objects) is no second value.
            guard field.kind == .text else { return own }
            var texts: [String] = [] // made only when the key comes again (most fields: no array at all)
            for again in items[(index + 1)...] where again.keySpace == item.keySpace && again.key == item.key {
                if texts.isEmpty { texts = own.texts }
                for text in value(of: again, for: field)?.texts ?? [] where !texts.contains(text) { texts.append(text) }
            }
            return texts.isEmpty || texts.count == own.texts.count ? own : DisplayValue.list(texts)
        }
        return nil
    }

    /// The value one item gives `field`, if any.
    func value(of item: MetadataItem, for field: MetadataField) -> DisplayValue? {
        switch (field, item.value) {
        case (.bpm, .integer(let number)):
            return .integer(Int(number))
        case (.bpm, .double(let number)) where number.isFinite && abs(number) < 1e9:
            return .integer(Int(number.rounded()))
        case (.bpm, _):
            if let text = item.value.stringValue,
                let number = Double(String(text.trimmingSpaces)), number.isFinite, abs(number) < 1e9
            {
                return .integer(Int(number.rounded()))
            }
        case (_, .data):
            // Bytes are no text, unless the key space says how they are one.
            if case .value(let value) = KeySpaceCodecs.standard.reading(field, from: item, among: [item]) { return value }
        case (_, .string(let text)):
            if !text.isEmpty { return .text(text) } // most fields: one string, no list made
        default:
            let strings = item.value.stringValues.filter { !$0.isEmpty }
            if let value = DisplayValue.list(strings) { return value }
            if case .integer(let number) = item.value { return .text(String(number)) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        if let special = try KeySpaceCodecs.standard.items(for: field, value: value, key: key, existing: existing) {
            return special
        }
        return try textItems(for: field, value: value, key: key, existing: existing)
    }

    /// The value of `field` for a field whose key spaces may store it their
    /// own way: each item's codec is asked first, and the first item the
    /// model reads a value from gives it as ``displayValue(for:from:)`` does
    /// (the key given again included).
    func displayValueAskingCodecs(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for (index, item) in items.enumerated() {
            switch KeySpaceCodecs.standard.reading(field, from: item, among: items) {
            case .value(let value): return value
            case .none: continue
            case .standard: break
            }
            if value(of: item, for: field) != nil { return displayValue(for: field, from: index == 0 ? items : Array(items[index...])) }
        }
        return nil
    }

    /// The items of ``items(for:value:key:existing:)`` as most tags store
    /// them: one item holding the text or the list of texts, in the
    /// language of the item it replaces.
    func textItems(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        if case .texts(let values) = value, field != .bpm {
            return [
                MetadataItem(
                    keySpace: key.keySpace, key: key.key, value: .strings(values), dataType: .utf8,
                    language: existing.first?.language)
            ]
        }
        guard let text = value.text else {
            throw MediaError(.invalidValue, "\(field.rawValue) needs a text value")
        }
        if field == .bpm, Int(text) == nil {
            throw MediaError(.invalidValue, "bpm must be a whole number, not '\(text)'")
        }
        return [
            MetadataItem(
                keySpace: key.keySpace, key: key.key, value: .string(text), dataType: .utf8,
                language: existing.first?.language)
        ]
    }
}
