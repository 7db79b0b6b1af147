#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One metadata attribute of an ASF header: a name, a typed value, and where
/// it is stored (ASF Specification §3.10 Content Description, §3.11 Extended
/// Content Description, §4.7 Metadata, §4.8 Metadata Library).
struct ASFAttribute: Sendable, Equatable {
    /// The value types of §3.11 (and §4.7, §4.8: GUID only in the Metadata Library).
    enum Kind: UInt16, Sendable {
        case unicode = 0
        case bytes = 1
        case bool = 2
        case dword = 3
        case qword = 4
        case word = 5
        case guid = 6
    }

    /// The object an attribute is stored in.
    enum Place: Int, Sendable, Comparable {
        case contentDescription, extendedContentDescription, metadata, metadataLibrary

        static func < (a: Place, b: Place) -> Bool { a.rawValue < b.rawValue }
    }

    var name: String
    /// The stored type code (values other than ``Kind``'s are kept as bytes).
    var type: UInt16
    /// The value's bytes as stored (a BOOL is 4 bytes in the Extended Content
    /// Description, 2 in the Metadata and Metadata Library objects). Read
    /// from a file, a slice of the header's bytes (not a copy: a value can be
    /// a picture).
    var data: ArraySlice<UInt8>
    var place: Place
    /// Stream number (Metadata, Metadata Library); 0 for the whole file.
    var stream: UInt16 = 0
    /// Index into the Language List Object (Metadata Library); 0 is the default.
    var languageIndex: UInt16 = 0
    /// File offset of the value's first byte (nil for a new attribute).
    var valueOffset: Int64?

    var kind: Kind? { Kind(rawValue: type) }

    /// The five fields of the Content Description Object, in stored order,
    /// named as mutagen and TagLib name them.
    static let contentDescriptionNames = ["Title", "Author", "Copyright", "Description", "Rating"]

    /// The name of pictures (a byte array laid out as ``ASFPicture``).
    static let pictureName = "WM/Picture"

    // MARK: Reading

    /// Text stored as UTF-16LE, without its terminating NULs.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        TextDecoding.utf16DroppingTrailingZeros(bytes, bigEndian: false)
    }

    /// `text` as UTF-16LE with a terminating NUL.
    static func encodedText(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf16.count * 2 + 2)
        for unit in text.utf16 { bytes += [UInt8(truncatingIfNeeded: unit), UInt8(truncatingIfNeeded: unit >> 8)] }
        return bytes + [0, 0]
    }

    /// Little-endian unsigned integer of `data` (at most 8 bytes).
    private static func integer(_ data: ArraySlice<UInt8>) -> UInt64 {
        data.prefix(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The raw item this attribute is read as. `languages` is the Language List.
    func item(languages: [String], source: FileSource, url: URL) -> MetadataItem {
        let language =
            place == .metadataLibrary && languageIndex != 0 && Int(languageIndex) < languages.count
            ? languages[Int(languageIndex)] : nil
        func make(_ value: MetadataValue, _ dataType: MetadataDataType) -> MetadataItem {
            MetadataItem(keySpace: .asf, key: name, value: value, dataType: dataType, language: language)
        }
        switch kind {
        case .unicode?:
            return make(.string(Self.text(data)), .utf16)
        case .bool?:
            return make(.integer(Self.integer(data) == 0 ? 0 : 1), .asfBool)
        case .dword? where data.count == 4:
            return make(.integer(Int64(UInt32(truncatingIfNeeded: Self.integer(data)))), .asfDWORD)
        case .qword? where data.count == 8:
            return make(.integer(Int64(bitPattern: Self.integer(data))), .asfQWORD)
        case .word? where data.count == 2:
            return make(.integer(Int64(UInt16(truncatingIfNeeded: Self.integer(data)))), .asfWORD)
        case .dword?, .qword?, .word?:
            // A number whose length is not its type's: kept as the bytes it is.
            return make(.data(Data(data)), .asfType(type))
        case .guid?:
            return make(.data(Data(data)), .asfGUID)
        case .bytes?:
            if name == Self.pictureName, let valueOffset {
                if let picture = try? ASFPicture(parsing: data, fileOffset: valueOffset) {
                    let artwork = picture.artwork(source: source, url: url)
                    return make(.picture(artwork), ASFPicture.dataType(of: artwork.mimeType))
                }
            }
            return make(.data(Data(data)), .binary)
        case nil:
            return make(.data(Data(data)), .asfType(type))
        }
    }

    // MARK: Writing

    /// The type and value bytes that store `item` (the value of a BOOL in the
    /// Extended Content Description form, 4 bytes). Throws `invalidValue`
    /// for a value the type can't hold.
    static func encoded(_ item: MetadataItem) throws -> (type: UInt16, data: [UInt8]) {
        func little(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func number() throws -> Int64 {
            switch item.value {
            case .integer(let value): return value
            case .string(let text) where Int64(text) != nil: return Int64(text)!
            default: throw MediaError(.invalidValue, "asf:\(item.key) of type \(item.dataType) needs a whole number")
            }
        }
        func ranged(_ limit: UInt64) throws -> UInt64 {
            let value = try number()
            guard value >= 0, UInt64(value) <= limit else {
                throw MediaError(.invalidValue, "asf:\(item.key): \(value) does not fit in a \(item.dataType) value")
            }
            return UInt64(value)
        }
        switch item.dataType {
        case .asfBool:
            let value = try number()
            guard value == 0 || value == 1 else { throw MediaError(.invalidValue, "asf:\(item.key) is a BOOL: 0 or 1") }
            return (Kind.bool.rawValue, little(UInt64(value), 4))
        case .asfDWORD: return (Kind.dword.rawValue, little(try ranged(UInt64(UInt32.max)), 4))
        case .asfWORD: return (Kind.word.rawValue, little(try ranged(UInt64(UInt16.max)), 2))
        case .asfQWORD: return (Kind.qword.rawValue, little(UInt64(bitPattern: try number()), 8))
        case .asfGUID:
            guard case .data(let data) = item.value, data.count == 16 else {
                throw MediaError(.invalidValue, "asf:\(item.key) is a GUID: 16 bytes")
            }
            return (Kind.guid.rawValue, [UInt8](data))
        default: break
        }
        if item.dataType.rawValue.hasPrefix(MetadataDataType.asfTypePrefix), case .data(let data) = item.value,
            let code = UInt16(item.dataType.rawValue.dropFirst(MetadataDataType.asfTypePrefix.count))
        {
            return (code, [UInt8](data))
        }
        switch item.value {
        case .string, .strings, .double, .numberPair:
            return (Kind.unicode.rawValue, encodedText(item.value.stringValue ?? ""))
        case .integer(let value):
            guard value >= 0 else { return (Kind.qword.rawValue, little(UInt64(bitPattern: value), 8)) }
            return value <= Int64(UInt32.max)
                ? (Kind.dword.rawValue, little(UInt64(value), 4)) : (Kind.qword.rawValue, little(UInt64(value), 8))
        case .data(let data):
            return (Kind.bytes.rawValue, [UInt8](data))
        case .picture(let artwork):
            return (Kind.bytes.rawValue, try ASFPicture(artwork: artwork).serialized())
        }
    }

    /// The value bytes as the attribute's ``place`` stores them: a BOOL is 4
    /// bytes in the Extended Content Description, 2 elsewhere (§3.11, §4.7).
    var dataForPlace: [UInt8] {
        guard kind == .bool else { return Array(data) }
        let isTrue = data.contains { $0 != 0 }
        let count = place == .extendedContentDescription ? 4 : 2
        return [isTrue ? 1 : 0] + [UInt8](repeating: 0, count: count - 1)
    }
}

extension MetadataKeySpace {
    /// ASF (WMA, WMV) attributes of the Content Description (`Title`,
    /// `Author`, `Copyright`, `Description`, `Rating`), Extended Content
    /// Description, Metadata and Metadata Library objects; keys are the
    /// attribute names, such as `WM/AlbumTitle`.
    public static let asf = MetadataKeySpace(rawValue: "asf")
}

extension MetadataDataType {
    /// ASF BOOL (§3.11): 0 or 1.
    public static let asfBool = MetadataDataType(rawValue: "BOOL")
    /// ASF DWORD: a 32-bit unsigned integer.
    public static let asfDWORD = MetadataDataType(rawValue: "DWORD")
    /// ASF QWORD: a 64-bit unsigned integer (kept as its bit pattern).
    public static let asfQWORD = MetadataDataType(rawValue: "QWORD")
    /// ASF WORD: a 16-bit unsigned integer.
    public static let asfWORD = MetadataDataType(rawValue: "WORD")
    /// ASF GUID (Metadata Library only): 16 bytes.
    public static let asfGUID = MetadataDataType(rawValue: "GUID")

    static let asfTypePrefix = "ASF-type-"
    /// An ASF value type the specification doesn't define, kept as bytes.
    static func asfType(_ code: UInt16) -> MetadataDataType { MetadataDataType(rawValue: asfTypePrefix + String(code)) }
}
