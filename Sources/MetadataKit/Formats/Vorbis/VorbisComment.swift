#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Vorbis comment: the tag of Ogg Vorbis, Opus, Speex and FLAC files.
///
/// Layout (Vorbis I specification §5.2.1, "Comment header"; the same in
/// RFC 9639 §8.6 for FLAC's VORBIS_COMMENT block and RFC 7845 §5.2 for
/// `OpusTags`), all lengths 32-bit little-endian:
///
///     vendor_length, vendor_string (UTF-8)
///     user_comment_list_length
///     user_comment_list_length × (length, "NAME=value" in UTF-8)
///     [framing bit — Vorbis only, §5.2.1 step 8]
///
/// Field names are ASCII 0x20–0x7D except `=`, compared case-insensitively
/// (§5.2.2); a name may occur several times.
///
/// ### Items
/// Every field name becomes one ``MetadataItem`` in ``MetadataKeySpace/vorbis``
/// keyed by the UPPERCASED name, in order of first appearance: `.string` for one
/// value, `.strings` when the name repeats. `METADATA_BLOCK_PICTURE` fields
/// (base64 of a FLAC PICTURE block) become one `.picture` item each.
///
/// ### Vendor string
/// The vendor string names the encoder, not the music, so it is not an item:
/// it is kept out of ``Metadata/items`` and written back unchanged on save.
struct VorbisComment: Sendable, Hashable {
    /// The encoder's name, written back as read.
    var vendor: String
    /// Fields in file order, names as stored (fields without `=` are left out).
    var fields: [(name: String, value: String)]
    /// The vendor string's bytes as stored.
    var vendorBytes: [UInt8]
    /// Every field's bytes as stored, in order, fields without `=` included:
    /// what a save keeps for the fields nobody changed. (Slices of the
    /// comment's packet: a picture field is tens of kilobytes.)
    var storedFields: [ArraySlice<UInt8>]
    /// Damage read around: a count or length that claims more than the bytes
    /// hold, a missing framing bit (offsets as in the reader parsed from).
    var warnings: [MediaWarning] = []
    /// Whether the comment was read around damage (then a save may keep it
    /// as it is, but not rebuild it; see ``updated(for:picturesAsFields:)``).
    var isDamaged: Bool { !warnings.isEmpty }

    /// The key of pictures: `METADATA_BLOCK_PICTURE` (as written by the Xiph
    /// tools; FLAC PICTURE blocks use the same key here).
    static let pictureKey = "METADATA_BLOCK_PICTURE"
    /// Vendor string written when a file had no comment yet.
    static let defaultVendor = "MetadataKit"

    init(vendor: String, fields: [(name: String, value: String)] = []) {
        self.vendor = vendor
        self.fields = fields
        vendorBytes = Array(vendor.utf8)
        storedFields = fields.map { ArraySlice("\($0.name)=\($0.value)".utf8) }
    }

    static func == (a: VorbisComment, b: VorbisComment) -> Bool {
        a.vendor == b.vendor && a.fields.map { [$0.name, $0.value] } == b.fields.map { [$0.name, $0.value] }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(vendor)
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }

    // MARK: Parsing

    /// Whether `name` is a valid field name (Vorbis §5.2.2).
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7D && $0 != UInt8(ascii: "=") }
    }

    /// The comment's bytes (the vendor and fields as stored), with a framing
    /// bit when asked for. Names are checked where fields are made from items
    /// (``updated(for:picturesAsFields:)``), not here, so a
    /// field read from the file is written back as it was.
    func serialized(framingBit: Bool = false) throws -> [UInt8] {
        var writer = ByteWriter()
        guard vendorBytes.count <= Int(UInt32.max), storedFields.count <= Int(UInt32.max) else {
            throw MediaError(.invalidValue, "Vorbis comment too long")
        }
        writer.write(UInt32(vendorBytes.count), .little)
        writer.write(vendorBytes)
        writer.write(UInt32(storedFields.count), .little)
        for bytes in storedFields {
            guard bytes.count <= Int(UInt32.max) else { throw MediaError(.invalidValue, "Vorbis comment field too long") }
            writer.write(UInt32(bytes.count), .little)
            writer.write(bytes)
        }
        if framingBit { writer.write(UInt8(1)) }
        return writer.bytes
    }

    // MARK: Items

    /// The comment's fields as items (see the type's documentation). Picture
    /// fields that don't decode are kept as text.
    func items() -> [MetadataItem] {
        var items: [MetadataItem] = []
        items.reserveCapacity(fields.count)
        // A comment holds a few dozen fields: looking back through the items
        // beats hashing every name; a long one gets a dictionary.
        let hashed = fields.count > 32
        var positions: [String: Int] = [:]
        for field in fields {
            let key = Self.uppercasedName(field.name)
            if key == Self.pictureKey, let artwork = Self.decodePictureField(field.value) {
                items.append(
                    MetadataItem(keySpace: .vorbis, key: key, value: .picture(artwork), dataType: FLACPicture.dataType(of: artwork)))
                continue
            }
            let earlier =
                hashed
                ? positions[key]
                : items.firstIndex { item in
                    guard item.key == key else { return false }
                    if case .picture = item.value { return false } // a decoded picture takes no further value
                    return true
                }
            if let position = earlier {
                items[position].value = .strings(items[position].value.stringValues + [field.value])
            } else {
                if hashed { positions[key] = items.count }
                items.append(MetadataItem(keySpace: .vorbis, key: key, value: .string(field.value), dataType: .utf8))
            }
        }
        return items
    }

    /// `name` in upper case, as items are keyed. Names are ASCII by the
    /// spec (§5.2.3): their letters are mapped byte by byte, and a name with
    /// no lower-case letter is returned as it is; any other goes through
    /// `uppercased()`.
    static func uppercasedName(_ name: String) -> String {
        var name = name
        let kind = name.withUTF8 { bytes -> (ascii: Bool, lower: Bool) in
            var lower = false
            for byte in bytes {
                if byte >= 0x80 { return (false, false) }
                if byte >= 0x61 && byte <= 0x7A { lower = true }
            }
            return (true, lower)
        }
        guard kind.ascii else { return name.uppercased() }
        guard kind.lower else { return name }
        return String(unsafeUninitializedCapacity: name.utf8.count) { buffer in
            var count = 0
            for byte in name.utf8 {
                buffer[count] = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
                count += 1
            }
            return count
        }
    }
}

extension VorbisComment {
    /// Parses a comment from `reader`, strictly: the first damage
    /// ``init(parsing:framingBit:forgiving:)`` would read around is thrown.
    init(parsing reader: inout ByteReader, framingBit: Bool = false) throws {
        let comment = try VorbisComment(parsing: &reader, framingBit: framingBit, forgiving: true)
        if let first = comment.warnings.first { throw MediaError(first.code, first.message, offset: first.offset) }
        self = comment
    }
}

extension VorbisComment {
    /// Parses a comment from `reader`. With `framingBit`, the byte after the
    /// list must have its low bit set (Vorbis §5.2.1). Lengths and counts are
    /// checked against the bytes left, so no count can make it allocate more
    /// than the packet holds. A field without `=` is not an item (mutagen and
    /// libvorbis read it as invalid) but is kept in ``storedFields``.
    ///
    /// Forgiving: a vendor string, field count or field length that claims
    /// more than is left ends the comment there — the fields that fit are
    /// read and the problem is a warning at its offset (in ``warnings``); so
    /// is a missing framing bit. Only a comment too short for its vendor
    /// length field throws.
    init(parsing reader: inout ByteReader, framingBit: Bool, forgiving: Bool) throws {
        var comment = VorbisComment(vendor: "")
        let vendorOffset = reader.offset
        let vendorLength = Int(try reader.readUInt32(.little))
        guard vendorLength <= reader.remaining else {
            comment.warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "Vorbis comment vendor string of \(vendorLength) bytes, "
                        + "\(reader.remaining) left: no fields read", offset: vendorOffset))
            self = comment
            return
        }
        comment.vendorBytes = try reader.readBytes(vendorLength)
        comment.vendor = String(decoding: comment.vendorBytes, as: UTF8.self)
        let countOffset = reader.offset
        guard let count = try? Int(reader.readUInt32(.little)) else {
            comment.warnings.append(MediaWarning(.truncated, "Vorbis comment ends before its field count", offset: countOffset))
            self = comment
            return
        }
        if count > reader.remaining / 4 {
            comment.warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "Vorbis comment claims \(count) fields in \(reader.remaining) bytes; "
                        + "reading the fields that fit", offset: countOffset))
        }
        comment.storedFields.reserveCapacity(min(count, reader.remaining / 4))
        comment.fields.reserveCapacity(min(count, reader.remaining / 4))
        for index in 0..<count {
            let fieldOffset = reader.offset
            guard let length = try? Int(reader.readUInt32(.little)), length <= reader.remaining else {
                if !comment.isDamaged || reader.remaining > 0 {
                    comment.warnings.append(
                        MediaWarning(
                            .sizeOutOfRange,
                            "Vorbis comment field \(index + 1) of \(count) runs past "
                                + "the end of the comment; \(index) fields read", offset: fieldOffset))
                }
                try reader.skip(reader.remaining)
                self = comment
                return
            }
            let bytes = try reader.readSlice(length)
            comment.storedFields.append(bytes)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            comment.fields.append(
                (String(decoding: bytes[..<equals], as: UTF8.self), String(decoding: bytes[(equals + 1)...], as: UTF8.self)))
        }
        if framingBit {
            if let framing = reader.peekUInt8(), framing & 1 == 1 {
                try reader.skip(1)
            } else {
                comment.warnings.append(MediaWarning(.malformed, "Vorbis comment header without its framing bit", offset: reader.offset))
            }
        }
        self = comment
    }
}
