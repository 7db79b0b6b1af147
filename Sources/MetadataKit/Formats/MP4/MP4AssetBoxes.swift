#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension MetadataKeySpace {
    /// 3GPP asset information boxes in `moov/udta` (3GPP TS 26.244 §8),
    /// keyed by their box type: `titl`, `perf`, `auth`, `gnre`, `dscp`,
    /// `cprt`, `albm`, `yrrc`, `kywd`; and `clsf`, `rtng`, `loci`, whose
    /// other fields are `<type>:<part>` items (`clsf:entity`, `clsf:table`,
    /// `rtng:entity`, `rtng:criteria`, `loci:role`, `loci:longitude`,
    /// `loci:latitude`, `loci:altitude`, `loci:body`, `loci:notes`).
    public static let threeGPP = MetadataKeySpace(rawValue: "3gpp")
}

/// The 3GPP asset boxes ffmpeg's 3gp muxer and phones write in `moov/udta`
/// (3GPP TS 26.244 §8): FullBoxes holding a packed ISO 639-2/T language
/// (pad bit and three 5-bit letters) and NUL-terminated strings, UTF-8 or
/// UTF-16 after a byte-order mark; `albm` may end in a track number byte;
/// `yrrc` holds a 16-bit year instead.
///
/// Read as items of ``MetadataKeySpace/threeGPP``, the box's string and
/// language in the item named by the box type (`yrrc` as its year's text):
/// - `titl` title, `perf` artist, `gnre` genre, `dscp` comments, `cprt`
///   copyright, `albm` album, `yrrc` year (as ffmpeg and exiftool read
///   them); `auth` (author) is a raw item only.
/// - `kywd` (§8.6, keywords): one item, a string or (several keywords) strings.
/// - `clsf` (§8.5, classification): the string, and `clsf:entity` (the
///   classification entity, a four-character code) and `clsf:table` (the
///   table index, a number).
/// - `rtng` (§8.7, rating): the string, `rtng:entity` and `rtng:criteria`
///   (four-character codes).
/// - `loci` (§8.8, location): the place's name, `loci:role` (0 shooting,
///   1 real, 2 fictional location), `loci:longitude`, `loci:latitude` and
///   `loci:altitude` (degrees and metres in 16.16 fixed point, as the
///   shortest decimal that stores the same value), `loci:body` (the
///   astronomical body, `earth`) and `loci:notes`. ffmpeg reads the
///   coordinates as its `location` tag; exiftool as LocationInformation.
///
/// Four-character codes are their text when printable ASCII, else `0x` and
/// eight hex digits. Bytes after the last field are kept by a rewrite.
enum MP4AssetBoxes {
    static let stringTypes: Set<FourCC> = ["titl", "perf", "auth", "gnre", "dscp", "cprt", "albm"]
    /// The boxes with more than one field.
    static let compoundTypes: Set<FourCC> = ["clsf", "kywd", "loci", "rtng"]
    static let types: Set<FourCC> = stringTypes.union(["yrrc"]).union(compoundTypes)
    /// The longest box read (a title of 64 KiB is more than any writer makes).
    static let maxBoxSize = 64 * 1024
    /// The part items of each compound box, in the order they are read.
    static let parts: [FourCC: [String]] = [
        "clsf": ["entity", "table"], "rtng": ["entity", "criteria"],
        "loci": ["role", "longitude", "latitude", "altitude", "body", "notes"],
    ]

    /// A readable asset box: its items, in file order, and the bytes after
    /// its last field.
    struct Parsed {
        var items: [MetadataItem]
        var trailer: [UInt8]
    }

    /// The items of one asset box and its trailing bytes; nil when it can't be read.
    static func parse(_ header: MP4BoxHeader, source: FileSource) -> Parsed? {
        guard types.contains(header.type), header.payloadSize <= Int64(maxBoxSize),
            var reader = try? source.mp4Payload(of: header), reader.remaining >= 6
        else { return nil }
        let type = header.type
        if type == "kywd", reader.peekUInt8() != 0 {
            // iPhones write keywords as bare NUL-separated strings (no FullBox header).
            let keywords = reader.readRemainingBytes().split(separator: 0).map { MP4Text.utf8(Array($0)) }
            return Parsed(items: [item(type, keywords.count == 1 ? .string(keywords[0]) : .strings(keywords), .binary)], trailer: [])
        }
        return try? parseFullBox(type, &reader)
    }

    private static func parseFullBox(_ type: FourCC, _ reader: inout ByteReader) throws -> Parsed {
        _ = try reader.readUInt32() // version and flags
        if type == "yrrc" {
            let year = try reader.readUInt16()
            return Parsed(items: [item(type, .string(String(year)), .unsignedInteger)], trailer: reader.readRemainingBytes())
        }
        var items: [MetadataItem] = []
        var codes: [String] = []
        if type == "clsf" || type == "rtng" {
            codes.append(text(of: try reader.readUInt32()))
            if type == "clsf" {
                codes.append(String(try reader.readUInt16()))
            } else {
                codes.append(text(of: try reader.readUInt32()))
            }
        }
        let language = MP4Text.packedLanguage(try reader.readUInt16())
        if type == "kywd" {
            let count = Int(try reader.readUInt8())
            var keywords: [String] = []
            var isUTF16 = false
            for index in 0..<count {
                var field = try reader.readReader(count: Int(try reader.readUInt8()))
                let (keyword, utf16) = readString(&field)
                keywords.append(keyword)
                if index == 0 { isUTF16 = utf16 }
            }
            let value: MetadataValue = keywords.count == 1 ? .string(keywords[0]) : .strings(keywords)
            items.append(item(type, value, isUTF16 ? .utf16 : .utf8, language: language))
            return Parsed(items: items, trailer: reader.readRemainingBytes())
        }
        let (text, isUTF16) = readString(&reader)
        items.append(item(type, .string(text), isUTF16 ? .utf16 : .utf8, language: language))
        if type == "loci" {
            let role = try reader.readUInt8()
            let coordinates = [try reader.readInt32(), try reader.readInt32(), try reader.readInt32()]
            let (body, bodyUTF16) = readString(&reader)
            let (notes, notesUTF16) = readString(&reader)
            codes = [String(role)] + coordinates.map(decimal(fixed:))
            items += zip(parts[type]!.prefix(4), codes).map { item(type, part: $0, .string($1), .utf8) }
            items.append(item(type, part: "body", .string(body), bodyUTF16 ? .utf16 : .utf8))
            items.append(item(type, part: "notes", .string(notes), notesUTF16 ? .utf16 : .utf8))
        } else if let names = parts[type] {
            items += zip(names, codes).map { item(type, part: $0, .string($1), .utf8) }
        }
        return Parsed(items: items, trailer: reader.readRemainingBytes())
    }

    private static func item(
        _ type: FourCC, part: String? = nil, _ value: MetadataValue, _ dataType: MetadataDataType, language: String? = nil
    ) -> MetadataItem {
        let key = part.map { "\(type.description):\($0)" } ?? type.description
        return MetadataItem(keySpace: .threeGPP, key: key, value: value, dataType: dataType, language: language)
    }

    /// The item of a one-field asset box (the first item of a compound one);
    /// nil when it can't be read.
    static func item(_ header: MP4BoxHeader, source: FileSource) -> MetadataItem? {
        parse(header, source: source)?.items.first
    }

    /// A NUL-terminated string at the reader (UTF-16 after a byte-order
    /// mark, ended by two NUL bytes; else UTF-8), consumed with its
    /// terminator; the rest of the reader when there is none.
    static func readString(_ reader: inout ByteReader) -> (String, Bool) {
        let bytes = Array(reader.peekBytes(reader.remaining) ?? [])
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            var end = 2
            while end + 1 < bytes.count, bytes[end] != 0 || bytes[end + 1] != 0 { end += 2 }
            try? reader.skip(min(bytes.count, end + 2))
            return (MP4Text.utf16BigEndian(Array(bytes[0..<min(end, bytes.count)])), true)
        }
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        try? reader.skip(min(bytes.count, end + 1))
        return (MP4Text.utf8(Array(bytes[0..<end])), false)
    }

    /// The string at the start of `bytes` and whether it is UTF-16.
    static func string(_ bytes: [UInt8]) -> (String, Bool) {
        var reader = ByteReader(bytes)
        return readString(&reader)
    }

    /// The bytes after the box's last field (`albm`'s track number), kept by a rewrite.
    static func trailer(_ header: MP4BoxHeader, source: FileSource) -> [UInt8] {
        parse(header, source: source)?.trailer ?? []
    }

    /// The items of `udta`'s asset boxes, in file order.
    static func items(in moov: MP4Box, source: FileSource) -> [MetadataItem] {
        guard let udta = moov.child("udta") else { return [] }
        return udta.children.flatMap { types.contains($0.type) ? parse($0.header, source: source)?.items ?? [] : [] }
    }

    /// A four-character code as text: its characters when printable ASCII,
    /// else `0x` and eight hex digits.
    static func text(of code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * UInt32($0))) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            let hex = String(code, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A 16.16 fixed-point value as the shortest decimal (at most five
    /// places) that stores the same value.
    static func decimal(fixed value: Int32) -> String {
        let exact = Double(value) / 65536
        for places in 0...5 {
            let scale = pow(10, Double(places))
            let rounded = (exact * scale).rounded() / scale
            if (rounded * 65536).rounded() == Double(value) { return String(cFormat: "%.\(places)f", rounded) }
        }
        return String(cFormat: "%.5f", exact)
    }
}
