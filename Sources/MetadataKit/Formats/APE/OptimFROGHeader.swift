#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `OFR ` header of an OptimFROG stream, as mutagen and TagLib read it
/// (little-endian):
///
///     "OFR "  header size u32 (12, or 15 and more)  total samples u32
///     total samples high u16  sample type u8  channels − 1 u8  sample rate u32
///     [encoder id u16 …]
///
/// The total counts the samples of every channel. Sample types 0–7 are 8,
/// 8, 16, 16, 24, 24, 32, 32 bits.
enum OptimFROGHeader {
    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        guard end - start >= 20 else {
            throw MediaError(.truncated, "the OptimFROG header runs past the end of the stream", offset: start)
        }
        var reader = try source.reader(at: start, count: 20)
        guard try reader.readBytes(4).elementsEqual("OFR ".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'OFR ' marker", offset: start)
        }
        let size = try reader.readUInt32(.little)
        guard size == 12 || size >= 15 else {
            throw MediaError(.malformed, "the OptimFROG header declares \(size) bytes (12, or 15 and more)", offset: start + 4)
        }
        let low = UInt64(try reader.readUInt32(.little))
        let high = UInt64(try reader.readUInt16(.little))
        let sampleType = Int(try reader.readUInt8())
        let channels = Int(try reader.readUInt8()) + 1
        let rate = Int(try reader.readUInt32(.little))
        let total = low | high << 32
        return APEFamilyParser.properties(
            codec: "OptimFROG", sampleRate: rate, channels: channels, bitsPerSample: sampleType < 8 ? 8 * (sampleType / 2 + 1) : nil,
            samples: total / UInt64(channels), streamBytes: end - start)
    }
}
