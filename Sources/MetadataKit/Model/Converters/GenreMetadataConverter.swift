#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Genre. ID3 `TCON` holds names, numbers ("17"), numbers in parentheses
/// ("(17)", "(17)Rock" — the text refines the number), the special "(RX)"
/// Remix and "(CR)" Cover, and several values (null-separated in v2.4,
/// "(17)(18)" in v2.3). Only the numeric references are mapped to names; a
/// name is shown as stored ("NEW AGE" stays "NEW AGE"). MP4 `©gen` holds a name and `gnre` the ID3 index + 1.
/// ID3v1 holds an index. Several genres are a list (``DisplayValue/texts(_:)``;
/// ``Metadata/genre`` names them joined by "; "), written as several strings
/// where the format has lists.
public struct GenreMetadataConverter: MetadataConverter {
    public init() {}

    /// The genres in one ID3v2 `TCON` string.
    public static func parseID3(_ text: String) -> [Genre] {
        var genres: [Genre] = []
        var rest = Substring(text)
        while rest.hasPrefix("(") {
            if rest.hasPrefix("((") { // "((" escapes a name starting with "("
                rest = rest.dropFirst()
                break
            }
            guard let close = rest.firstIndex(of: ")") else { break }
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            switch inner {
            case "RX": genres.append(Genre(name: "Remix"))
            case "CR": genres.append(Genre(name: "Cover"))
            default:
                guard let number = Int(inner), let genre = Genre(id3Index: number) else {
                    return genres + [Genre(name: String(rest))]
                }
                genres.append(genre)
            }
            rest = rest[rest.index(after: close)...]
        }
        let name = String(rest.trimmingSpaces)
        if !name.isEmpty {
            if let number = Int(name), let genre = Genre(id3Index: number) {
                genres.append(genre)
            } else if genres.count == 1 {
                genres[0] = stored(name) // "(17)Rock": the refinement is the name
            } else {
                genres.append(stored(name))
            }
        }
        return genres
    }

    /// A genre named as stored ("NEW AGE" stays "NEW AGE"), with the index
    /// of the listed genre it spells, if any.
    static func stored(_ name: String) -> Genre {
        var genre = Genre(name: name)
        genre.name = name
        return genre
    }

    public func displayValue(for field: MetadataField, from items: [MetadataItem]) -> DisplayValue? {
        for item in items {
            var genres: [Genre] = []
            switch (item.keySpace, item.value) {
            case (.iTunes, .integer(let number)) where item.key == "gnre":
                if let genre = Genre(iTunesID: Int(number)) { genres = [genre] }
            case (.id3v1, .integer(let number)):
                if let genre = Genre(id3Index: Int(number)) { genres = [genre] }
            case (.id3, _):
                genres = item.value.stringValues.flatMap(Self.parseID3)
            default:
                genres = item.value.stringValues.filter { !$0.isEmpty }.map(Self.stored)
            }
            if genres.count == 1 { return .genre(genres[0]) }
            if genres.count > 1 { return .texts(genres.map(\.name)) }
        }
        return nil
    }

    public func items(
        for field: MetadataField, value: DisplayValue?, key: MetadataKeyMap.RawKey,
        existing: [MetadataItem]
    ) throws -> [MetadataItem] {
        guard let value else { return [] }
        if case .texts(let names) = value, key.keySpace != .id3v1, !(key.keySpace == .iTunes && key.key == "gnre") {
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .strings(names), dataType: .utf8)]
        }
        guard let genre = value.genre else { throw MediaError(.invalidValue, "genre needs a name") }
        switch (key.keySpace, key.key) {
        case (.iTunes, "gnre"), (.id3v1, _):
            guard let index = genre.id3Index else {
                throw MediaError(.invalidValue, "'\(genre.name)' is not in the ID3v1 genre list")
            }
            return [
                MetadataItem(
                    keySpace: key.keySpace, key: key.key,
                    value: .integer(Int64(key.keySpace == .iTunes ? index + 1 : index)),
                    dataType: .unsignedInteger)
            ]
        default:
            return [MetadataItem(keySpace: key.keySpace, key: key.key, value: .string(genre.name), dataType: .utf8)]
        }
    }
}
