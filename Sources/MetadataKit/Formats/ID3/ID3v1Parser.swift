#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads an ID3v1 or ID3v1.1 tag: the last 128 bytes of the file.
///
///     "TAG"  title 30  artist 30  album 30  year 4  comment 30  genre 1
///
/// ID3v1.1 (Michael Mutschler) takes the last two comment bytes for a zero
/// and a track number. Strings are ISO-8859-1, padded with zeros or spaces.
enum ID3v1Parser {
    /// Length of the tag.
    static let length = 128
    /// Length of the "Enhanced TAG" ("TAG+") that may precede it.
    static let enhancedLength = 227

    /// The tag's items (key space `.id3v1`): `title`, `artist`, `album`,
    /// `year`, `comment` (omitted when empty), `track` (v1.1, `.integer`) and
    /// `genre` (`.integer` index, omitted when 255). Nil when `bytes` is not a
    /// tag.
    static func items(_ bytes: [UInt8]) -> [MetadataItem]? {
        guard bytes.count == length, bytes.starts(with: "TAG".utf8) else { return nil }
        var items: [MetadataItem] = []
        func text(_ key: String, _ range: Range<Int>) {
            let value = Self.text(bytes[range])
            guard !value.isEmpty else { return }
            items.append(MetadataItem(keySpace: .id3v1, key: key, value: .string(value), dataType: .latin1))
        }
        text("title", 3..<33)
        text("artist", 33..<63)
        text("album", 63..<93)
        text("year", 93..<97)
        let isV11 = bytes[125] == 0 && bytes[126] != 0
        text("comment", 97..<(isV11 ? 125 : 127))
        if isV11 {
            items.append(MetadataItem(keySpace: .id3v1, key: "track", value: .integer(Int64(bytes[126])), dataType: .unsignedInteger))
        }
        if bytes[127] != 255 {
            items.append(MetadataItem(keySpace: .id3v1, key: "genre", value: .integer(Int64(bytes[127])), dataType: .unsignedInteger))
        }
        return items
    }

    /// A text field's value: ISO-8859-1 up to the first zero byte, trailing spaces removed.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        var field = bytes
        if let zero = field.firstIndex(of: 0) { field = field[..<zero] }
        while let last = field.last, last == 0x20 { field = field.dropLast() }
        return TextDecoding.latin1(field)
    }
}
