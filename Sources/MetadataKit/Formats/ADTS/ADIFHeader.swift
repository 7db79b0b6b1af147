#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header of a raw AAC stream in ADIF framing (Audio Data Interchange
/// Format: ISO/IEC 14496-3 §1.A.2.1 `adif_header`, ISO/IEC 13818-7 §6.1),
/// which has one header at its start and no frame headers after it:
///
///     "ADIF", copyright_id_present 1 (then copyright_id 72), original_copy 1,
///     home 1, bitstream_type 1 (0: constant rate), bitrate 23,
///     num_program_config_elements 4 (one less than there are), and for each
///     program config element: adif_buffer_fullness 20 (constant rate only)
///     and the element (§4.4.1.1 `program_config_element`)
///
/// The first program config element gives the object type, the sampling
/// rate and the channels (one per single channel element, two per channel
/// pair element, one per LFE element), as mutagen reads them. With no frames
/// to count, the duration is the stream's bytes at the header's bit rate (a
/// peak rate for a variable-rate stream), the estimate mutagen and ffmpeg make.
struct ADIFHeader: Equatable {
    /// Bits per second (0 when the header gives none).
    var bitrate: Int
    var isConstantRate: Bool
    /// The MPEG-4 audio object type minus one (0 Main, 1 LC, 2 SSR, 3 LTP).
    var objectType: Int
    /// Nil for a sampling frequency index the table has no rate for.
    var sampleRate: Int?
    var channels: Int
    /// Bytes from "ADIF" to the first raw data block.
    var length: Int

    /// Most bytes a header can take: 16 program config elements, each with
    /// every element list full and a 255-byte comment.
    static let maximumLength = 4 + 13 + 16 * 600

    /// "AAC LC", as ``ADTSFrameHeader/codec``.
    var codec: String { "AAC " + ["Main", "LC", "SSR", "LTP"][objectType] }

    /// Whether `bytes` start with the ADIF identifier.
    static func starts(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: "ADIF".utf8) }

    /// Parses the header at the start of `bytes`; nil when they don't start
    /// with one or end inside it.
    init?(_ bytes: [UInt8]) {
        guard Self.starts(bytes) else { return nil }
        var bits = BitReader(bytes)
        guard bits.skip(32), let copyright = bits.read(1), bits.skip(copyright == 1 ? 72 : 0), bits.skip(2),
            let type = bits.read(1), let rate = bits.read(23), let elements = bits.read(4)
        else { return nil }
        isConstantRate = type == 0
        bitrate = rate
        var first: (objectType: Int, rateIndex: Int, channels: Int)?
        for _ in 0...elements {
            guard !isConstantRate || bits.skip(20), let element = Self.programConfigElement(&bits) else { return nil }
            if first == nil { first = element }
        }
        guard let first else { return nil }
        objectType = first.objectType
        sampleRate = first.rateIndex < ADTSFrameHeader.sampleRates.count ? ADTSFrameHeader.sampleRates[first.rateIndex] : nil
        channels = first.channels
        length = bits.position / 8 // the element ends byte-aligned
    }

    /// Reads a `program_config_element` (ISO/IEC 14496-3 §4.4.1.1, Table
    /// 4.2): its object type, sampling frequency index and channels.
    private static func programConfigElement(_ bits: inout BitReader) -> (objectType: Int, rateIndex: Int, channels: Int)? {
        guard bits.skip(4), let objectType = bits.read(2), let rateIndex = bits.read(4),
            let front = bits.read(4), let side = bits.read(4), let back = bits.read(4), let lfe = bits.read(2),
            let associated = bits.read(3), let coupling = bits.read(4)
        else { return nil }
        // Mono and stereo mixdown element numbers, the matrix mixdown index and pseudo surround flag.
        for extra in [4, 4, 3] {
            guard let present = bits.read(1), bits.skip(present == 1 ? extra : 0) else { return nil }
        }
        var channels = lfe
        for _ in 0..<(front + side + back) {
            guard let isPair = bits.read(1), bits.skip(4) else { return nil }
            channels += isPair == 1 ? 2 : 1
        }
        guard bits.skip(4 * lfe + 4 * associated + 5 * coupling) else { return nil }
        bits.alignToByte()
        guard let comment = bits.read(8), bits.skip(8 * comment) else { return nil }
        return (objectType, rateIndex, channels)
    }
}
