#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns the payload of one ID3v2 frame into a ``MetadataItem`` (key space `.id3`).
///
/// Keys are frame IDs as stored (v2.2 three-letter IDs stay as they are).
/// Frames that several instances may share by description get the
/// description in the key: `TXXX:<desc>`, `WXXX:<desc>`, `COMM:<desc>`
/// (plain `COMM` for an empty description), `USLT`, `PRIV:<owner>`,
/// `UFID:<owner>`, `POPM:<email>`, `GEOB:<desc>`, `RVA2:<identification>`
/// (its payload as `.data`, see ``ID3RelativeVolume``). Everything not understood
/// is kept as `.data` with the frame ID as key.
enum ID3v2FrameDecoder {
    /// The v2.2 IDs of the structured frames, mapped to their v2.3 names.
    private static let v22Kinds: [String: String] = [
        "TXX": "TXXX", "WXX": "WXXX", "COM": "COMM", "ULT": "USLT", "UFI": "UFID",
        "POP": "POPM", "GEO": "GEOB", "PIC": "APIC", "CRM": "ENCR",
    ]

    /// The v2.3/v2.4 name of the structure of frame `id` (v2.2 IDs mapped).
    static func kind(of id: String) -> String {
        id.utf8.count == 3 ? (v22Kinds[id] ?? id) : id
    }

    /// iTunes' text frames outside the T-frame IDs (grouping, movement name,
    /// movement number; v2.2 `GP1`, `MVN`, `MVI`): text information frames in
    /// v2.3 and v2.4 alike, as iTunes, Picard and mutagen read and write them.
    static let iTunesTextFrames: [String] = ["GRP1", "MVNM", "MVIN", "GP1", "MVN", "MVI"]

    /// Frames of role/name pairs: `TIPL`, `TMCL` (ID3v2.4.0 frames §4.2.2) and
    /// ID3v2.3's `IPLS` (§4.4, v2.2 `IPL`), laid out as a text frame. Their
    /// strings are null-separated in every version (never joined by "/").
    static let pairFrames: [String] = ["TIPL", "TMCL", "IPLS", "IPL"]

    /// True for picture frames (`APIC`, v2.2 `PIC`).
    static func isPicture(_ id: String) -> Bool {
        id == "APIC" || id == "PIC"
    }

    /// An item holding the raw payload.
    static func binary(_ id: String, _ payload: [UInt8]) -> MetadataItem {
        MetadataItem(keySpace: .id3, key: id, value: .data(Data(payload)), dataType: .binary)
    }

    /// The item for frame `id` whose (decoded) payload is `payload`. Pictures
    /// are handled by ``ID3v2PictureHeader``; a frame too malformed to decode
    /// is kept as binary.
    static func item(id: String, payload: [UInt8]) -> MetadataItem {
        let kind = kind(of: id)
        let decoded: MetadataItem?
        // Compared as four-character codes: a string comparison per case cost more
        // than decoding most frames. The structured kinds all have four characters;
        // a v2.2 ID left as it is matches none. (The cases are the codes' values:
        // FourCC literals in a pattern are made at run time, one per case tried.)
        switch (FourCC(kind) ?? FourCC(0)).rawValue {
        case 0x5458_5858: decoded = userText(id, payload) // TXXX
        case 0x5758_5858: decoded = userURL(id, payload) // WXXX
        case 0x434F_4D4D, 0x5553_4C54: decoded = comment(id, payload) // COMM, USLT
        case 0x5052_4956, 0x5546_4944: decoded = owned(id, payload) // PRIV, UFID
        case 0x504F_504D: decoded = popularimeter(id, payload) // POPM
        case 0x4745_4F42: decoded = object(id, payload) // GEOB
        case 0x5256_4132: decoded = ID3RelativeVolume.item(id: id, payload: payload) // RVA2
        case _ where kind.utf8.first == UInt8(ascii: "T") || iTunesTextFrames.contains(id) || pairFrames.contains(id):
            decoded = text(id, payload)
        case _ where kind.utf8.first == UInt8(ascii: "W"):
            decoded = MetadataItem(keySpace: .id3, key: id, value: .string(ID3Text.latin1(payload[...])), dataType: .latin1)
        default: decoded = nil
        }
        return decoded ?? binary(id, payload)
    }

    /// The encoding byte at the start of `payload`; nil for an empty payload or
    /// an unknown encoding.
    private static func encoding(_ payload: [UInt8]) -> ID3TextEncoding? {
        payload.first.flatMap(ID3TextEncoding.init(rawValue:))
    }

    /// Text information frames (ID3v2.4.0 frames §4.2): encoding, then strings
    /// separated by terminators (several values only in v2.4, but accepted in all).
    private static func text(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let encoding = encoding(payload) else { return nil }
        return MetadataItem(
            keySpace: .id3, key: id, value: ID3Text.decodeValue(payload[1...], encoding: encoding), dataType: encoding.dataType)
    }

    /// `TXXX` (frames §4.2.6): encoding, description, value(s).
    private static func userText(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let encoding = encoding(payload) else { return nil }
        var index = 1
        var order: Endianness?
        guard let description = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order) else {
            // No terminator: all of it is the description, the value is empty.
            let description = ID3Text.decode(payload[1...], encoding: encoding, byteOrder: &order)
            return MetadataItem(keySpace: .id3, key: "\(id):\(description)", value: .string(""), dataType: encoding.dataType)
        }
        let value = ID3Text.decodeValue(payload[min(index, payload.count)...], encoding: encoding)
        return MetadataItem(keySpace: .id3, key: "\(id):\(description)", value: value, dataType: encoding.dataType)
    }

    /// `WXXX` (frames §4.3.2): encoding, description, URL in ISO-8859-1.
    private static func userURL(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let encoding = encoding(payload) else { return nil }
        var index = 1
        var order: Endianness?
        guard let description = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order) else { return nil }
        let url = ID3Text.latin1(payload[min(index, payload.count)...])
        return MetadataItem(keySpace: .id3, key: "\(id):\(description)", value: .string(url), dataType: .latin1)
    }

    /// `COMM` and `USLT` (frames §4.10, §4.8; v2.2 `COM`, `ULT`): encoding,
    /// language (3 bytes), short description, text. The item's language is
    /// the three bytes as stored ("" for three zero bytes).
    private static func comment(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let encoding = encoding(payload), payload.count >= 4 else { return nil }
        // The three bytes as stored ("XXX", "xxx" and zeros included: a save
        // that re-encodes the frame writes them back); all zeros read as "".
        let code = payload[1..<4]
        let language = code.allSatisfy { $0 == 0 } ? "" : ID3Text.latin1Scalars(code)
        var index = 4
        var order: Endianness?
        guard let description = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order) else {
            // No terminator: the whole rest is the description, the text is empty.
            let description = ID3Text.decode(payload[4...], encoding: encoding, byteOrder: &order)
            return MetadataItem(
                keySpace: .id3, key: description.isEmpty ? id : "\(id):\(description)",
                value: .string(""), dataType: encoding.dataType, language: language)
        }
        let text = ID3Text.decode(payload[min(index, payload.count)...], encoding: encoding, byteOrder: &order)
        return MetadataItem(
            keySpace: .id3, key: description.isEmpty ? id : "\(id):\(description)",
            value: .string(text), dataType: encoding.dataType, language: language)
    }

    /// `PRIV` (frames §4.27) and `UFID` (§4.1): owner identifier in ISO-8859-1, then bytes.
    private static func owned(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let zero = payload.firstIndex(of: 0) else { return nil }
        let owner = ID3Text.latin1(payload[..<zero])
        if id == "PRIV", owner == "XMP" {
            // An XMP packet (as exiftool reads it): the text, when it is UTF-8.
            return XMPFields.item(.id3, key: XMPFields.id3Key, bytes: Array(payload[(zero + 1)...]))
        }
        return MetadataItem(keySpace: .id3, key: "\(id):\(owner)", value: .data(Data(payload[(zero + 1)...])), dataType: .binary)
    }

    /// `POPM` (frames §4.17): e-mail in ISO-8859-1, rating byte, optional play
    /// counter. The value is the rating (0–255).
    private static func popularimeter(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let zero = payload.firstIndex(of: 0), zero + 1 < payload.count else { return nil }
        let email = ID3Text.latin1(payload[..<zero])
        return MetadataItem(
            keySpace: .id3, key: "\(id):\(email)", value: .integer(Int64(payload[zero + 1])),
            dataType: .unsignedInteger)
    }

    /// `GEOB` (frames §4.15): encoding, MIME type, file name, description, object.
    /// The value is the object's bytes.
    private static func object(_ id: String, _ payload: [UInt8]) -> MetadataItem? {
        guard let encoding = encoding(payload), let mimeEnd = payload[1...].firstIndex(of: 0) else { return nil }
        var index = mimeEnd + 1
        var order: Endianness?
        guard ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order) != nil,
            let description = ID3Text.readTerminated(payload, at: &index, encoding: encoding, byteOrder: &order)
        else { return nil }
        return MetadataItem(
            keySpace: .id3, key: "\(id):\(description)",
            value: .data(Data(payload[min(index, payload.count)...])), dataType: .binary)
    }
}

/// The fields of an `APIC` frame before the image (ID3v2.4.0 frames §4.14),
/// or of a v2.2 `PIC` frame (ID3v2.2.0 §4.15: a three-letter image format
/// instead of the MIME type).
struct ID3v2PictureHeader {
    var encoding: ID3TextEncoding
    /// The MIME type, or the v2.2 image format ("JPG", "PNG").
    var format: String
    var pictureType: UInt8
    var description: String
    /// Bytes from the start of the payload to the image.
    var length: Int

    /// Parses the fields from the first bytes of the payload. Nil when they do
    /// not fit in `bytes` (read more, or, with the whole payload, give up).
    init?(_ bytes: [UInt8], legacy: Bool) {
        guard let first = bytes.first, let encoding = ID3TextEncoding(rawValue: first) else { return nil }
        var index = 1
        if legacy {
            guard bytes.count >= 5 else { return nil }
            format = ID3Text.latin1(bytes[1..<4])
            index = 4
        } else {
            guard let zero = bytes[1...].firstIndex(of: 0) else { return nil }
            format = ID3Text.latin1(bytes[1..<zero])
            index = zero + 1
        }
        guard index < bytes.count else { return nil }
        pictureType = bytes[index]
        index += 1
        var order: Endianness?
        guard let description = ID3Text.readTerminated(bytes, at: &index, encoding: encoding, byteOrder: &order) else { return nil }
        self.encoding = encoding
        self.description = description
        self.length = index
    }

    /// The item for a picture frame `id`, its image already made into `artwork`.
    static func item(id: String, artwork: Artwork) -> MetadataItem {
        let type: MetadataDataType =
            switch artwork.mimeType {
            case "image/jpeg": .jpeg
            case "image/png": .png
            case "image/gif": .gif
            case "image/bmp": .bmp
            default: .binary
            }
        return MetadataItem(keySpace: .id3, key: id, value: .picture(artwork), dataType: type)
    }
}
