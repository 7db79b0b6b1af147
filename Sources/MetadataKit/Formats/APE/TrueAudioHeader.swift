#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The TTA1 header of a TrueAudio stream (TTA format description), 22 bytes,
/// little-endian:
///
///     "TTA1"  format u16  channels u16  bits per sample u16  sample rate u32
///     samples u32 (per channel)  CRC32 u32
enum TrueAudioHeader {
    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        guard end - start >= 18 else {
            throw MediaError(.truncated, "the TTA header runs past the end of the stream", offset: start)
        }
        var reader = try source.reader(at: start, count: 18)
        let magic = try reader.readBytes(4)
        guard magic.starts(with: "TTA".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'TTA' marker", offset: start)
        }
        guard magic[3] == UInt8(ascii: "1") else {
            throw MediaError(.unsupportedFeature, "TTA stream version '\(Character(Unicode.Scalar(magic[3])))'", offset: start + 3)
        }
        try reader.skip(2) // format: 1 PCM, 2 encrypted PCM, 3 float
        let channels = Int(try reader.readUInt16(.little))
        let bits = Int(try reader.readUInt16(.little))
        let rate = Int(try reader.readUInt32(.little))
        let samples = UInt64(try reader.readUInt32(.little))
        return APEFamilyParser.properties(
            codec: "TrueAudio", sampleRate: rate, channels: channels, bitsPerSample: bits, samples: samples, streamBytes: end - start)
    }
}
