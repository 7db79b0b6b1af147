#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A chunk made of fixed-size fields followed by free text to the chunk's
/// end: the `bext` chunk (EBU Tech 3285) and the `cart` chunk (AES46) are
/// both laid out this way, little-endian.
///
/// Read: each field becomes a raw item when it holds something (see
/// ``Field/Kind``); a chunk shorter than its fixed part gives the fields that
/// fit whole and the text of a text field it cuts, with a warning at the
/// chunk's offset.
///
/// Written: the new payload starts from the old one, and only the fields
/// whose item changed are encoded again; every other byte (reserved bytes,
/// text after a field's NUL, an unknown field) stays as it was. A value that
/// doesn't fit its field is refused (`invalidValue`, naming the field and
/// its size) before anything is written.
struct BroadcastRecord: Sendable {
    /// One fixed field.
    struct Field: Sendable {
        /// How a field's bytes hold its value.
        enum Kind: Sendable {
            /// Text, NUL-padded: an item when not empty (UTF-8 when valid, else ISO 8859-1).
            case text
            /// Unsigned little-endian integer of the field's length; an item when not 0.
            case unsigned
            /// Unsigned integer always shown (a version number).
            case version
            /// Signed 32-bit integer; an item when not 0.
            case signed
            /// Signed 16-bit hundredths (LUFS, LU, dBTP): "-23.00"; no item for 0x7FFF (unset).
            case hundredths
            /// Bytes as hexadecimal; no item when all are 0, and only the first
            /// half when the second is all 0 (a SMPTE 330M basic UMID of 32
            /// bytes in a 64-byte field, as exiftool shows it).
            case hex
            /// An AES46 post timer: a FOURCC usage and a UInt32 sample count,
            /// as `USAGE=count`; no item when the usage is zero.
            case postTimer
        }
        var key: String
        var offset: Int
        var length: Int
        var kind: Kind
        /// The lowest chunk version the field is read from (bext loudness: 2).
        var minimumVersion = 0
    }

    var id: FourCC
    var keySpace: MetadataKeySpace
    /// Length of the fixed part.
    var fixedLength: Int
    var fields: [Field]
    /// The field whose number gates ``Field/minimumVersion``.
    var versionKey: String?
    /// The key of the free text after the fixed part.
    var tailKey: String
    /// Values a new chunk gets for fields no item sets (the version).
    var newChunkDefaults: [String: String] = [:]

    /// The items of a chunk payload, and a warning when it is shorter than the fixed part.
    func items(of payload: [UInt8], at offset: Int64) -> (items: [MetadataItem], warning: MediaWarning?) {
        var items: [MetadataItem] = []
        var version = 0
        if let versionKey, let field = fields.first(where: { $0.key == versionKey }), field.offset + field.length <= payload.count {
            version = Int(Self.unsigned(payload, field))
        }
        for field in fields where version >= field.minimumVersion {
            // A text field the chunk cuts gives what it holds; other fields must be whole.
            let fits = field.offset + field.length <= payload.count || (field.kind == .text && field.offset < payload.count)
            if fits, let item = item(field, payload) { items.append(item) }
        }
        if payload.count > fixedLength {
            let text = IFFText.decode(Array(payload[fixedLength...]))
            if !text.text.isEmpty {
                items.append(MetadataItem(keySpace: keySpace, key: tailKey, value: .string(text.text), dataType: text.type))
            }
        }
        var warning: MediaWarning?
        if payload.count < fixedLength {
            warning = MediaWarning(
                .malformed,
                "'\(id)' chunk of \(payload.count) bytes is shorter than its \(fixedLength)-byte fixed part; the fields past it are not read",
                offset: offset)
        }
        return (items, warning)
    }

    private func item(_ field: Field, _ payload: [UInt8]) -> MetadataItem? {
        let bytes = Array(payload[field.offset..<min(field.offset + field.length, payload.count)])
        func make(_ text: String, _ type: MetadataDataType = .utf8) -> MetadataItem {
            MetadataItem(keySpace: keySpace, key: field.key, value: .string(text), dataType: type)
        }
        switch field.kind {
        case .text:
            let text = IFFText.decode(bytes)
            return text.text.isEmpty ? nil : make(text.text, text.type)
        case .unsigned:
            let value = Self.unsigned(payload, field)
            return value == 0 ? nil : make(String(value))
        case .version:
            return make(String(Self.unsigned(payload, field)))
        case .signed:
            let value = Int32(bitPattern: UInt32(truncatingIfNeeded: Self.unsigned(payload, field)))
            return value == 0 ? nil : make(String(value))
        case .hundredths:
            let value = Int16(bitPattern: UInt16(truncatingIfNeeded: Self.unsigned(payload, field)))
            return value == Int16.max ? nil : make(Self.hundredthsText(value))
        case .hex:
            guard bytes.contains(where: { $0 != 0 }) else { return nil }
            let half = bytes.count / 2
            let shown = bytes[half...].allSatisfy { $0 == 0 } ? bytes[..<half] : bytes[...]
            return make(shown.map { String(cFormat: "%02X", $0) }.joined())
        case .postTimer:
            guard bytes[0..<4].contains(where: { $0 != 0 }) else { return nil }
            let usage = IFFText.decode(Array(bytes[0..<4])).text
            let count = UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
            return make("\(usage)=\(count)")
        }
    }

    static func unsigned(_ payload: [UInt8], _ field: Field) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<min(field.length, 8)).reversed() { value = value << 8 | UInt64(payload[field.offset + index]) }
        return value
    }

    /// "-23.00", "0.50": hundredths with two decimals.
    static func hundredthsText(_ value: Int16) -> String {
        let magnitude = abs(Int(value))
        return (value < 0 ? "-" : "") + "\(magnitude / 100)." + String(cFormat: "%02d", magnitude % 100)
    }

    /// The new payload for `items` (this record's key space only), starting
    /// from `old` (nil: a new chunk, zero-filled); nil when nothing changed.
    /// Fields whose item is the same as read from `old` keep their bytes.
    func payload(for items: [MetadataItem], old: [UInt8]?) throws -> [UInt8]? {
        var wanted = items.filter { $0.keySpace == keySpace }
        let setsVersion = old == nil && wanted.contains { $0.key == versionKey }
        if old == nil {
            for (key, value) in newChunkDefaults.sorted(by: { $0.key < $1.key }) where !wanted.contains(where: { $0.key == key }) {
                wanted.append(MetadataItem(keySpace: keySpace, key: key, value: .string(value), dataType: .utf8))
            }
        }
        let base = old ?? []
        let read = self.items(of: base, at: 0).items
        if old != nil, wanted == read { return nil }
        var payload = base
        if payload.count < fixedLength { payload += [UInt8](repeating: 0, count: fixedLength - payload.count) }
        if let unknown = wanted.first(where: { item in item.key != tailKey && !fields.contains { $0.key == item.key } }) {
            let known = (fields.map(\.key) + [tailKey]).joined(separator: ", ")
            throw MediaError(.invalidValue, "'\(id)' has no field '\(unknown.key)' (its fields: \(known))")
        }
        for field in fields {
            let new = wanted.last { $0.key == field.key }
            guard new != read.last(where: { $0.key == field.key }) else { continue }
            let bytes = try encode(new, field)
            payload.replaceSubrange(field.offset..<field.offset + field.length, with: bytes)
        }
        // A field of a later version than the chunk's (bext loudness in a v1 chunk) raises the version, unless it is set too.
        if let versionKey, let versionField = fields.first(where: { $0.key == versionKey }),
            old == nil ? !setsVersion : wanted.last(where: { $0.key == versionKey }) == read.last(where: { $0.key == versionKey })
        {
            let version = Self.unsigned(payload, versionField)
            let needed =
                fields.filter { field in field.minimumVersion > 0 && wanted.contains { $0.key == field.key } }.map(\.minimumVersion).max()
                ?? 0
            if UInt64(needed) > version {
                payload.replaceSubrange(
                    versionField.offset..<versionField.offset + versionField.length,
                    with: Self.littleEndian(UInt64(needed), versionField.length))
            }
        }
        let newTail = wanted.last { $0.key == tailKey }
        if newTail != read.last(where: { $0.key == tailKey }) {
            let text = try newTail.map { try Self.text(of: $0) } ?? ""
            payload = Array(payload[..<fixedLength]) + Array(text.utf8)
        }
        return payload
    }

    private func encode(_ item: MetadataItem?, _ field: Field) throws -> [UInt8] {
        let name = "\(keySpace.rawValue):\(field.key)"
        guard let item else { return [UInt8](repeating: 0, count: field.length) }
        let text = try Self.text(of: item)
        switch field.kind {
        case .text:
            let bytes = Array(text.utf8)
            guard bytes.count <= field.length else {
                throw MediaError(.invalidValue, "\(name) holds at most \(field.length) bytes of text; got \(bytes.count)")
            }
            return bytes + [UInt8](repeating: 0, count: field.length - bytes.count)
        case .unsigned, .version:
            let limit = field.length >= 8 ? UInt64.max : (UInt64(1) << UInt64(8 * field.length)) - 1
            guard let value = UInt64(text.trimmingWhitespace()), value <= limit else {
                throw MediaError(.invalidValue, "\(name) must be a whole number from 0 to \(limit); got '\(text)'")
            }
            return Self.littleEndian(value, field.length)
        case .signed:
            guard let value = Int32(text.trimmingWhitespace()) else {
                throw MediaError(.invalidValue, "\(name) must be a whole number from \(Int32.min) to \(Int32.max); got '\(text)'")
            }
            return Self.littleEndian(UInt64(UInt32(bitPattern: value)), 4)
        case .hundredths:
            guard let number = Double(text.trimmingWhitespace()), number.isFinite, abs(number * 100) < 32767 else {
                throw MediaError(.invalidValue, "\(name) must be a number from -327.66 to 327.66 (stored in hundredths); got '\(text)'")
            }
            let value = Int16((number * 100).rounded())
            return Self.littleEndian(UInt64(UInt16(bitPattern: value)), 2)
        case .hex:
            let digits = Array(text.trimmingWhitespace().utf8)
            var bytes: [UInt8] = []
            if digits.count <= 2 * field.length, digits.count % 2 == 0 {
                for index in stride(from: 0, to: digits.count, by: 2) {
                    guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { break }
                    bytes.append(byte)
                }
            }
            guard bytes.count * 2 == digits.count else {
                throw MediaError(.invalidValue, "\(name) must be up to \(field.length) bytes in hexadecimal; got '\(text)'")
            }
            return bytes + [UInt8](repeating: 0, count: field.length - bytes.count)
        case .postTimer:
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].utf8.count == 4, parts[0].unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }),
                let count = UInt32(parts[1].trimmingWhitespace())
            else {
                throw MediaError(
                    .invalidValue, "\(name) must be USAGE=samples with a four-character usage (e.g. SEGs=441000); got '\(text)'")
            }
            return Array(parts[0].utf8) + Self.littleEndian(UInt64(count), 4)
        }
    }

    static func littleEndian(_ value: UInt64, _ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    /// An item's text; throws for a value that isn't text or holds NUL.
    static func text(of item: MetadataItem) throws -> String {
        guard let text = item.value.stringValues.isEmpty ? item.value.stringValue : item.value.stringValues.joined(separator: "; ") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) must be text")
        }
        guard !text.unicodeScalars.contains("\0") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) can't hold a NUL character")
        }
        return text
    }
}
