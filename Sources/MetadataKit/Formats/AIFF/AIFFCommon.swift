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
    /// AIFF/AIFF-C text chunks; keys are the chunk IDs `NAME`, `AUTH`,
    /// `(c) ` and `ANNO` (which may repeat). Apple AIFF 1.3 §"Text Chunks".
    public static let aiff = MetadataKeySpace(rawValue: "aiff")
}

/// The Common chunk (`COMM`) of an AIFF or AIFF-C file, big-endian.
///
/// AIFF 1.3 §"Common Chunk":
///
///     numChannels      2  (signed)
///     numSampleFrames  4
///     sampleSize       2  bits per sample (signed)
///     sampleRate       10 IEEE 754 80-bit extended
///
/// AIFF-C (Apple "AIFF-C" draft 1991, §"Extended Common Chunk") adds
///
///     compressionType  4  FourCC: NONE, sowt, fl32, ulaw, ima4, …
///     compressionName  pstring (count byte + text, padded to even length)
struct AIFFCommon: Sendable, Equatable {
    var channels: Int
    var sampleFrames: Int64
    var sampleSize: Int
    var sampleRate: Double
    /// Nil for plain AIFF (uncompressed, big-endian integers).
    var compressionType: FourCC?

    init(_ reader: ByteReader, isAIFC: Bool) throws {
        var reader = reader
        let start = reader.offset
        guard reader.remaining >= 18 else {
            throw reader.error(.malformed, "'COMM' chunk of \(reader.remaining) bytes is shorter than 18")
        }
        channels = Int(try reader.readInt16())
        sampleFrames = Int64(try reader.readUInt32())
        sampleSize = Int(try reader.readInt16())
        sampleRate = try Self.extended(reader.readBytes(10))
        guard channels > 0, sampleRate.isFinite, sampleRate > 0, sampleRate < 1e10 else {
            throw MediaError(.malformed, "'COMM' has \(channels) channels at \(sampleRate) Hz", offset: start)
        }
        if isAIFC {
            guard reader.remaining >= 4 else {
                throw reader.error(.malformed, "AIFF-C 'COMM' chunk has no compression type")
            }
            compressionType = try reader.readFourCC()
        }
    }

    /// Decodes an 80-bit IEEE 754 extended number (big-endian): sign bit,
    /// 15-bit exponent biased by 16383, 64-bit significand with an explicit
    /// integer bit. Value = significand × 2^(exponent − 16383 − 63).
    /// Zero and denormals give 0; infinities and NaNs give .infinity / .nan.
    static func extended(_ bytes: [UInt8]) -> Double {
        precondition(bytes.count == 10)
        let sign: Double = bytes[0] & 0x80 != 0 ? -1 : 1
        let exponent = Int(bytes[0] & 0x7F) << 8 | Int(bytes[1])
        var significand: UInt64 = 0
        for byte in bytes[2..<10] { significand = significand << 8 | UInt64(byte) }
        if exponent == 0x7FFF { return significand << 1 == 0 ? sign * .infinity : .nan }
        if exponent == 0 || significand == 0 { return 0 }
        return sign * Double(significand) * pow(2.0, Double(exponent - 16383 - 63))
    }

    /// True for uncompressed sample formats.
    var isUncompressed: Bool {
        guard let compressionType else { return true }
        return ["NONE", "sowt", "twos", "raw ", "in24", "in32", "fl32", "FL32", "fl64", "FL64"].contains(compressionType)
    }

    /// Codec names; unknown compression types are shown as their FourCC.
    var codec: String {
        switch compressionType?.description {
        case nil, "NONE", "twos", "sowt", "raw ", "in24", "in32": return "PCM"
        case "fl32", "FL32", "fl64", "FL64": return "PCM float"
        case "alaw", "ALAW": return "A-law"
        case "ulaw", "ULAW": return "mu-law"
        case "ima4": return "IMA ADPCM"
        case "MAC3": return "MACE 3:1"
        case "MAC6": return "MACE 6:1"
        case "GSM ": return "GSM 6.10"
        case "QDM2": return "QDesign 2"
        case "QDMC": return "QDesign"
        case "Qclp": return "QCELP"
        case let other?: return other.trimmingWhitespace()
        }
    }

    /// Bits per sample for uncompressed formats (`fl32` → 32, `fl64` → 64 whatever COMM says).
    var bitsPerSample: Int? {
        switch compressionType?.description {
        case "fl32", "FL32": return 32
        case "fl64", "FL64": return 64
        default: return isUncompressed && sampleSize > 0 ? sampleSize : nil
        }
    }
}

/// The text chunks of AIFF 1.3 (§"Text Chunks": Name, Author, Copyright,
/// Annotation). Each holds text and nothing else; the chunk size is the text
/// length. ANNO may appear many times.
///
/// Read as ``MetadataKeySpace/aiff`` items keyed by chunk ID, decoded by
/// ``IFFText`` (the text ends at a NUL, which ffmpeg counts in the size).
/// Written without a NUL, padded to even length, in ISO 8859-1 when the
/// text fits, else UTF-8 (``IFFText``; exiftool reads AIFF text as Mac
/// Roman, so non-ASCII Latin-1 text looks wrong there); a chunk whose item
/// is unchanged is copied byte for byte.
enum AIFFText {
    static let ids: Set<FourCC> = ["NAME", "AUTH", "(c) ", "ANNO"]
    /// Largest text chunk read.
    static let maximumSize: Int64 = 16 << 20

    static func item(_ chunk: IFFChunk, source: FileSource) throws -> MetadataItem? {
        guard chunk.size <= maximumSize else {
            throw MediaError(
                .sizeOutOfRange, "text chunk '\(chunk.id)' of \(chunk.size) bytes is larger than \(maximumSize)",
                offset: chunk.offset)
        }
        let decoded = IFFText.decode(try source.getBytes(at: chunk.payloadOffset, count: Int(chunk.size)))
        guard !decoded.text.isEmpty else { return nil }
        return MetadataItem(keySpace: .aiff, key: chunk.id.description, value: .string(decoded.text), dataType: decoded.type)
    }

    /// The text chunks for the `.aiff` items of `items`, concatenated; chunks
    /// of `existing` whose item is unchanged are reused. Throws
    /// `invalidValue` for a key that isn't one of the four text chunk IDs.
    static func chunks(
        for items: [MetadataItem], existing: [(chunk: IFFChunk, item: MetadataItem?)],
        source: FileSource
    ) throws -> [UInt8]? {
        let wanted = items.filter { $0.keySpace == .aiff }
        guard !wanted.isEmpty else { return nil }
        var used = [Bool](repeating: false, count: existing.count)
        var bytes: [UInt8] = []
        for item in wanted {
            if let match = existing.indices.first(where: { !used[$0] && existing[$0].item == item }) {
                used[match] = true
                let chunk = existing[match].chunk
                bytes += try source.getBytes(at: chunk.offset, count: Int(chunk.payloadEnd - chunk.offset))
                if chunk.size & 1 == 1 { bytes.append(0) }
                continue
            }
            let id = try IFFText.chunkID(item)
            guard ids.contains(id) else {
                throw MediaError(.invalidValue, "'\(item.key)' is not an AIFF text chunk (NAME, AUTH, (c) , ANNO)")
            }
            bytes += try IFFChunkBuilder.chunk(id, try IFFText.encode(item), .big)
        }
        return bytes
    }
}

extension MetadataKeyMap {
    /// Keys of AIFF text chunks, ranked after every ID3v2 key of the same
    /// field, so the ID3 chunk wins where a file has both: title `NAME`,
    /// artist `AUTH`, comments `ANNO`, copyright `(c) ` (AIFF 1.3 "Text Chunks").
    static let aiffKeys: [MetadataField: [RawKey]] = [
        .title: [RawKey(.aiff, "NAME")],
        .artist: [RawKey(.aiff, "AUTH")],
        .comments: [RawKey(.aiff, "ANNO")],
        .copyright: [RawKey(.aiff, "(c) ")],
    ]
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.aiffKeys`.
    static let aiff = Self("aiff", keySpaces: [.aiff]) { MetadataKeyMap.aiffKeys }
}
