#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// ID3v1/v1.1 fields: `title`, `artist`, `album`, `year`, `comment`, `track`, `genre`.
    public static let id3v1 = MetadataKeySpace(rawValue: "id3v1")
}

/// How ID3v1.1 holds its numbers: the track as a byte (1–255), the genre as
/// an index of the standard list, the year as four digits (anything else,
/// a damaged or garbled tag, is no year).
struct ID3v1FieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .id3v1 }

    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        switch field {
        case .genre:
            guard case .integer(let number) = item.value else { return .standard }
            return Genre(id3Index: Int(number)).map { .value(.genre($0)) } ?? .none
        case .date:
            guard let text = item.value.stringValues.first(where: { !$0.isEmpty }) ?? item.value.stringValue, !text.isEmpty,
                text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) })
            else { return .none }
            return .standard
        default:
            return .standard
        }
    }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        switch field {
        case .trackNumber, .trackCount, .discNumber, .discCount:
            let (number, _, _) = try PositionMetadataConverter.position(setting: field, to: value, existing: existing)
            guard let number, number <= 255 else {
                throw MediaError(.invalidValue, "ID3v1 holds a track number from 1 to 255")
            }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(Int64(number)), dataType: .unsignedInteger)]
        case .genre:
            guard let value else { return [] }
            guard let genre = value.genre else { throw MediaError(.invalidValue, "genre needs a name") }
            guard let index = genre.id3Index else {
                throw MediaError(.invalidValue, "'\(genre.name)' is not in the ID3v1 genre list")
            }
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(Int64(index)), dataType: .unsignedInteger)]
        default:
            return nil
        }
    }
}
