import Foundation

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
    /// Fields in file order, names as stored.
    var fields: [(name: String, value: String)]

    /// The key of pictures: `METADATA_BLOCK_PICTURE` (as written by the Xiph
    /// tools; FLAC PICTURE blocks use the same key here).
    static let pictureKey = "METADATA_BLOCK_PICTURE"
    /// Vendor string written when a file had no comment yet.
    static let defaultVendor = "MetadataKit"

    init(vendor: String, fields: [(name: String, value: String)] = []) {
        self.vendor = vendor
        self.fields = fields
    }

    static func == (a: VorbisComment, b: VorbisComment) -> Bool {
        a.vendor == b.vendor && a.fields.map { [$0.name, $0.value] } == b.fields.map { [$0.name, $0.value] }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(vendor)
        for field in fields { hasher.combine(field.name); hasher.combine(field.value) }
    }

    // MARK: Parsing

    /// Parses a comment from `reader`. With `framingBit`, the byte after the
    /// list must have its low bit set (Vorbis §5.2.1). Lengths and counts are
    /// checked against the bytes left, so no count can make it allocate more
    /// than the packet holds. A field without `=` is skipped (mutagen and
    /// libvorbis read it as invalid).
    static func parse(_ reader: inout ByteReader, framingBit: Bool = false) throws -> VorbisComment {
        let vendorLength = Int(try reader.readUInt32(.little))
        guard vendorLength <= reader.remaining else {
            throw reader.error(.sizeOutOfRange, "Vorbis comment vendor string of \(vendorLength) bytes, \(reader.remaining) left")
        }
        let vendor = String(decoding: try reader.readBytes(vendorLength), as: UTF8.self)
        let count = Int(try reader.readUInt32(.little))
        guard count <= reader.remaining / 4 else {
            throw reader.error(.sizeOutOfRange, "Vorbis comment claims \(count) fields in \(reader.remaining) bytes")
        }
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let length = Int(try reader.readUInt32(.little))
            guard length <= reader.remaining else {
                throw reader.error(.sizeOutOfRange, "Vorbis comment field of \(length) bytes, \(reader.remaining) left")
            }
            let bytes = try reader.readBytes(length)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: bytes[..<equals], as: UTF8.self)
            let value = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
            fields.append((name, value))
        }
        if framingBit {
            guard let framing = reader.peekUInt8(), framing & 1 == 1 else {
                throw reader.error(.malformed, "Vorbis comment header without its framing bit")
            }
            try reader.skip(1)
        }
        return VorbisComment(vendor: vendor, fields: fields)
    }

    /// Whether `name` is a valid field name (Vorbis §5.2.2).
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7D && $0 != UInt8(ascii: "=") }
    }

    /// The comment's bytes, with a framing bit when asked for.
    func serialized(framingBit: Bool = false) throws -> [UInt8] {
        var writer = ByteWriter()
        let vendorBytes = Array(vendor.utf8)
        writer.write(UInt32(vendorBytes.count), .little)
        writer.write(vendorBytes)
        writer.write(UInt32(fields.count), .little)
        for field in fields {
            guard Self.isValidName(field.name) else {
                throw MediaError(.invalidValue, "'\(field.name)' is not a valid Vorbis comment field name (ASCII 0x20–0x7D without '=')")
            }
            let bytes = Array("\(field.name)=\(field.value)".utf8)
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
        var positions: [String: Int] = [:]
        for field in fields {
            let key = field.name.uppercased()
            if key == Self.pictureKey, let artwork = Self.decodePictureField(field.value) {
                items.append(MetadataItem(keySpace: .vorbis, key: key, value: .picture(artwork), dataType: FLACPicture.dataType(of: artwork)))
                continue
            }
            if let position = positions[key] {
                items[position].value = .strings(items[position].value.stringValues + [field.value])
            } else {
                positions[key] = items.count
                items.append(MetadataItem(keySpace: .vorbis, key: key, value: .string(field.value), dataType: .utf8))
            }
        }
        return items
    }

    /// A base64 `METADATA_BLOCK_PICTURE` value as a picture held in memory.
    static func decodePictureField(_ value: String) -> Artwork? {
        guard let data = Data(base64Encoded: value, options: .ignoreUnknownCharacters) else { return nil }
        var reader = ByteReader(data)
        return try? FLACPicture.parse(&reader).artwork()
    }

    /// The fields that store `items` (the `.vorbis` ones; others are ignored),
    /// in item order. Pictures become `METADATA_BLOCK_PICTURE` fields unless
    /// `picturesAsFields` is false (FLAC keeps them in PICTURE blocks).
    /// `originalPictures` maps pictures read from the file to their field
    /// text, so an unchanged picture is written back byte for byte.
    static func fields(for items: [MetadataItem], picturesAsFields: Bool,
                       originalPictures: [Artwork: String] = [:]) throws -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for item in items where item.keySpace == .vorbis {
            guard isValidName(item.key) else {
                throw MediaError(.invalidValue, "'\(item.key)' is not a valid Vorbis comment field name (ASCII 0x20–0x7D without '=')")
            }
            switch item.value {
            case .string(let text): fields.append((item.key, text))
            case .strings(let texts): fields += texts.map { (item.key, $0) }
            case .integer, .double, .numberPair: fields.append((item.key, item.value.stringValue ?? ""))
            case .picture(let artwork):
                guard picturesAsFields else { continue }
                if let original = originalPictures[artwork] {
                    fields.append((pictureKey, original))
                } else {
                    fields.append((pictureKey, Data(try FLACPicture(artwork: artwork).serialized()).base64EncodedString()))
                }
            case .data:
                throw MediaError(.invalidValue, "Vorbis comments hold text, not bytes ('\(item.key)')")
            }
        }
        return fields
    }

    /// The original text of every picture field that decodes, by picture.
    func picturesByValue() -> [Artwork: String] {
        var result: [Artwork: String] = [:]
        for field in fields where field.name.uppercased() == Self.pictureKey {
            if let artwork = Self.decodePictureField(field.value), result[artwork] == nil { result[artwork] = field.value }
        }
        return result
    }
}
