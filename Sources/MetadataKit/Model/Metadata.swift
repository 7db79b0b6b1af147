#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The normalized metadata of a media file, plus every raw item it holds.
///
/// The normalized fields are derived from ``items`` by the per-key
/// converters (``MetadataConverterRegistry``); which raw item wins when a
/// field is stored in more than one place is set by ``MetadataKeyMap``.
public struct Metadata: Sendable, Hashable {
    /// The title (``MetadataField/title``); nil when the file has none.
    public var title: String?
    /// The track artist as one display string; nil when the file has none.
    public var artist: String?
    /// The release's artist (for compilations); nil when the file has none.
    public var albumArtist: String?
    /// The release title; nil when the file has none.
    public var album: String?
    /// The content group (ID3 `TIT1`/`GRP1`, MP4 `©grp`); nil when the file has none.
    public var grouping: String?
    /// The composer; nil when the file has none.
    public var composer: String?
    /// The file's comment (for ID3: the `COMM` frame with an empty description).
    public var comments: String?
    /// Every embedded picture, in file order.
    public var artwork: [Artwork] = []
    /// The genre, by name (ID3 and MP4 genre numbers are resolved); nil when the file has none.
    public var genre: Genre?
    /// The recording date as stored: a year or an ISO 8601 date and time
    /// (`2024`, `2024-05-01`, `2024-05-01T12:00`); nil when the file has none.
    /// ``year`` is its year as a number.
    public var date: String?
    /// Tempo in beats per minute; nil when the file has none.
    public var bpm: Int?
    /// The track's position on its disc, from 1; nil when the file has none.
    public var trackNumber: Int?
    /// How many tracks the disc has; nil when the file doesn't say.
    public var trackCount: Int?
    /// The disc's position in the release, from 1; nil when the file has none.
    public var discNumber: Int?
    /// How many discs the release has; nil when the file doesn't say.
    public var discCount: Int?
    /// Every raw item of the file, in file order (ID3v2 before ID3v1; for MP4:
    /// iTunes `ilst`, QuickTime `mdta` keys, then `udta` atoms).
    public var items: [MetadataItem] = []
    /// The values of every field added after the original fifteen (see
    /// `Metadata+Fields.swift`), and the lists of original text fields that
    /// hold several values. One dictionary, so a file that holds few of them
    /// costs little to read and copy.
    var extended: [MetadataField: DisplayValue] = [:]
    /// The values of the custom fields (``MetadataSchema/CustomField``), by name.
    var custom: [String: DisplayValue] = [:]

    /// Empty metadata.
    public init() {}

    /// Metadata whose normalized fields are derived from `items`.
    public init(items: [MetadataItem], registry: MetadataConverterRegistry = .standard, keyMap: MetadataKeyMap = .standard) {
        self.items = items
        keyMap.forEachField(of: items) { field, matching in
            self[field] = registry.converter(for: field).displayValue(for: field, from: matching)
        }
    }

    /// The year of ``date``: its first four characters when they are digits
    /// and no digit follows (2024 for `2024-05-01`); nil when there is no
    /// date or it starts otherwise (`Oct 3, 1995`). Set ``date`` to change it.
    public var year: Int? {
        guard let date else { return nil }
        let bytes = Array(date.utf8.prefix(5))
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        guard bytes.count >= 4, bytes[..<4].allSatisfy(isDigit), !(bytes.count == 5 && isDigit(bytes[4])) else { return nil }
        return bytes[..<4].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// Every field that has a value, in `MetadataField.allCases` order: what
    /// `self[field]` gives for each field, without asking for every one.
    public var fieldValues: [(field: MetadataField, value: DisplayValue)] {
        var values: [(field: MetadataField, value: DisplayValue)] = []
        values.reserveCapacity(MetadataField.discCount.position + 1 + extended.count)
        for field in MetadataField.ordered[...MetadataField.discCount.position] {
            if let value = self[field] { values.append((field, value)) }
        }
        // Appended and sorted in place: filtering the dictionary would hash every key again.
        let core = values.count
        for (field, value) in extended where !field.isCore { values.append((field, value)) }
        values[core...].sort { $0.field.position < $1.field.position }
        return values
    }

    /// The fields whose value differs between `other` and `self` (set in
    /// one only, or to other values), in `MetadataField.allCases` order:
    /// one walk over both ``fieldValues`` instead of asking every field.
    package func differingFields(from other: Metadata) -> [MetadataField] {
        let old = other.fieldValues, new = fieldValues
        var fields: [MetadataField] = []
        var (i, j) = (0, 0)
        while i < old.count || j < new.count {
            if j == new.count || i < old.count && old[i].field.position < new[j].field.position {
                fields.append(old[i].field)
                i += 1
            } else if i == old.count || new[j].field.position < old[i].field.position {
                fields.append(new[j].field)
                j += 1
            } else {
                if old[i].value != new[j].value { fields.append(old[i].field) }
                i += 1
                j += 1
            }
        }
        return fields
    }

    /// A normalized field as a ``DisplayValue``; nil when absent.
    public subscript(field: MetadataField) -> DisplayValue? {
        get {
            if !field.isCore { return extended[field] }
            let single: DisplayValue?
            switch field {
            case .title: single = title.map(DisplayValue.text)
            case .artist: single = artist.map(DisplayValue.text)
            case .albumArtist: single = albumArtist.map(DisplayValue.text)
            case .album: single = album.map(DisplayValue.text)
            case .grouping: single = grouping.map(DisplayValue.text)
            case .composer: single = composer.map(DisplayValue.text)
            case .comments: single = comments.map(DisplayValue.text)
            case .artwork: single = artwork.isEmpty ? nil : .artwork(artwork)
            case .genre: single = genre.map(DisplayValue.genre)
            case .date: single = date.map(DisplayValue.text)
            case .bpm: single = bpm.map(DisplayValue.integer)
            case .trackNumber: single = trackNumber.map(DisplayValue.integer)
            case .trackCount: single = trackCount.map(DisplayValue.integer)
            case .discNumber: single = discNumber.map(DisplayValue.integer)
            case .discCount: single = discCount.map(DisplayValue.integer)
            default: single = nil
            }
            // A list read from the file, while the field still shows it.
            if !extended.isEmpty, case .texts(let values)? = extended[field],
                values.joined(separator: DisplayValue.separator) == single?.text
            {
                return .texts(values)
            }
            // A value the typed property can't hold (several numbers, text for a number),
            // kept as given so that a save refuses it instead of removing the field.
            if single == nil, !extended.isEmpty, let kept = extended[field] { return kept }
            return single
        }
        set {
            guard field.isCore else {
                extended[field] = newValue
                return
            }
            if case .texts? = newValue { extended[field] = newValue } else if !extended.isEmpty { extended[field] = nil }
            switch field {
            case .title: title = newValue?.text
            case .artist: artist = newValue?.text
            case .albumArtist: albumArtist = newValue?.text
            case .album: album = newValue?.text
            case .grouping: grouping = newValue?.text
            case .composer: composer = newValue?.text
            case .comments: comments = newValue?.text
            case .artwork: artwork = newValue?.artwork ?? []
            case .genre: genre = newValue?.genre
            case .date: date = newValue?.text
            case .bpm: bpm = newValue?.integer
            case .trackNumber: trackNumber = newValue?.integer
            case .trackCount: trackCount = newValue?.integer
            case .discNumber: discNumber = newValue?.integer
            case .discCount: discCount = newValue?.integer
            default: break
            }
            if let newValue, field.kind == .integer, newValue.integer == nil { extended[field] = newValue }
        }
    }
}

/// A normalized field's value, as converters produce and consume it.
public enum DisplayValue: Sendable, Hashable {
    /// One text value.
    case text(String)
    /// A whole number (track and disc numbers, `bpm`, `rating`, …).
    case integer(Int)
    /// A genre (``MetadataField/genre``).
    case genre(Genre)
    /// Pictures (``MetadataField/artwork``), in file order.
    case artwork([Artwork])
    /// Several values of a text field (ID3v2.4 null-separated strings, repeated
    /// Vorbis comment fields, several MP4 `data` atoms); never fewer than two
    /// when read from a file.
    case texts([String])

    /// What joins the values of a ``texts(_:)`` value shown as one text.
    public static let separator = "; "

    /// One value, or ``texts(_:)`` for several.
    public static func list(_ values: [String]) -> DisplayValue? {
        switch values.count {
        case 0: return nil
        case 1: return .text(values[0])
        default: return .texts(values)
        }
    }

    /// The text; integers and genres as text too; several values joined by "; ".
    public var text: String? {
        switch self {
        case .text(let value): return value
        case .texts(let values): return values.joined(separator: Self.separator)
        case .integer(let value): return String(value)
        case .genre(let genre): return genre.name
        case .artwork: return nil
        }
    }

    /// The integer; text that is a whole number too.
    public var integer: Int? {
        switch self {
        case .integer(let value): return value
        case .text(let value): return Int(value.trimmingSpaces)
        default: return nil
        }
    }

    /// The genre; text becomes a genre by name.
    public var genre: Genre? {
        switch self {
        case .genre(let genre): return genre
        case .text(let value): return Genre(name: value)
        case .texts(let values): return Genre(name: values.joined(separator: Self.separator))
        default: return nil
        }
    }

    /// Every value: the values of ``texts(_:)``, or the one text.
    public var texts: [String] {
        if case .texts(let values) = self { return values }
        return text.map { [$0] } ?? []
    }

    /// A flag: integers other than 0, and the texts "1", "true", "yes" (any
    /// case) are true; "0", "false", "no" and "" are false.
    public var boolean: Bool? {
        switch self {
        case .integer(let value): return value != 0
        case .text(let value):
            switch value.trimmingSpaces.lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no", "": return false
            default: return Int(value.trimmingSpaces).map { $0 != 0 }
            }
        default: return nil
        }
    }

    /// The pictures of an `.artwork` value.
    public var artwork: [Artwork]? {
        if case .artwork(let pictures) = self { return pictures }
        return nil
    }
}
