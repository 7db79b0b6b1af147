#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header of a Monkey's Audio stream (MAC SDK, `APEInfo.h`), as TagLib
/// and mutagen read it. All numbers little-endian.
///
/// Version 3.98 and later (version ≥ 3980) start with a descriptor:
///
///     "MAC "  version u16  padding u16  descriptor bytes u32  header bytes u32 …
///
/// and the header follows at the descriptor's length (52 bytes):
///
///     compression u16  flags u16  blocks per frame u32  final frame blocks u32
///     total frames u32  bits per sample u16  channels u16  sample rate u32
///
/// Older files have one header:
///
///     "MAC "  version u16  compression u16  flags u16  channels u16
///     sample rate u32  header bytes u32  terminating bytes u32
///     total frames u32  final frame blocks u32
///
/// with 9216 blocks a frame (73728 from 3.90, and from 3.80 at compression
/// level 4000 "extra high"; 294912 from 3.95) and the bits per sample in the
/// flags (1: 8 bits, 8: 24 bits, else 16).
enum MonkeysAudioHeader {
    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        var reader = try source.reader(at: start, count: Int(min(32, end - start)))
        guard try reader.readBytes(4).elementsEqual("MAC ".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'MAC ' marker", offset: start)
        }
        let version = try reader.readUInt16(.little)
        let blocksPerFrame: UInt64
        let finalFrameBlocks: UInt64
        let totalFrames: UInt64
        let bits: Int
        let channels: Int
        let rate: Int
        if version >= 3980 {
            try reader.skip(2)
            let descriptorBytes = Int64(try reader.readUInt32(.little))
            guard descriptorBytes >= 52, descriptorBytes <= 1024, end - start >= descriptorBytes + 24 else {
                throw MediaError(.sizeOutOfRange, "the Monkey's Audio descriptor declares \(descriptorBytes) bytes", offset: start + 8)
            }
            var header = try source.reader(at: start + descriptorBytes, count: 24)
            try header.skip(4) // compression level, format flags
            blocksPerFrame = UInt64(try header.readUInt32(.little))
            finalFrameBlocks = UInt64(try header.readUInt32(.little))
            totalFrames = UInt64(try header.readUInt32(.little))
            bits = Int(try header.readUInt16(.little))
            channels = Int(try header.readUInt16(.little))
            rate = Int(try header.readUInt32(.little))
        } else {
            let compression = try reader.readUInt16(.little)
            let flags = try reader.readUInt16(.little)
            channels = Int(try reader.readUInt16(.little))
            rate = Int(try reader.readUInt32(.little))
            try reader.skip(8) // header bytes, terminating bytes
            totalFrames = UInt64(try reader.readUInt32(.little))
            finalFrameBlocks = UInt64(try reader.readUInt32(.little))
            bits = flags & 1 != 0 ? 8 : flags & 8 != 0 ? 24 : 16
            blocksPerFrame =
                version >= 3950 ? 73728 * 4 : version >= 3900 || (version >= 3800 && compression == 4000) ? 73728 : 9216
        }
        let samples = totalFrames > 0 ? (totalFrames - 1) * blocksPerFrame + finalFrameBlocks : nil
        return APEFamilyParser.properties(
            codec: "Monkey's Audio", sampleRate: rate, channels: channels, bitsPerSample: bits, samples: samples,
            streamBytes: end - start)
    }
}
