#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One field of an MP3's ID3v1 tag that a save changes: the value asked for
/// and the value the tag can hold.
///
/// ID3v1 (see `ID3v1Parser` for the layout) holds ISO-8859-1 text in
/// fields of 30 bytes (the comment 28 when a track number is stored), a year
/// of four digits, a track from 1 to 255 and a genre from the ID3v1 list.
/// When the value asked for does not fit, ``loss`` says why and ``written``
/// holds what the tag gets.
public struct ID3v1FieldUpdate: Sendable, Hashable, CustomStringConvertible {
    /// `title`, `artist`, `album`, `year`, `comment`, `track` or `genre`.
    public var field: String
    /// The value asked for; nil when the field is cleared.
    public var requested: String?
    /// The value the tag holds after the save; nil when the field is empty.
    public var written: String?
    /// Why ``written`` differs from ``requested`` ("not Latin-1", "cut to 30
    /// bytes", "not in the ID3v1 genre list"); nil when it doesn't.
    public var loss: String?

    /// An update of `field` from `requested` to `written`, with the `loss` that
    /// separates them (nil when none).
    public init(field: String, requested: String?, written: String?, loss: String?) {
        self.field = field
        self.requested = requested
        self.written = written
        self.loss = loss
    }

    /// "title 'Łódź' → 'Lodz' (not Latin-1)".
    public var description: String {
        func show(_ value: String?) -> String { value.map { "'\($0)'" } ?? "(none)" }
        return "\(field) \(show(requested)) → \(show(written))" + (loss.map { " (\($0))" } ?? "")
    }
}

/// Updates an ID3v1.1 tag field by field.
///
/// Only the fields whose value changes are written: a field changes when its
/// `id3v1` item was edited or removed, or when its normalized field
/// (``Metadata``, where ID3v2 wins) changed. Every other byte of the tag —
/// the other fields as they were cut and padded, the genre byte, the
/// ID3v1.1 track bytes — stays as it is. A new tag (``SaveOptions/id3v1``
/// `.add`) starts empty, genre 255, and gets every field that has a value.
///
/// - Text: ISO-8859-1. A character beyond it is transliterated where a clear
///   one exists ("Ł" → "L", "ő" → "o", "€" → "EUR", "“" → "\""), else
///   written as "?"; a value longer than its field is cut. Both are reported
///   in ``ID3v1FieldUpdate/loss``. Fields are padded with zero bytes.
/// - Year: the first run of four digits ("2024-05-01" → "2024").
/// - Track: ID3v1.1 (Michael Mutschler: a zero byte, then the track in the
///   last two comment bytes) for 1–255; a comment that used those bytes is
///   cut to 28 (reported).
/// - Genre: the ID3 index, 255 (none) for a genre outside the list (reported).
enum ID3v1Writer {
    /// The tag's new bytes and the fields that change.
    struct Update {
        var bytes: [UInt8]
        var fields: [ID3v1FieldUpdate]
    }

    /// The ID3v1 fields: item key, normalized field, byte range.
    private static let textFields: [(key: String, field: MetadataField, range: Range<Int>)] = [
        ("title", .title, 3..<33), ("artist", .artist, 33..<63), ("album", .album, 63..<93),
    ]

    /// The tag `existing` (nil: a new one) updated for a save from the file's
    /// items `loaded` to `items`.
    static func update(_ existing: [UInt8]?, loaded: [MetadataItem], items: [MetadataItem]) -> Update {
        var bytes = existing ?? Array("TAG".utf8) + [UInt8](repeating: 0, count: 124) + [255]
        let before = existing == nil ? Metadata() : Metadata(items: loaded)
        let after = Metadata(items: items)
        let oldRaw =
            existing == nil ? [:] : Dictionary(loaded.filter { $0.keySpace == .id3v1 }.map { ($0.key, $0.value) }) { first, _ in first }
        let newRaw = Dictionary(items.filter { $0.keySpace == .id3v1 }.map { ($0.key, $0.value) }) { first, _ in first }
        var fields: [ID3v1FieldUpdate] = []

        /// The value asked for the field, when it changes (`.some(nil)`: cleared).
        func requested(_ key: String, _ field: MetadataField) -> String?? {
            if oldRaw[key] != newRaw[key] { return .some(newRaw[key].flatMap(\.stringValue)) }
            if before[field] != after[field] { return .some(after[field]?.text) }
            return nil
        }

        for (key, field, range) in textFields {
            guard let value = requested(key, field) else { continue }
            let written = writeText(value, into: &bytes, range: range)
            fields.append(ID3v1FieldUpdate(field: key, requested: value, written: written.text, loss: written.loss))
        }
        if let value = requested("year", .date) {
            let year = self.year(value)
            writeText(year, into: &bytes, range: 93..<97)
            fields.append(
                ID3v1FieldUpdate(
                    field: "year", requested: value, written: year.isEmpty ? nil : year,
                    loss: (value ?? "") == year ? nil : "ID3v1 holds a four-digit year"))
        }
        // Track (ID3v1.1), before the comment: it decides the comment's width.
        let wasV11 = bytes[125] == 0 && bytes[126] != 0
        var isV11 = wasV11
        if let value = requested("track", .trackNumber) {
            let number = value.flatMap { Int($0) }
            if let number, (1...255).contains(number) {
                let cut = !wasV11 && bytes[125..<127].contains { $0 != 0 }
                bytes[125] = 0
                bytes[126] = UInt8(number)
                isV11 = true
                if cut, requested("comment", .comments) == nil {
                    let kept = ID3v1Parser.text(bytes[97..<125])
                    fields.append(
                        ID3v1FieldUpdate(
                            field: "comment", requested: before.comments ?? kept, written: kept.isEmpty ? nil : kept,
                            loss: "cut to 28 bytes to make room for the track"))
                }
                fields.append(ID3v1FieldUpdate(field: "track", requested: value, written: String(number), loss: nil))
            } else {
                if wasV11 { bytes[126] = 0 }
                isV11 = false
                fields.append(
                    ID3v1FieldUpdate(
                        field: "track", requested: value, written: nil,
                        loss: value == nil ? nil : "ID3v1 holds a track from 1 to 255"))
            }
        }
        if let value = requested("comment", .comments) {
            let written = writeText(value, into: &bytes, range: 97..<(isV11 ? 125 : 127))
            fields.append(ID3v1FieldUpdate(field: "comment", requested: value, written: written.text, loss: written.loss))
        }
        if oldRaw["genre"] != newRaw["genre"] || before.genre != after.genre {
            let genre: Genre?
            if oldRaw["genre"] != newRaw["genre"] {
                genre = newRaw["genre"].flatMap { value -> Genre? in
                    if case .integer(let index) = value { return Genre(id3Index: Int(index)) ?? Genre(name: "\(index)") }
                    return value.stringValue.map { Genre(name: $0) }
                }
            } else {
                genre = after.genre
            }
            let index = genre?.id3Index
            bytes[127] = index.map(UInt8.init) ?? 255
            let written = index.flatMap { Genre(id3Index: $0)?.name }
            let lost = genre != nil && index == nil
            fields.append(
                ID3v1FieldUpdate(
                    field: "genre", requested: genre?.name, written: written,
                    loss: lost ? "not in the ID3v1 genre list" : nil))
        }
        return Update(bytes: bytes, fields: fields)
    }

    /// Writes `text` into `range` of `bytes` (zero-padded); returns what the
    /// field holds and what was lost.
    @discardableResult
    private static func writeText(_ text: String?, into bytes: inout [UInt8], range: Range<Int>) -> (text: String?, loss: String?) {
        let converted = latin1(text ?? "")
        var encoded = converted.bytes
        var losses: [String] = []
        if converted.isLossy { losses.append("not Latin-1") }
        if encoded.count > range.count {
            encoded = Array(encoded.prefix(range.count))
            losses.append("cut to \(range.count) bytes")
        }
        bytes.replaceSubrange(range, with: encoded + [UInt8](repeating: 0, count: range.count - encoded.count))
        let written = ID3v1Parser.text(bytes[range])
        return (written.isEmpty ? nil : written, losses.isEmpty ? nil : losses.joined(separator: "; "))
    }

    /// Clear transliterations of characters beyond ISO-8859-1 that do not
    /// decompose into a Latin-1 letter and marks.
    private static let transliterations: [Character: String] = [
        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "ı": "i", "Ŀ": "L", "ŀ": "l",
        "Œ": "OE", "œ": "oe", "ẞ": "SS", "Ŋ": "N", "ŋ": "n", "Ŧ": "T", "ŧ": "t", "ſ": "s",
        "€": "EUR", "‘": "'", "’": "'", "‚": ",", "‛": "'", "“": "\"", "”": "\"", "„": "\"", "‹": "<", "›": ">",
        "–": "-", "—": "-", "‐": "-", "‑": "-", "−": "-", "…": "...", "•": "*", "™": "TM",
        "\u{2002}": " ", "\u{2003}": " ", "\u{2009}": " ", "\u{202F}": " ",
    ]

    /// `text` in ISO-8859-1, transliterated where needed; `isLossy` when any
    /// character was changed.
    ///
    /// As with the text in canonical composition (NFC) first: a character
    /// canonically equivalent to a Latin-1 one is that one ("e\u{301}" is
    /// "é", the Ångström sign "Å"). Swift compares and hashes characters by
    /// canonical equivalence, so ``latin1Characters`` finds it.
    static func latin1(_ text: String) -> (bytes: [UInt8], isLossy: Bool) {
        var bytes: [UInt8] = []
        var isLossy = false
        for character in text {
            let scalars = character.unicodeScalars
            if scalars.allSatisfy({ $0.value <= 0xFF }) {
                bytes += scalars.map { UInt8($0.value) }
                continue
            }
            if let byte = latin1Characters[character] {
                bytes.append(byte)
                continue
            }
            isLossy = true
            if let replacement = transliterations[character] {
                bytes += replacement.unicodeScalars.map { UInt8($0.value) }
                continue
            }
            // A letter with marks: the letter ("ő" → "o", "Ș" → "S"), the
            // characters of its canonical decomposition (NFD) that are not marks.
            var base: [UInt8] = []
            for scalar in scalars where !isMark(scalar) {
                if let letter = latin1Bases[scalar.value] {
                    base.append(letter)
                } else if scalar.value <= 0xFF {
                    base.append(UInt8(scalar.value))
                } else {
                    base = []
                    break
                }
            }
            bytes += base.isEmpty ? [0x3F] : base // "?"
        }
        return (bytes, isLossy)
    }

    /// Every Latin-1 character, by its byte.
    private static let latin1Characters: [Character: UInt8] = Dictionary(
        uniqueKeysWithValues: (0...0xFF).map { (Character(Unicode.Scalar(UInt8($0))), UInt8($0)) })

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: true
        default: false
        }
    }

    /// The first four consecutive digits of `text`, or "".
    static func year(_ text: String?) -> String {
        let characters = Array(text ?? "")
        var start = 0
        while start + 4 <= characters.count {
            let run = characters[start..<start + 4]
            if run.allSatisfy(\.isASCIIDigit) { return String(run) }
            start += 1
        }
        return ""
    }
}
