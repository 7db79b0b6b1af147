#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Genres as ID3v2 `TCON` holds them (ID3v2.4.0 frames §4.2.3, ID3v2.3.0
/// §4.2.1): names, numbers ("17"), numbers in parentheses ("(17)",
/// "(17)Rock" — the text refines the number), the special "(RX)" Remix and
/// "(CR)" Cover, and several values (null-separated in v2.4, "(17)(18)" in
/// v2.3). Only the numeric references are mapped to names.
enum ID3Genres {
    /// The genres in one ID3v2 `TCON` string.
    static func parse(_ text: String) -> [Genre] {
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
                genres[0] = GenreMetadataConverter.stored(name) // "(17)Rock": the refinement is the name
            } else {
                genres.append(GenreMetadataConverter.stored(name))
            }
        }
        return genres
    }

}

extension GenreMetadataConverter {
    /// The genres in one ID3v2 `TCON` string (see `ID3FieldCodec`).
    public static func parseID3(_ text: String) -> [Genre] { ID3Genres.parse(text) }
}
