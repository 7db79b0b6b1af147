#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `fmt ` chunk of a WAVE file: a WAVEFORMATEX structure.
///
/// Layout (Microsoft "Multimedia Programming Interface and Data
/// Specifications 1.0", WAVE format; WAVEFORMATEXTENSIBLE from Microsoft's
/// "Multiple Channel Audio Data and WAVE Files"), little-endian:
///
///     wFormatTag        2   1 PCM, 3 IEEE float, 0xFFFE extensible, …
///     nChannels         2
///     nSamplesPerSec    4
///     nAvgBytesPerSec   4
///     nBlockAlign       2   bytes per sample frame (all channels)
///     wBitsPerSample    2
///     cbSize            2   (optional) bytes that follow
///     -- WAVE_FORMAT_EXTENSIBLE (cbSize ≥ 22):
///     wValidBitsPerSample 2
///     dwChannelMask     4
///     SubFormat         16  GUID; for the standard formats its first two bytes
///                           are a format tag and the rest is
///                           -0000-0010-8000-00AA00389B71 (KSDATAFORMAT_SUBTYPE_*)
struct WAVFormatChunk: Sendable, Equatable {
    var formatTag: UInt16
    var channels: Int
    var sampleRate: Int
    var averageBytesPerSecond: Int
    var blockAlign: Int
    var bitsPerSample: Int
    /// For WAVE_FORMAT_EXTENSIBLE: the format tag taken from a standard sub-format GUID.
    var subFormatTag: UInt16?
    /// For WAVE_FORMAT_EXTENSIBLE: the sub-format GUID, as text.
    var subFormat: String?
    var validBitsPerSample: Int?

    static let extensible: UInt16 = 0xFFFE
    /// Bytes 2–15 of every KSDATAFORMAT_SUBTYPE_* GUID built on a format tag.
    static let standardGUIDTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Parses a `fmt ` payload. Throws `malformed` for a structure shorter
    /// than 16 bytes or with zero channels, rate or block alignment.
    init(_ reader: ByteReader) throws {
        var reader = reader
        guard reader.remaining >= 16 else {
            throw reader.error(.malformed, "'fmt ' chunk of \(reader.remaining) bytes is shorter than 16")
        }
        formatTag = try reader.readUInt16(.little)
        channels = Int(try reader.readUInt16(.little))
        sampleRate = Int(try reader.readUInt32(.little))
        averageBytesPerSecond = Int(try reader.readUInt32(.little))
        blockAlign = Int(try reader.readUInt16(.little))
        bitsPerSample = Int(try reader.readUInt16(.little))
        guard channels > 0, sampleRate > 0, blockAlign > 0 else {
            throw MediaError(
                .malformed, "'fmt ' has \(channels) channels, \(sampleRate) Hz, block align \(blockAlign)",
                offset: reader.offset - 16)
        }
        if formatTag == Self.extensible, reader.remaining >= 2 + 22 {
            let extra = Int(try reader.readUInt16(.little))
            if extra >= 22 {
                let valid = Int(try reader.readUInt16(.little))
                validBitsPerSample = valid > 0 ? valid : nil
                try reader.skip(4) // dwChannelMask
                let guid = try reader.readBytes(16)
                subFormat = Self.guidText(guid)
                if Array(guid[2...]) == Self.standardGUIDTail {
                    subFormatTag = UInt16(guid[0]) | UInt16(guid[1]) << 8
                }
            }
        }
    }

    /// The format tag that says what the samples are (the sub-format's for extensible).
    var effectiveTag: UInt16 { formatTag == Self.extensible ? subFormatTag ?? formatTag : formatTag }

    /// True for uncompressed integer or float samples.
    var isPCM: Bool { effectiveTag == 0x0001 || effectiveTag == 0x0003 }

    /// Codec names for the common format tags (Microsoft mmreg.h names).
    var codec: String {
        switch effectiveTag {
        case 0x0001: return "PCM"
        case 0x0003: return "PCM float"
        case 0x0002: return "MS ADPCM"
        case 0x0006: return "A-law"
        case 0x0007: return "mu-law"
        case 0x0011: return "IMA ADPCM"
        case 0x0031: return "GSM 6.10"
        case 0x0050: return "MPEG"
        case 0x0055: return "MP3"
        case 0x00FF, 0x1610: return "AAC"
        case 0x0160, 0x0161, 0x0162, 0x0163: return "WMA"
        case 0x2000: return "AC-3"
        case 0x2001: return "DTS"
        case 0xF1AC: return "FLAC"
        case Self.extensible: return "Extensible \(subFormat ?? "")".trimmingWhitespace()
        default: return String(cFormat: "WAVE format 0x%04X", effectiveTag)
        }
    }

    /// Bits per sample to report: the valid bits of an extensible format, the
    /// container's otherwise; nil for compressed formats that give 0.
    var reportedBitsPerSample: Int? {
        if let validBitsPerSample, validBitsPerSample <= bitsPerSample { return validBitsPerSample }
        return bitsPerSample > 0 ? bitsPerSample : nil
    }

    /// A GUID in its registry spelling: the first three fields are little-endian.
    static func guidText(_ bytes: [UInt8]) -> String {
        func hex(_ range: [Int]) -> String { range.map { String(cFormat: "%02X", bytes[$0]) }.joined() }
        return "\(hex([3, 2, 1, 0]))-\(hex([5, 4]))-\(hex([7, 6]))-\(hex([8, 9]))-\(hex(Array(10..<16)))"
    }
}
