import Foundation

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
struct WAVFormat: Sendable, Equatable {
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
            throw MediaError(.malformed, "'fmt ' has \(channels) channels, \(sampleRate) Hz, block align \(blockAlign)",
                             offset: reader.offset - 16)
        }
        if formatTag == Self.extensible, reader.remaining >= 2 + 22 {
            let extra = Int(try reader.readUInt16(.little))
            if extra >= 22 {
                let valid = Int(try reader.readUInt16(.little))
                validBitsPerSample = valid > 0 ? valid : nil
                try reader.skip(4)                                      // dwChannelMask
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
        case Self.extensible: return "Extensible \(subFormat ?? "")".trimmingCharacters(in: .whitespaces)
        default: return String(format: "WAVE format 0x%04X", effectiveTag)
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
        func hex(_ range: [Int]) -> String { range.map { String(format: "%02X", bytes[$0]) }.joined() }
        return "\(hex([3, 2, 1, 0]))-\(hex([5, 4]))-\(hex([7, 6]))-\(hex([8, 9]))-\(hex(Array(10..<16)))"
    }
}

/// The `ds64` chunk of an RF64 or BW64 file, first chunk after the header
/// (EBU Tech 3306 §3.2; ITU-R BS.2088-1 §3 / EBU BW64), little-endian:
///
///     riffSize      8   the real RIFF size (the header holds 0xFFFFFFFF)
///     dataSize      8   the real `data` size (its header holds 0xFFFFFFFF)
///     sampleCount   8   the real `fact` sample count
///     tableLength   4   entries that follow
///     table         tableLength × (chunkId 4, chunkSize 8), for other chunks over 4 GiB
struct WAVDataSize64: Sendable, Equatable {
    var riffSize: Int64
    var dataSize: Int64
    var sampleCount: Int64
    var table: [(id: FourCC, size: Int64)]
    /// The `ds64` chunk itself.
    var chunk: IFFChunk

    static func == (a: WAVDataSize64, b: WAVDataSize64) -> Bool {
        a.riffSize == b.riffSize && a.dataSize == b.dataSize && a.sampleCount == b.sampleCount && a.chunk == b.chunk
            && a.table.map(\.id) == b.table.map(\.id) && a.table.map(\.size) == b.table.map(\.size)
    }

    /// Reads the `ds64` chunk that must start at offset 12.
    static func read(from source: FileSource) throws -> WAVDataSize64 {
        var header = try source.reader(at: 12, count: 8)
        let id = try header.readFourCC()
        let size = Int64(try header.readUInt32(.little))
        guard id == "ds64" else {
            throw MediaError(.malformed, "an RF64/BW64 file must start with a 'ds64' chunk, not '\(id)'", offset: 12)
        }
        guard size >= 28, size <= 28 + 12 * 1024 else {
            throw MediaError(.sizeOutOfRange, "'ds64' chunk of \(size) bytes (28 to \(28 + 12 * 1024) expected)", offset: 12)
        }
        var reader = try source.reader(at: 20, count: Int(size))
        func size64() throws -> Int64 {
            let value = try reader.readUInt64(.little)
            guard value <= UInt64(Int64.max / 2) else { throw reader.error(.sizeOutOfRange, "64-bit size \(value) is not plausible") }
            return Int64(value)
        }
        let riffSize = try size64(), dataSize = try size64(), sampleCount = try size64()
        let count = Int(try reader.readUInt32(.little))
        guard count <= reader.remaining / 12 else {
            throw reader.error(.sizeOutOfRange, "'ds64' table of \(count) entries does not fit in the chunk")
        }
        var table: [(id: FourCC, size: Int64)] = []
        for _ in 0..<count { table.append((try reader.readFourCC(), try size64())) }
        return WAVDataSize64(riffSize: riffSize, dataSize: dataSize, sampleCount: sampleCount, table: table,
                             chunk: IFFChunk(id: id, offset: 12, size: size))
    }

    /// The 64-bit size of a chunk whose 32-bit size is 0xFFFFFFFF: `dataSize`
    /// for `data`, else the first table entry for its ID.
    func size(of id: FourCC) -> Int64? {
        id == "data" ? dataSize : table.first { $0.id == id }?.size
    }
}
