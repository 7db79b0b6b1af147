#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fixed and variable header of an ADTS frame (ISO/IEC 13818-7 §6.2.1,
/// ISO/IEC 14496-3 §1.A.2.2), 7 bytes (9 with the CRC):
///
///     syncword 12 (0xFFF), ID 1, layer 2 (0), protection_absent 1,
///     profile_ObjectType 2, sampling_frequency_index 4, private_bit 1,
///     channel_configuration 3, original_copy 1, home 1,
///     copyright_identification_bit 1, copyright_identification_start 1,
///     aac_frame_length 13 (header included), adts_buffer_fullness 11,
///     number_of_raw_data_blocks_in_frame 2 (blocks − 1, 1024 samples each)
struct ADTSFrameHeader: Equatable {
    /// 0: MPEG-4, 1: MPEG-2.
    var mpegVersionID: UInt8
    var hasCRC: Bool
    /// The MPEG-4 audio object type minus one: 0 Main, 1 LC, 2 SSR, 3 LTP.
    var profile: UInt8
    var samplingFrequencyIndex: UInt8
    /// 0: given by a program config element; 1–6 that many channels; 7: 8 channels.
    var channelConfiguration: UInt8
    var frameLength: Int
    var rawDataBlocks: Int

    static let length = 7

    /// Sampling frequencies by index (ISO/IEC 14496-3 Table 1.18); 13–15 are not used in ADTS.
    static let sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Parses the header at the start of `bytes`; nil when it is not a valid one.
    init?(_ bytes: ArraySlice<UInt8>) {
        let b = Array(bytes.prefix(Self.length))
        guard b.count == Self.length, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        mpegVersionID = b[1] >> 3 & 1
        hasCRC = b[1] & 1 == 0
        profile = b[2] >> 6
        samplingFrequencyIndex = b[2] >> 2 & 0x0F
        channelConfiguration = (b[2] & 1) << 2 | b[3] >> 6
        frameLength = Int(b[3] & 0x03) << 11 | Int(b[4]) << 3 | Int(b[5]) >> 5
        rawDataBlocks = Int(b[6] & 0x03) + 1
        guard Int(samplingFrequencyIndex) < Self.sampleRates.count, frameLength >= Self.length + (hasCRC ? 2 : 0) else { return nil }
    }

    var sampleRate: Int { Self.sampleRates[Int(samplingFrequencyIndex)] }

    /// What makes `bytes` an ADTS frame header that can't be used, when they
    /// start with the ADTS sync word and layer bits but a field is out of
    /// range (nil otherwise): such a stream fails every format's recognition,
    /// and saying "no MPEG audio frame" would hide why.
    static func problem(in bytes: ArraySlice<UInt8>) -> String? {
        let b = Array(bytes.prefix(length))
        guard b.count == length, b[0] == 0xFF, b[1] & 0xF6 == 0xF0, Self(bytes) == nil else { return nil }
        let index = Int(b[2] >> 2 & 0x0F)
        if index >= sampleRates.count {
            return
                "an ADTS (AAC) frame header has sampling-frequency index \(index), which ADTS doesn't use (0–12, ISO/IEC 14496-3 Table 1.18)"
        }
        let frameLength = Int(b[3] & 0x03) << 11 | Int(b[4]) << 3 | Int(b[5]) >> 5
        return "an ADTS (AAC) frame header gives a frame length of \(frameLength) bytes, shorter than its own header"
    }

    /// Channels from the channel configuration; nil for 0 (a program config element says).
    var channels: Int? {
        switch channelConfiguration {
        case 0: return nil
        case 7: return 8
        default: return Int(channelConfiguration)
        }
    }

    /// "AAC LC", "AAC Main", "AAC SSR", "AAC LTP".
    var codec: String { "AAC " + ["Main", "LC", "SSR", "LTP"][Int(profile)] }

    /// The frame as the stream scanner sees it; the stream key is the fixed
    /// header without the private and original/home bits.
    var frame: ElementaryStreamFrame {
        ElementaryStreamFrame(
            length: frameLength, samples: rawDataBlocks * 1024, sampleRate: sampleRate,
            streamKey: UInt32(mpegVersionID) << 16 | UInt32(profile) << 12 | UInt32(samplingFrequencyIndex) << 4
                | UInt32(channelConfiguration))
    }
}
