#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The audio format a WAV or AIFF file header states, read from the header
/// bytes alone (a lossless stream such as Shorten keeps them verbatim).
///
/// WAV: "RIFF", size, "WAVE", then chunks (ID, 32-bit little-endian size,
/// data, a pad byte after an odd size): `fmt ` gives the channels, rate,
/// block align and bits; `data`'s size the length. AIFF/AIFF-C: "FORM",
/// size, "AIFF"/"AIFC", big-endian chunks: `COMM` (``AIFFCommon``).
struct EmbeddedAudioHeader: Equatable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// Sample frames; nil when the header doesn't say.
    var frames: Int64?

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 12 else { return nil }
        let form = String(decoding: bytes[0..<4], as: UTF8.self), kind = String(decoding: bytes[8..<12], as: UTF8.self)
        var reader = ByteReader(Array(bytes[12...]))
        if form == "RIFF", kind == "WAVE" {
            var format: (channels: Int, rate: Int, align: Int, bits: Int)?
            var dataSize: Int64?
            while reader.remaining >= 8, dataSize == nil {
                guard let id = try? reader.readFourCC(), let size = try? Int(reader.readUInt32(.little)) else { break }
                if id == "fmt ", size >= 16, var fmt = try? reader.readReader(count: 16) {
                    _ = try? fmt.readUInt16(.little)
                    let channels = Int((try? fmt.readUInt16(.little)) ?? 0), rate = Int((try? fmt.readUInt32(.little)) ?? 0)
                    _ = try? fmt.readUInt32(.little)
                    let align = Int((try? fmt.readUInt16(.little)) ?? 0), bits = Int((try? fmt.readUInt16(.little)) ?? 0)
                    format = (channels, rate, align, bits)
                    guard (try? reader.skip(size - 16 + (size & 1))) != nil else { break }
                } else if id == "data" {
                    dataSize = Int64(size)
                } else {
                    guard (try? reader.skip(size + (size & 1))) != nil else { break }
                }
            }
            guard let format, format.channels > 0, format.rate > 0 else { return nil }
            sampleRate = format.rate
            channels = format.channels
            bitsPerSample = format.bits
            // A streamed WAV's sizes are 0 or 0xFFFFFFFF: no length.
            frames = dataSize.flatMap { $0 > 0 && $0 < 0xFFFF_FFFF && format.align > 0 ? $0 / Int64(format.align) : nil }
        } else if form == "FORM", kind == "AIFF" || kind == "AIFC" {
            while reader.remaining >= 8 {
                guard let id = try? reader.readFourCC(), let size = try? Int(reader.readUInt32()) else { return nil }
                if id == "COMM" {
                    guard let comm = try? reader.readReader(count: min(size, reader.remaining)),
                        let common = try? AIFFCommon(comm, isAIFC: kind == "AIFC"), common.sampleRate >= 1
                    else { return nil }
                    sampleRate = Int(common.sampleRate.rounded())
                    channels = common.channels
                    bitsPerSample = common.sampleSize
                    frames = common.sampleFrames
                    return
                }
                guard (try? reader.skip(size + (size & 1))) != nil else { return nil }
            }
            return nil
        } else {
            return nil
        }
    }
}
