#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns one ``MetadataItem`` (key space `.id3`) into an ID3v2.3 or v2.4
/// frame: the reverse of ``ID3v2FrameDecoder``.
///
/// Keys are read as the decoder writes them: a frame ID, optionally followed
/// by `:` and the description or owner (`TXXX:MOOD`, `COMM:iTunNORM`,
/// `PRIV:owner`). The ID must already be a v2.3/v2.4 ID (see
/// ``ID3v2FrameMapping``).
///
/// Text encodings (ID3v2.4.0 structure §4, ID3v2.3.0 §3.3): ISO-8859-1 when
/// every character of the frame fits; otherwise UTF-8 in v2.4 and UTF-16
/// with a byte order mark in v2.3. Several values are null-separated in v2.4
/// (frames §4.2) and joined with "/" in v2.3 (ID3v2.3.0 §4.2).
///
/// Language codes (ID3v2.4.0 structure §4: ISO-639-2, "XXX" when unknown):
/// a missing language becomes "eng"; a stored code is written back as it was
/// read (see ``language(_:)``); anything longer becomes "XXX" rather than
/// failing the save.
enum ID3v2FrameEncoder {
    /// Largest frame payload written: a v2.4 frame size is a 28-bit syncsafe
    /// integer, and the whole tag must fit in one too (256 MiB).
    static let maximumPayload = Int(ID3v2Header.maximumSize)

    /// The frame ID and the description part of an item key.
    static func split(_ key: String) -> (id: String, description: String?) {
        guard let colon = key.firstIndex(of: ":") else { return (key, nil) }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }

    /// The whole frame (header and payload) for `item` under frame ID `id`.
    /// - Throws: `invalidValue` for a payload beyond ``maximumPayload``, a
    ///   POPM rating outside 0–255, a picture whose bytes can't be read, or a
    ///   typed value for a frame whose structure the encoder doesn't build
    ///   (e.g. `ETCO` from a string: such frames are written from `.data`).
    ///
    /// With `keepingEncoding`, text is written in the encoding the item's
    /// ``MetadataItem/dataType`` names when the version has it (an unchanged
    /// frame converted to another version keeps its encoding); otherwise the
    /// rule above applies.
    static func frame(id: String, item: MetadataItem, version: UInt8, keepingEncoding: Bool = false) throws -> [UInt8] {
        let preferred = keepingEncoding ? ID3TextEncoding(item.dataType) : nil
        return try frame(id: id, payload: try payload(id: id, item: item, version: version, preferred: preferred), version: version)
    }

    /// A frame header with no flags (ID3v2.4.0 structure §4.1, ID3v2.3.0
    /// §3.3) followed by `payload`.
    static func frame(id: String, payload: [UInt8], version: UInt8) throws -> [UInt8] {
        guard payload.count <= maximumPayload else {
            throw MediaError(.invalidValue, "the '\(id)' frame would be \(payload.count) bytes; ID3v2 holds at most \(maximumPayload)")
        }
        var writer = ByteWriter(capacity: payload.count + 10)
        writer.write(Array(id.utf8))
        if version == 4 { writer.writeSyncSafe(UInt32(payload.count)) } else { writer.write(UInt32(payload.count)) }
        writer.write(UInt16(0))
        writer.write(payload)
        return writer.bytes
    }

    /// The payload of frame `id` holding `item`.
    static func payload(id: String, item: MetadataItem, version: UInt8, preferred: ID3TextEncoding? = nil) throws -> [UInt8] {
        let key = split(item.key)
        let description = key.description ?? ""
        switch item.value {
        case .data(let data) where id == "SYLT" && version < 4 && data.first == ID3TextEncoding.utf8.rawValue:
            // UTF-8 lyrics (as SynchronizedLyrics builds them for v2.4) re-encoded for v2.3, which lacks UTF-8.
            guard let lyrics = SynchronizedLyrics(parsing: [UInt8](data)) else { return [UInt8](data) }
            return lyrics.payload(version: version)
        case .data(let data) where id == "CHAP" || id == "CTOC":
            // Embedded frames' sizes follow the tag's version (syncsafe in v2.4).
            return ID3EmbeddedFrame.adapt([UInt8](data), chapter: id == "CHAP", to: version)
        case .data(let data) where !(["PRIV", "UFID", "GEOB"].contains(id) && key.description != nil):
            return [UInt8](data) // unknown or undecodable frames: the payload as read
        case .picture(let artwork):
            guard id == "APIC" else { throw cannotHold(item, id) }
            return try picture(artwork, version: version)
        default:
            break
        }
        switch id {
        case "TXXX":
            return text([description] + values(item), version: version, separateFirst: true, preferred: preferred)
        case "WXXX":
            let encoding = self.encoding(for: [description], version: version, preferred: preferred)
            return [encoding.rawValue] + encode(description, encoding) + terminator(encoding)
                + latin1(item.value.stringValue ?? "")
        case "COMM", "USLT":
            let body = values(item).joined(separator: "\n")
            let encoding = self.encoding(for: [description, body], version: version, preferred: preferred)
            return [encoding.rawValue] + language(item.language) + encode(description, encoding)
                + terminator(encoding) + encode(body, encoding)
        case "PRIV" where item.key == XMPFields.id3Key:
            // An XMP packet: its text in UTF-8 (or its bytes as read).
            return latin1(description) + [0] + (try XMPFields.bytes(of: item))
        case "PRIV", "UFID":
            guard case .data(let data) = item.value else { throw cannotHold(item, id) }
            return latin1(description) + [0] + [UInt8](data)
        case "GEOB":
            guard case .data(let data) = item.value else { throw cannotHold(item, id) }
            // The item keeps only the description and the object: MIME type and file name are left empty.
            let encoding = self.encoding(for: [description], version: version, preferred: preferred)
            return [encoding.rawValue] + [0] + terminator(encoding) + encode(description, encoding)
                + terminator(encoding) + [UInt8](data)
        case "POPM":
            guard case .integer(let rating) = item.value, (0...255).contains(rating) else {
                throw MediaError(.invalidValue, "a POPM rating must be a whole number from 0 to 255")
            }
            return latin1(description) + [0, UInt8(rating)]
        case _ where ID3v2FrameDecoder.pairFrames.contains(id):
            // The version's encoding, but the list rule of v2.4 (null-separated) in every version.
            let encoding = self.encoding(for: values(item), version: version, preferred: preferred)
            return text(values(item), version: 4, separateFirst: false, preferred: encoding)
        case _ where id.hasPrefix("T") || ID3v2FrameDecoder.iTunesTextFrames.contains(id):
            return text(values(item), version: version, separateFirst: false, preferred: preferred)
        case _ where id.hasPrefix("W"):
            return latin1(item.value.stringValue ?? "")
        default:
            throw cannotHold(item, id) // a structured frame this writer can't build from a typed value
        }
    }

    private static func cannotHold(_ item: MetadataItem, _ id: String) -> MediaError {
        MediaError(
            .invalidValue,
            "an ID3v2 '\(id)' frame can't be written from the value of '\(item.key)': it holds binary data, not text (MetadataValue.data in the library)"
        )
    }

    /// The strings an item's value writes as.
    private static func values(_ item: MetadataItem) -> [String] {
        switch item.value {
        case .string(let value): return [value]
        case .strings(let values): return values.isEmpty ? [""] : values
        case .integer, .double, .numberPair: return [item.value.stringValue ?? ""]
        case .picture, .data: return [""]
        }
    }

    /// Encoding byte and strings of a text frame (frames §4.2). With
    /// `separateFirst`, the first string is a description (TXXX) that is
    /// always terminated; the values after it follow the version's list rule.
    private static func text(_ strings: [String], version: UInt8, separateFirst: Bool, preferred: ID3TextEncoding?) -> [UInt8] {
        var strings = strings
        if version < 4 {
            let head = separateFirst ? [strings.removeFirst()] : []
            strings = head + [strings.joined(separator: "/")]
        }
        let encoding = self.encoding(for: strings, version: version, preferred: preferred)
        var payload: [UInt8] = [encoding.rawValue]
        for (index, string) in strings.enumerated() {
            if index > 0 { payload += terminator(encoding) }
            payload += encode(string, encoding)
        }
        return payload
    }

    /// `APIC` (frames §4.14): encoding, MIME type, picture type, description, image.
    private static func picture(_ artwork: Artwork, version: UInt8) throws -> [UInt8] {
        let data: Data
        do {
            data = try artwork.readBytes()
        } catch {
            throw MediaError(.invalidValue, "the picture's bytes can't be read: \(error)")
        }
        let encoding = self.encoding(for: [artwork.description], version: version)
        return [encoding.rawValue] + latin1(artwork.mimeType) + [0, artwork.pictureType.rawValue]
            + encode(artwork.description, encoding) + terminator(encoding) + [UInt8](data)
    }

    /// `preferred` when the version has it and it holds the strings;
    /// otherwise ISO-8859-1 when every string fits, else UTF-8 (v2.4) or
    /// UTF-16 (v2.3).
    static func encoding(for strings: [String], version: UInt8, preferred: ID3TextEncoding? = nil) -> ID3TextEncoding {
        let fits = strings.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value <= 0xFF } }
        switch preferred {
        case .utf16?: return .utf16
        case .utf8? where version >= 4: return .utf8
        case .utf16BigEndian? where version >= 4: return .utf16BigEndian
        case .utf16BigEndian?: return .utf16
        default: return fits ? .latin1 : (version >= 4 ? .utf8 : .utf16)
        }
    }

    static func terminator(_ encoding: ID3TextEncoding) -> [UInt8] {
        [UInt8](repeating: 0, count: encoding.unitWidth)
    }

    /// `string` in `encoding`, without a terminator. UTF-16 gets a
    /// little-endian byte order mark (as most writers do).
    static func encode(_ string: String, _ encoding: ID3TextEncoding) -> [UInt8] {
        switch encoding {
        case .latin1: return latin1(string)
        case .utf8: return Array(string.utf8)
        case .utf16: return [0xFF, 0xFE] + string.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case .utf16BigEndian: return string.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
    }

    /// ISO-8859-1 bytes; characters beyond it become "?".
    static func latin1(_ string: String) -> [UInt8] {
        string.unicodeScalars.map { $0.value <= 0xFF ? UInt8($0.value) : 0x3F }
    }

    /// The three language bytes: "eng" when none is given (a new comment),
    /// three zero bytes for "", the code as given when it is three
    /// ISO-8859-1 characters ("XXX", "xxx", "ENG" stay as they are), and
    /// "XXX" for anything else.
    static func language(_ code: String?) -> [UInt8] {
        guard let code else { return Array("eng".utf8) }
        if code.isEmpty { return [0, 0, 0] }
        let scalars = Array(code.unicodeScalars)
        guard scalars.count == 3, scalars.allSatisfy({ $0.value <= 0xFF }) else {
            return Array("XXX".utf8)
        }
        return scalars.map { UInt8($0.value) }
    }
}
