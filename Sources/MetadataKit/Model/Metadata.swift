import Foundation

/// The normalized fields every format maps onto.
public enum MetadataField: String, CaseIterable, Sendable, Hashable {
    case title, artist, albumArtist, album, grouping, composer, comments
    case artwork, genre, year, bpm, trackNumber, trackCount, discNumber, discCount

    /// Every field, in declaration order (`allCases` makes a new array each time).
    static let ordered = allCases

    /// The field's index in ``ordered``.
    var position: Int { Self.ordered.firstIndex(of: self)! }
}

/// The normalized metadata of a media file, plus every raw item it holds.
///
/// The normalized fields are derived from ``items`` by the per-key
/// converters (``MetadataConverterRegistry``); which raw item wins when a
/// field is stored in more than one place is set by ``MetadataKeyMap``.
public struct Metadata: Sendable, Hashable {
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    public var grouping: String?
    public var composer: String?
    /// The file's comment (for ID3: the `COMM` frame with an empty description).
    public var comments: String?
    /// Every embedded picture, in file order.
    public var artwork: [Artwork] = []
    public var genre: Genre?
    /// The year or date, as stored (`2024`, `2024-05-01T12:00`).
    public var year: String?
    public var bpm: Int?
    public var trackNumber: Int?
    public var trackCount: Int?
    public var discNumber: Int?
    public var discCount: Int?
    /// Every raw item of the file, in file order (ID3v2 before ID3v1; for MP4:
    /// iTunes `ilst`, QuickTime `mdta` keys, then `udta` atoms).
    public var items: [MetadataItem] = []

    /// Empty metadata.
    public init() {}

    /// Metadata whose normalized fields are derived from `items`.
    public init(items: [MetadataItem], registry: MetadataConverterRegistry = .standard, keyMap: MetadataKeyMap = .standard) {
        self.items = items
        keyMap.forEachField(of: items) { field, matching in
            self[field] = registry.converter(for: field).displayValue(for: field, from: matching)
        }
    }

    /// A normalized field as a ``DisplayValue``; nil when absent.
    public subscript(field: MetadataField) -> DisplayValue? {
        get {
            switch field {
            case .title: return title.map(DisplayValue.text)
            case .artist: return artist.map(DisplayValue.text)
            case .albumArtist: return albumArtist.map(DisplayValue.text)
            case .album: return album.map(DisplayValue.text)
            case .grouping: return grouping.map(DisplayValue.text)
            case .composer: return composer.map(DisplayValue.text)
            case .comments: return comments.map(DisplayValue.text)
            case .artwork: return artwork.isEmpty ? nil : .artwork(artwork)
            case .genre: return genre.map(DisplayValue.genre)
            case .year: return year.map(DisplayValue.text)
            case .bpm: return bpm.map(DisplayValue.integer)
            case .trackNumber: return trackNumber.map(DisplayValue.integer)
            case .trackCount: return trackCount.map(DisplayValue.integer)
            case .discNumber: return discNumber.map(DisplayValue.integer)
            case .discCount: return discCount.map(DisplayValue.integer)
            }
        }
        set {
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
            case .year: year = newValue?.text
            case .bpm: bpm = newValue?.integer
            case .trackNumber: trackNumber = newValue?.integer
            case .trackCount: trackCount = newValue?.integer
            case .discNumber: discNumber = newValue?.integer
            case .discCount: discCount = newValue?.integer
            }
        }
    }
}

/// A normalized field's value, as converters produce and consume it.
public enum DisplayValue: Sendable, Hashable {
    case text(String)
    case integer(Int)
    case genre(Genre)
    case artwork([Artwork])

    /// The text; integers and genres as text too.
    public var text: String? {
        switch self {
        case .text(let value): return value
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
        default: return nil
        }
    }

    /// The pictures of an `.artwork` value.
    public var artwork: [Artwork]? {
        if case .artwork(let pictures) = self { return pictures }
        return nil
    }
}
