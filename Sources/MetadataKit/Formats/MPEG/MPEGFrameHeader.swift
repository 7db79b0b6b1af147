#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The 4-byte header of an MPEG audio frame (ISO/IEC 11172-3 §2.4.1.3,
/// ISO/IEC 13818-3 §2.4.1.3 for the lower sample rates, and the unofficial
/// MPEG 2.5 extension).
///
///     AAAAAAAA AAABBCCD EEEEFFGH IIJJKLMM
///     A sync (11 bits)   B version   C layer   D protection (0 = CRC follows)
///     E bitrate index    F sample-rate index   G padding   H private
///     I channel mode     J mode extension      K copyright L original  M emphasis
struct MPEGFrameHeader: Sendable, Equatable {
    enum Version: Sendable, Equatable {
        case mpeg1, mpeg2, mpeg25
    }

    var version: Version
    /// 1, 2 or 3.
    var layer: Int
    /// Bits per second.
    var bitrate: Int
    /// Samples per second.
    var sampleRate: Int
    var isPadded: Bool
    /// True when a 16-bit CRC follows the header.
    var hasCRC: Bool
    /// 0 stereo, 1 joint stereo, 2 dual channel, 3 single channel.
    var channelMode: Int

    /// Kilobits per second by bitrate index 1…14, per version and layer.
    private static let bitrates: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // MPEG-1 layer I
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // MPEG-1 layer II
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // MPEG-1 layer III
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256], // MPEG-2/2.5 layer I
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // MPEG-2/2.5 layers II, III
    ]
    /// Hertz by sample rate index 0…2, MPEG-1, MPEG-2 and MPEG-2.5 in turn
    /// (a flat list: a dictionary keyed by version costs the process a
    /// conformance lookup when it is first made).
    private static let sampleRates: [Int] = [44100, 48000, 32000, 22050, 24000, 16000, 11025, 12000, 8000]

    /// Parses a header from its 32 bits. Nil when it is not a usable header:
    /// no sync, reserved version, layer, sample rate or emphasis, and the
    /// "free" and "bad" bitrate indexes (a free-format stream has no length
    /// in its header).
    init?(_ word: UInt32) {
        guard word & 0xFFE0_0000 == 0xFFE0_0000 else { return nil }
        switch word >> 19 & 3 {
        case 0: version = .mpeg25
        case 2: version = .mpeg2
        case 3: version = .mpeg1
        default: return nil
        }
        let layerBits = Int(word >> 17 & 3)
        guard layerBits != 0 else { return nil }
        layer = 4 - layerBits
        let bitrateIndex = Int(word >> 12 & 0xF)
        guard bitrateIndex != 0, bitrateIndex != 15 else { return nil }
        let sampleRateIndex = Int(word >> 10 & 3)
        guard sampleRateIndex != 3, word & 3 != 2 else { return nil }
        let table = version == .mpeg1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitrate = Self.bitrates[table][bitrateIndex - 1] * 1000
        let versionRow =
            switch version {
            case .mpeg1: 0
            case .mpeg2: 3
            case .mpeg25: 6
            }
        sampleRate = Self.sampleRates[versionRow + sampleRateIndex]
        hasCRC = word >> 16 & 1 == 0
        isPadded = word >> 9 & 1 == 1
        channelMode = Int(word >> 6 & 3)
    }

    /// Parses the header at the start of `bytes` (at least 4 bytes).
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 4 else { return nil }
        let i = bytes.startIndex
        self.init(UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3]))
    }

    /// PCM samples per channel in one frame.
    var samplesPerFrame: Int {
        switch layer {
        case 1: return 384
        case 2: return 1152
        default: return version == .mpeg1 ? 1152 : 576
        }
    }

    /// Frame length in bytes, header included (ISO/IEC 11172-3 §2.4.3.1):
    /// layer I counts 4-byte slots, layers II and III bytes.
    var frameLength: Int {
        if layer == 1 {
            return (12 * bitrate / sampleRate + (isPadded ? 1 : 0)) * 4
        }
        return samplesPerFrame / 8 * bitrate / sampleRate + (isPadded ? 1 : 0)
    }

    var channels: Int { channelMode == 3 ? 1 : 2 }

    /// "MP1", "MP2" or "MP3".
    var codec: String { "MP\(layer)" }

    /// Length of the layer III side information that follows the header (and
    /// where a Xing/Info header starts): 32/17 bytes for MPEG-1
    /// stereo/mono, 17/9 for MPEG-2 and 2.5.
    var sideInfoLength: Int {
        version == .mpeg1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
    }

    /// True when `other` can be the next frame of the same stream.
    func isCompatible(with other: MPEGFrameHeader) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
    }
}
