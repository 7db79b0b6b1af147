import Foundation

extension MetadataKeySpace {
    /// 3GPP asset information boxes in `moov/udta` (3GPP TS 26.244 §8),
    /// keyed by their box type: `titl`, `perf`, `auth`, `gnre`, `dscp`,
    /// `cprt`, `albm`, `yrrc`.
    public static let threeGPP = MetadataKeySpace(rawValue: "3gpp")
}

/// The 3GPP asset boxes ffmpeg's 3gp muxer and phones write in `moov/udta`
/// (3GPP TS 26.244 §8): FullBoxes holding a packed ISO 639-2/T language
/// (pad bit and three 5-bit letters) and a NUL-terminated string, UTF-8 or
/// UTF-16 after a byte-order mark; `albm` may end in a track number byte;
/// `yrrc` holds a 16-bit year instead.
///
/// Read as items of ``MetadataKeySpace/threeGPP`` (language kept; `yrrc` as
/// its year's text). The fields: `titl` title, `perf` artist, `gnre` genre,
/// `dscp` comments, `cprt` copyright, `albm` album, `yrrc` year (as ffmpeg
/// and exiftool read them); `auth` (author) is kept as a raw item only.
/// `clsf`, `kywd`, `loci` and `rtng` are not read and kept byte for byte.
enum MP4AssetBoxes {
    static let stringTypes: Set<FourCC> = ["titl", "perf", "auth", "gnre", "dscp", "cprt", "albm"]
    static let types: Set<FourCC> = stringTypes.union(["yrrc"])
    /// The longest box read (a title of 64 KiB is more than any writer makes).
    static let maxBoxSize = 64 * 1024

    /// The item of one asset box; nil when it can't be read.
    static func item(_ header: MP4BoxHeader, source: FileSource) -> MetadataItem? {
        guard types.contains(header.type), header.payloadSize <= Int64(maxBoxSize),
            var reader = try? source.mp4Payload(of: header), reader.remaining >= 6
        else { return nil }
        let key = header.type.description
        guard (try? reader.readUInt32()) != nil else { return nil } // version and flags
        if header.type == "yrrc" {
            guard let year = try? reader.readUInt16() else { return nil }
            return MetadataItem(keySpace: .threeGPP, key: key, value: .string(String(year)), dataType: .unsignedInteger)
        }
        guard let language = try? reader.readUInt16() else { return nil }
        let bytes = reader.readRemainingBytes()
        let (text, isUTF16) = string(bytes)
        return MetadataItem(
            keySpace: .threeGPP, key: key, value: .string(text), dataType: isUTF16 ? .utf16 : .utf8,
            language: MP4Text.packedLanguage(language))
    }

    /// The string at the start of `bytes` and whether it is UTF-16.
    static func string(_ bytes: [UInt8]) -> (String, Bool) {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            var end = 2
            while end + 1 < bytes.count, bytes[end] != 0 || bytes[end + 1] != 0 { end += 2 }
            return (MP4Text.utf16BigEndian(Array(bytes[0..<end])), true)
        }
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return (MP4Text.utf8(Array(bytes[0..<end])), false)
    }

    /// The bytes after the string (`albm`'s track number), kept by a rewrite.
    static func trailer(_ header: MP4BoxHeader, source: FileSource) -> [UInt8] {
        guard header.type == "albm", header.payloadSize <= Int64(maxBoxSize), var reader = try? source.mp4Payload(of: header),
            (try? reader.skip(6)) != nil
        else { return [] }
        let bytes = reader.readRemainingBytes()
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            var end = 2
            while end + 1 < bytes.count, bytes[end] != 0 || bytes[end + 1] != 0 { end += 2 }
            return Array(bytes.dropFirst(min(bytes.count, end + 2)))
        }
        guard let nul = bytes.firstIndex(of: 0) else { return [] }
        return Array(bytes[(nul + 1)...])
    }

    /// The items of `udta`'s asset boxes, in file order.
    static func items(in moov: MP4Box, source: FileSource) -> [MetadataItem] {
        guard let udta = moov.child("udta") else { return [] }
        return udta.children.compactMap { types.contains($0.type) ? item($0.header, source: source) : nil }
    }

    /// A new asset box for `item` (UTF-8, or UTF-16 with a byte-order mark
    /// when the item was UTF-16; `und` without a language), `trailer` after it.
    static func box(_ item: MetadataItem, trailer: [UInt8] = []) throws -> [UInt8] {
        let type = FourCC(stringLiteral: item.key)
        guard types.contains(type), let text = item.value.stringValue else {
            throw MediaError(.invalidValue, "'3gpp:\(item.key)' is not a 3GPP asset box this writer knows")
        }
        var writer = ByteWriter()
        writer.write(UInt32(0))
        if type == "yrrc" {
            guard let year = UInt16(text.prefix(4)), text.prefix(4).count == 4 else {
                throw MediaError(.invalidValue, "'3gpp:yrrc' holds a year, not '\(text)'")
            }
            writer.write(year)
            return MP4MetadataEncoder.box(type, writer.bytes)
        }
        writer.write(packed(item.language ?? "und"))
        if item.dataType == .utf16 {
            writer.write([0xFE, 0xFF])
            for unit in text.utf16 { writer.write(unit) }
            writer.write(UInt16(0))
        } else {
            writer.write(Array(text.utf8))
            writer.write(UInt8(0))
        }
        writer.write(trailer)
        return MP4MetadataEncoder.box(type, writer.bytes)
    }

    /// An ISO 639-2/T code packed in 15 bits; `und` for anything else.
    static func packed(_ language: String) -> UInt16 {
        let letters = Array(language.utf8)
        guard letters.count == 3, letters.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return 0x55C4 }
        return letters.reduce(UInt16(0)) { $0 << 5 | UInt16($1 - 0x60) }
    }
}
