#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One `data` atom of a metadata item (QTFF "Metadata item data atom";
/// iTunes `ilst` items use the same layout):
///
/// ```
/// u32 size, 'data'
/// u8  type set (0 = well-known types)
/// u24 type        well-known data type (1 UTF-8, 2 UTF-16BE, 13 JPEG, 21 int, ...)
/// u16 country     } the locale; iTunes writes zeros
/// u16 language    }
/// ...             the value
/// ```
///
/// The value is loaded only when it is not a picture: picture bytes stay in
/// the file and become an ``Artwork`` that reads them on demand.
struct MP4DataAtom {
    /// The well-known type (the u24 after the type-set byte).
    var type: UInt32
    /// The type-set byte; non-zero means a type namespace other than well-known.
    var typeSet: UInt8
    var country: UInt16
    var language: UInt16
    /// File offset and size of the value.
    var valueOffset: Int64
    var valueSize: Int

    /// Header fields after the box header: type (4) + locale (4).
    static let fieldsSize: Int64 = 8

    /// Reads the fields of the `data` box `header` (not the value).
    init(_ header: MP4BoxHeader, in source: FileSource) throws {
        guard header.payloadSize >= Self.fieldsSize else {
            throw MediaError(.malformed, "'data' atom of \(header.size) bytes is too small for its type and locale", offset: header.offset)
        }
        // Big-endian u8 type set, u24 type, u16 country, u16 language, read in place (no array).
        (typeSet, type, country, language) = try source.withBytes(at: header.payloadOffset, count: Int(Self.fieldsSize)) { raw in
            (
                raw[0], UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8 | UInt32(raw[3]),
                UInt16(raw[4]) << 8 | UInt16(raw[5]), UInt16(raw[6]) << 8 | UInt16(raw[7])
            )
        }
        valueOffset = header.payloadOffset + Self.fieldsSize
        valueSize = Int(header.payloadSize - Self.fieldsSize)
    }

    /// Picture types: 12 GIF, 13 JPEG, 14 PNG, 27 BMP.
    var isPicture: Bool { typeSet == 0 && (type == 12 || type == 13 || type == 14 || type == 27) }

    /// The MIME type of a picture type; nil (sniff the bytes) otherwise.
    var pictureMIMEType: String? {
        switch type {
        case 12: return "image/gif"
        case 13: return "image/jpeg"
        case 14: return "image/png"
        case 27: return "image/bmp"
        default: return nil
        }
    }

    /// Loads the value bytes.
    func value(in source: FileSource) throws -> [UInt8] {
        try source.getBytes(at: valueOffset, count: valueSize)
    }

    /// The value as an ``Artwork`` whose bytes stay in the file; the MIME type
    /// comes from the data type, or from the image header for other types.
    func artwork(source: FileSource, url: URL) -> (MetadataValue, MetadataDataType) {
        let artwork = Artwork(
            source: source, url: url, offset: valueOffset, byteCount: valueSize,
            mimeType: pictureMIMEType, pictureType: .frontCover, description: "")
        let dataType: MetadataDataType
        if isPicture {
            dataType = .quickTime(wellKnownType: type)
        } else {
            switch artwork.mimeType {
            case "image/jpeg": dataType = .jpeg
            case "image/png": dataType = .png
            case "image/gif": dataType = .gif
            case "image/bmp": dataType = .bmp
            default: dataType = .binary
            }
        }
        return (.picture(artwork), dataType)
    }

    /// Decodes a non-picture value by its well-known type. `implicitInteger`
    /// says whether a type-0 ("implicit") value is an integer (iTunes `tmpo`,
    /// `cpil`, `stik`, …). Returns `.data` for types it does not decode.
    func decode(_ bytes: [UInt8], implicitInteger: Bool) -> (MetadataValue, MetadataDataType) {
        // Made only when needed: most values are text, and copying their bytes into a `Data` cost every read.
        func binary() -> (MetadataValue, MetadataDataType) {
            (.data(Data(bytes)), typeSet == 0 ? .quickTime(wellKnownType: type) : .binary)
        }
        guard typeSet == 0 else { return binary() }
        switch type {
        case 1, 4:
            return (.string(MP4Text.utf8(bytes)), .utf8)
        case 2, 5:
            return (.string(MP4Text.utf16BigEndian(bytes)), .utf16BigEndian)
        case 3:
            guard let text = String(bytes: MP4Text.trimmingNULs(bytes), encoding: .shiftJIS) else { return binary() }
            return (.string(text), .shiftJIS)
        case 21, 65, 66, 67, 74:
            guard let number = MP4Integer.signed(bytes) else { return binary() }
            return (.integer(number), .signedInteger)
        case 22, 75, 76, 77, 78:
            guard let number = MP4Integer.unsigned(bytes) else { return binary() }
            return (.integer(number), .unsignedInteger)
        case 23 where bytes.count == 4:
            let bits = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return (.double(Double(Float(bitPattern: bits))), .float32)
        case 24 where bytes.count == 8:
            let bits = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return (.double(Double(bitPattern: bits)), .float64)
        case 0 where implicitInteger:
            guard let number = MP4Integer.signed(bytes) else { return binary() }
            return (.integer(number), .signedInteger)
        default:
            return binary()
        }
    }
}

/// Big-endian integers of 1–8 bytes, as metadata values store them.
enum MP4Integer {
    /// A signed big-endian integer of 1–8 bytes; nil for other lengths.
    static func signed(_ bytes: [UInt8]) -> Int64? {
        guard (1...8).contains(bytes.count) else { return nil }
        let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let shift = UInt64(64 - 8 * bytes.count)
        return Int64(bitPattern: raw << shift) >> shift
    }

    /// An unsigned big-endian integer of 1–8 bytes; nil for other lengths or
    /// values beyond `Int64.max`.
    static func unsigned(_ bytes: [UInt8]) -> Int64? {
        guard (1...8).contains(bytes.count) else { return nil }
        return Int64(exactly: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}
