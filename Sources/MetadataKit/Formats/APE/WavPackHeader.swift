#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A WavPack block header (WavPack 4/5 file format, "Block Header"), 32 bytes:
///
///     "wvpk"  ckSize u32  version u16  block_index_u8  total_samples_u8
///     total_samples u32  block_index u32  block_samples u32  flags u32  crc u32
///
/// Little-endian. `ckSize` counts the block's bytes after its first 8. The
/// `_u8` bytes are the upper bits of the 40-bit sample counts (WavPack 5);
/// a total of 0xFFFFFFFF means unknown.
struct WavPackBlockHeader: Sendable, Hashable {
    static let length = 32
    /// Flag bits (wavpack.h): bytes per sample − 1, mono, hybrid, the first
    /// block of a frame, the sample rate index (15: given in a sub-block), DSD.
    static let monoFlag: UInt32 = 1 << 2
    static let hybridFlag: UInt32 = 1 << 3
    static let initialBlockFlag: UInt32 = 1 << 11
    static let dsdFlag: UInt32 = 1 << 31
    /// Sample rates by index (flags bits 23–26).
    static let sampleRates = [
        6000, 8000, 9600, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000, 192000,
    ]

    var blockSize: Int64
    var version: UInt16
    /// Nil when the header says the total is unknown.
    var totalSamples: UInt64?
    var blockIndex: UInt64
    var blockSamples: UInt32
    var flags: UInt32

    /// Bytes of the whole block.
    var length: Int64 { blockSize + 8 }
}

extension WavPackBlockHeader {
    /// Reads the header at `offset`; throws `unsupportedFormat` without the
    /// `wvpk` marker, and `sizeOutOfRange` when the block would run past
    /// `end` (unless `allowingCut`: the header of a block cut by the end of
    /// the file, whose numbers mutagen and TagLib still read).
    init(parsing source: FileSource, at offset: Int64, end: Int64, allowingCut: Bool = false) throws {
        guard end - offset >= Int64(Self.length) else {
            throw MediaError(.truncated, "a WavPack block header runs past the end of the stream", offset: offset)
        }
        var reader = try source.reader(at: offset, count: Self.length)
        guard try reader.readBytes(4).elementsEqual("wvpk".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'wvpk' block marker", offset: offset)
        }
        blockSize = Int64(try reader.readUInt32(.little))
        version = try reader.readUInt16(.little)
        let indexHigh = UInt64(try reader.readUInt8())
        let totalHigh = UInt64(try reader.readUInt8())
        let total = try reader.readUInt32(.little)
        totalSamples = total == UInt32.max ? nil : UInt64(total) + totalHigh << 32 - totalHigh
        blockIndex = UInt64(try reader.readUInt32(.little)) + indexHigh << 32
        blockSamples = try reader.readUInt32(.little)
        flags = try reader.readUInt32(.little)
        guard blockSize >= Int64(Self.length - 8), allowingCut || blockSize <= end - offset - 8 else {
            throw MediaError(
                .sizeOutOfRange, "a WavPack block declares \(blockSize + 8) bytes, more than the stream holds", offset: offset + 4)
        }
    }
}

/// A WavPack stream's properties from its first block (and, when the total
/// is not in it, from every block's sample count), as mutagen and TagLib
/// read them: the rate from the index in the flags or the `ID_SAMPLE_RATE`
/// sub-block, the channel count from the mono flag or the
/// `ID_CHANNEL_INFO` sub-block, bits per sample from the bytes per sample.
enum WavPackHeader {
    /// Most blocks counted when the first block gives no total.
    static let maximumBlocks = 1 << 20

    ///
    /// A first block cut by the end of the stream still gives its numbers
    /// (as mutagen reads them); they come with a warning
    /// (``APEFamilyParser/PartialHeader``).
    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        let first = try WavPackBlockHeader(parsing: source, at: start, end: end, allowingCut: true)
        let isCut = first.blockSize > end - start - 8
        var rate =
            WavPackBlockHeader.sampleRates.indices.contains(Int(first.flags >> 23 & 0xF))
            ? WavPackBlockHeader.sampleRates[Int(first.flags >> 23 & 0xF)] : 0
        var channels = first.flags & WavPackBlockHeader.monoFlag != 0 ? 1 : 2
        var bits = Int(first.flags & 3 + 1) * 8
        let subBlocks = try self.subBlocks(source, in: first, at: start, end: end)
        if let info = subBlocks.channels { channels = info }
        if rate == 0, let custom = subBlocks.sampleRate { rate = custom }
        if first.flags & WavPackBlockHeader.dsdFlag != 0 {
            rate *= 4
            bits = 1
        }
        var samples = first.totalSamples
        if samples == nil || first.blockIndex != 0 {
            samples = try countSamples(source, from: start, end: end)
        }
        var codec = "WavPack"
        if first.flags & WavPackBlockHeader.hybridFlag != 0 { codec += " (hybrid)" }
        let properties = APEFamilyParser.properties(
            codec: codec, sampleRate: rate, channels: channels, bitsPerSample: bits, samples: samples, streamBytes: end - start)
        guard !isCut else {
            let warning = MediaWarning(
                .truncated, "the first WavPack block (\(first.length) bytes) runs past the end of the stream; its header is read",
                offset: start + 4)
            throw APEFamilyParser.PartialHeader(properties: properties, warning: warning)
        }
        return properties
    }

    /// The channel count and sample rate sub-blocks of the first block
    /// (WavPack file format, "Metadata Sub-blocks": an id byte, with 0x80
    /// a 3-byte size, else a 1-byte size, in 16-bit words; 0x40: the data
    /// is one byte shorter).
    private static func subBlocks(_ source: FileSource, in block: WavPackBlockHeader, at offset: Int64, end streamEnd: Int64) throws
        -> (channels: Int?, sampleRate: Int?)
    {
        var result: (channels: Int?, sampleRate: Int?) = (nil, nil)
        var position = offset + Int64(WavPackBlockHeader.length)
        let end = min(offset + block.length, streamEnd)
        for _ in 0..<64 where end - position >= 2 {
            let head = try source.getBytes(at: position, count: 2)
            let large = head[0] & 0x80 != 0
            var words = Int64(head[1])
            if large {
                guard end - position >= 4 else { break }
                let more = try source.getBytes(at: position + 2, count: 2)
                words |= Int64(more[0]) << 8 | Int64(more[1]) << 16
            }
            let dataStart = position + (large ? 4 : 2)
            let size = words * 2
            guard size <= end - dataStart else { break }
            let dataSize = size - (head[0] & 0x40 != 0 && size > 0 ? 1 : 0)
            switch head[0] & 0x3F {
            case 0x0D where dataSize >= 1:
                result.channels = Int(try source.getBytes(at: dataStart, count: 1)[0])
            case 0x27 where dataSize >= 3:
                let bytes = try source.getBytes(at: dataStart, count: 3)
                result.sampleRate = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
            default:
                break
            }
            position = dataStart + size
        }
        return result
    }

    /// The samples of every frame: the sum of the sample counts of the
    /// blocks that start a frame, up to the first spot that is not a block.
    private static func countSamples(_ source: FileSource, from start: Int64, end: Int64) throws -> UInt64 {
        var position = start
        var samples: UInt64 = 0
        for _ in 0..<maximumBlocks {
            guard let block = try? WavPackBlockHeader(parsing: source, at: position, end: end) else { break }
            if block.flags & WavPackBlockHeader.initialBlockFlag != 0 { samples += UInt64(block.blockSamples) }
            position += block.length
        }
        return samples
    }
}
