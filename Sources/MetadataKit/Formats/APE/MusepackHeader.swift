#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Musepack stream headers, as mutagen and TagLib read them:
///
/// - **SV8** (Musepack SV8 specification): `MPCK`, then packets of a 2-byte
///   key (`AA`–`ZZ`) and a variable-length size (7 bits a byte, high bit:
///   more follow; counting the key and the size). The stream header `SH`
///   holds a CRC (4), the stream version (1), the sample count and the
///   leading silence (variable-length), then the sample rate index (3 bits)
///   and max band (5), the channel count − 1 (4 bits), mid-side (1) and the
///   frames per block (3).
/// - **SV7**: `MP+` and the version in the low nibble of byte 3, the frame
///   count (u32 LE at 4) and flags (u32 LE at 8, sample rate index in bits
///   16–17); 1152 samples a frame, the last 576 not counted.
/// - **SV4–SV6**: no marker; a u32 LE word whose bits 11–20 are the version
///   and bits 23–31 the bit rate in kbit/s, then the frame count (u16 at 6
///   for SV4, u32 at 4 after; SV4 and SV5 count one frame too many). 44.1 kHz.
///
/// Stereo, except what an SV8 header says.
enum MusepackHeader {
    static let sampleRates = [44100, 48000, 37800, 32000]
    /// Most SV8 packets looked at before the stream header.
    static let maximumPackets = 64

    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        let head = try source.getAvailableBytes(at: start, count: 32)
        if head.starts(with: "MPCK".utf8) { return try sv8(source, start + 4, end) }
        guard head.count == 32 else {
            throw MediaError(.truncated, "the Musepack header runs past the end of the file", offset: start)
        }
        func le32(_ at: Int) -> UInt32 {
            UInt32(head[at]) | UInt32(head[at + 1]) << 8 | UInt32(head[at + 2]) << 16 | UInt32(head[at + 3]) << 24
        }
        var frames: Int64
        var rate = 44100
        var bitrate: Int?
        let codec: String
        if head.starts(with: "MP+".utf8) {
            let version = head[3] & 0xF
            guard version >= 7 else {
                throw MediaError(.unsupportedFeature, "Musepack stream version \(version) after 'MP+'", offset: start + 3)
            }
            frames = Int64(le32(4))
            rate = sampleRates[Int(le32(8) >> 16 & 3)]
            codec = "Musepack SV\(version)"
        } else {
            let word = le32(0)
            let version = Int(word >> 11 & 0x3FF)
            guard (4...6).contains(version) else {
                throw MediaError(.unsupportedFormat, "not a Musepack stream (no 'MPCK' or 'MP+', no SV4–SV6 header)", offset: start)
            }
            frames = version >= 5 ? Int64(le32(4)) : Int64(UInt32(head[6]) | UInt32(head[7]) << 8)
            if version < 6 { frames -= 1 }
            let kbps = Int(word >> 23 & 0x1FF)
            bitrate = kbps > 0 ? kbps * 1000 : nil
            codec = "Musepack SV\(version)"
        }
        let samples = frames > 0 ? UInt64(frames * 1152 - 576) : nil
        var properties = APEFamilyParser.properties(
            codec: codec, sampleRate: rate, channels: 2, bitsPerSample: nil, samples: samples, streamBytes: end - start)
        if let bitrate { properties.bitrate = bitrate }
        return properties
    }

    /// Reads SV8 packets from `position` up to the stream header.
    private static func sv8(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        var position = start
        for _ in 0..<maximumPackets {
            guard end - position >= 3 else { break }
            let head = try source.getAvailableBytes(at: position, count: 11)
            let key = head[0..<2]
            guard key.allSatisfy({ (0x41...0x5A).contains($0) }) else {
                throw MediaError(.malformed, "a Musepack SV8 packet key is not two capital letters", offset: position)
            }
            var reader = ByteReader(Array(head[2...]), fileOffset: position + 2)
            let size = try variableLength(&reader)
            let headerLength = Int64(2 + reader.position)
            guard size >= headerLength, size <= end - position else {
                throw MediaError(.sizeOutOfRange, "a Musepack SV8 packet declares \(size) bytes, which don't fit", offset: position + 2)
            }
            if key.elementsEqual("SH".utf8) {
                let count = Int(min(size - headerLength, 64))
                var body = try source.reader(at: position + headerLength, count: count)
                return try streamHeader(&body, streamBytes: end - (start - 4))
            }
            if key.elementsEqual("AP".utf8) || key.elementsEqual("SE".utf8) { break }
            position += size
        }
        throw MediaError(.malformed, "no Musepack SV8 stream header ('SH') before the audio", offset: start)
    }

    private static func streamHeader(_ reader: inout ByteReader, streamBytes: Int64) throws -> MediaProperties {
        try reader.skip(4) // CRC
        let version = try reader.readUInt8()
        let samples = try variableLength(&reader)
        let silence = try variableLength(&reader)
        let rateByte = try reader.readUInt8()
        let channelByte = try reader.readUInt8()
        let rateIndex = Int(rateByte >> 5)
        let rate = rateIndex < sampleRates.count ? sampleRates[rateIndex] : 0
        return APEFamilyParser.properties(
            codec: "Musepack SV\(version)", sampleRate: rate, channels: Int(channelByte >> 4) + 1, bitsPerSample: nil,
            samples: samples > silence ? UInt64(samples - silence) : nil, streamBytes: streamBytes)
    }

    /// An SV8 variable-length number: at most 9 bytes of 7 bits, high bit set
    /// on every byte but the last.
    static func variableLength(_ reader: inout ByteReader) throws -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<9 {
            let byte = try reader.readUInt8()
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return Int64(clamping: value) }
        }
        throw reader.error(.malformed, "a Musepack SV8 number runs over 9 bytes")
    }
}
