#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The start of an AC-3 or E-AC-3 frame: sync information and the first
/// fields of the bit stream information (ATSC A/52:2018), read from its first
/// 8 bytes. `bsid` (the 5 bits after the sync information) tells them apart:
/// up to 8 is AC-3 (9 and 10: AC-3 at half and quarter rates, as ffmpeg
/// reads them), 11 to 16 E-AC-3.
///
/// AC-3 (§5.3.1 syncinfo, §5.3.2 bsi):
///
///     syncword 16 (0x0B77), crc1 16, fscod 2, frmsizecod 6,
///     bsid 5, bsmod 3, acmod 3, [cmixlev 2], [surmixlev 2], [dsurmod 2], lfeon 1
///
/// The frame is `frmsizecod`'s bit rate (Table 5.18) × 1536 samples long;
/// at 44.1 kHz odd codes add a word.
///
/// E-AC-3 (Annex E §E.1.2.1 syncinfo, §E.1.2.2 bsi):
///
///     syncword 16, strmtyp 2, substreamid 3, frmsiz 11 (words − 1),
///     fscod 2, fscod2 / numblkscod 2, acmod 3, lfeon 1, bsid 5
struct AC3FrameHeader: Equatable {
    var isEnhanced: Bool
    var bsid: UInt8
    var sampleRate: Int
    var frameLength: Int
    /// Audio blocks of 256 samples: 6 in AC-3, 1, 2, 3 or 6 in E-AC-3.
    var blocks: Int
    var acmod: UInt8
    var lfeOn: Bool
    /// E-AC-3: 0 independent, 1 dependent, 2 AC-3-converted independent.
    var streamType: UInt8
    var substreamID: UInt8
    /// AC-3: the nominal bit rate of `frmsizecod`.
    var nominalBitrate: Int?

    static let length = 8

    /// AC-3 bit rates in kbit/s by `frmsizecod / 2` (A/52 Table 5.18).
    static let bitrates = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]
    static let sampleRates = [48000, 44100, 32000]
    /// Full-bandwidth channels by `acmod` (A/52 Table 5.8; 0 is 1+1 dual mono).
    static let acmodChannels = [2, 1, 2, 3, 3, 4, 4, 5]

    init?(_ bytes: ArraySlice<UInt8>) {
        let b = Array(bytes.prefix(Self.length))
        guard b.count == Self.length, b[0] == 0x0B, b[1] == 0x77 else { return nil }
        bsid = b[5] >> 3
        switch bsid {
        case 0...10:
            isEnhanced = false
            let fscod = Int(b[4] >> 6), frmsizecod = Int(b[4] & 0x3F)
            guard fscod < 3, frmsizecod < 38 else { return nil }
            let shift = max(Int(bsid), 8) - 8
            let kbps = Self.bitrates[frmsizecod >> 1]
            let baseRate = Self.sampleRates[fscod]
            let words = kbps * 96_000 / baseRate + (fscod == 1 ? frmsizecod & 1 : 0)
            sampleRate = baseRate >> shift
            nominalBitrate = (kbps * 1000) >> shift
            frameLength = words * 2
            blocks = 6
            streamType = 0
            substreamID = 0
            // acmod, then 0–6 bits of mix levels, then lfeon.
            var bits = BitCursor(b, bit: 48)
            acmod = UInt8(bits.read(3))
            if acmod & 1 == 1 && acmod != 1 { _ = bits.read(2) }
            if acmod & 4 == 4 { _ = bits.read(2) }
            if acmod == 2 { _ = bits.read(2) }
            lfeOn = bits.read(1) == 1
        case 11...16:
            isEnhanced = true
            nominalBitrate = nil
            streamType = b[2] >> 6
            substreamID = b[2] >> 3 & 0x07
            frameLength = ((Int(b[2] & 0x07) << 8 | Int(b[3])) + 1) * 2
            let fscod = Int(b[4] >> 6), code = Int(b[4] >> 4 & 0x03)
            guard streamType < 3 else { return nil }
            if fscod == 3 {
                guard code < 3 else { return nil }
                sampleRate = Self.sampleRates[code] / 2
                blocks = 6
            } else {
                sampleRate = Self.sampleRates[fscod]
                blocks = [1, 2, 3, 6][code]
            }
            acmod = b[4] >> 1 & 0x07
            lfeOn = b[4] & 1 == 1
        default:
            return nil
        }
        guard frameLength >= Self.length else { return nil }
    }

    var channels: Int { Self.acmodChannels[Int(acmod)] + (lfeOn ? 1 : 0) }

    var codec: String { isEnhanced ? "E-AC-3" : "AC-3" }

    /// Whether the frame's samples count toward the duration: every AC-3
    /// frame, and the E-AC-3 frames of independent substream 0.
    var isMainStream: Bool { !isEnhanced || (streamType != 1 && substreamID == 0) }

    /// The frame as the stream scanner sees it; the stream key is the family
    /// and the sample rate (E-AC-3 substreams of one program differ in the rest).
    var frame: ElementaryStreamFrame {
        ElementaryStreamFrame(
            length: frameLength, samples: isMainStream ? blocks * 256 : 0, sampleRate: sampleRate,
            streamKey: (isEnhanced ? 1 << 31 : 0) | UInt32(sampleRate))
    }
}

/// Reads bits most significant first from a byte array.
private struct BitCursor {
    let bytes: [UInt8]
    var bit: Int

    init(_ bytes: [UInt8], bit: Int) {
        self.bytes = bytes
        self.bit = bit
    }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = bit / 8 < bytes.count ? bytes[bit / 8] : 0
            value = value << 1 | Int(byte >> (7 - UInt8(bit % 8)) & 1)
            bit += 1
        }
        return value
    }
}
