import Foundation

@testable import MetadataKit

/// Hand-built files of the APEv2 family: APE tags byte by byte, and codec
/// headers (with a little payload) for the codecs that have no encoder here.
/// Each layout cites where it comes from.
enum APEBuilder {
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
    static func le32(_ value: Int) -> [UInt8] { le32(UInt32(truncatingIfNeeded: value)) }

    /// An APEv2 item: value size, flags, key, 0, value (APEv2 specification, "APE Tag Item").
    static func item(_ key: String, _ value: [UInt8], flags: UInt32 = 0) -> [UInt8] {
        le32(value.count) + le32(flags) + Array(key.utf8) + [0] + value
    }

    static func text(_ key: String, _ value: String, flags: UInt32 = 0) -> [UInt8] {
        item(key, Array(value.utf8), flags: flags)
    }

    /// A header or footer ("APE Tag Header / Footer").
    static func footer(version: UInt32 = 2000, size: Int, count: Int, flags: UInt32) -> [UInt8] {
        Array("APETAGEX".utf8) + le32(version) + le32(size) + le32(count) + le32(flags) + [UInt8](repeating: 0, count: 8)
    }

    /// A whole tag; `count` and `size` may lie.
    static func tag(_ items: [[UInt8]], version: UInt32 = 2000, header: Bool = true, count: Int? = nil, size: Int? = nil) -> [UInt8] {
        let body = items.flatMap { $0 }
        let size = size ?? body.count + 32
        let count = count ?? items.count
        let head = header ? footer(version: version, size: size, count: count, flags: 0xA000_0000) : []
        return head + body + footer(version: version, size: size, count: count, flags: header ? 0x8000_0000 : 0)
    }

    /// An ID3v1.1 tag with a title and track 7.
    static func id3v1(title: String) -> [UInt8] {
        var bytes = Array("TAG".utf8) + [UInt8](repeating: 0, count: 125)
        for (index, byte) in title.utf8.prefix(30).enumerated() { bytes[3 + index] = byte }
        bytes[126] = 7
        bytes[127] = 255
        return bytes
    }

    /// Payload bytes standing for the compressed audio.
    static func payload(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// Monkey's Audio 3.99: the 52-byte descriptor and 24-byte header (MAC
    /// SDK `APE_DESCRIPTOR`, `APE_HEADER`): 2 frames of 73728 blocks, the last
    /// 10000, 16 bits, stereo, 44.1 kHz — 83728 samples.
    static func monkeysAudio() -> [UInt8] {
        var bytes = Array("MAC ".utf8) + le16(3990) + le16(0)
        bytes += le32(52) + le32(24) + le32(8) + le32(0) + le32(400) + le32(0) + le32(0) + [UInt8](repeating: 0xAB, count: 16)
        bytes += le16(2000) + le16(0) + le32(73728) + le32(10000) + le32(2) + le16(16) + le16(2) + le32(44100)
        return bytes + le32(0) + le32(200) + payload(400)
    }

    /// Monkey's Audio 3.97 (before the descriptor, MAC SDK `APE_HEADER_OLD`):
    /// flags 8 (24 bits), mono, 22.05 kHz, 1 frame of 11025 blocks (294912
    /// blocks a frame from 3.95) — 0.5 s.
    static func monkeysAudioOld() -> [UInt8] {
        var bytes = Array("MAC ".utf8) + le16(3970) + le16(2000) + le16(8) + le16(1) + le32(22050)
        bytes += le32(0) + le32(0) + le32(1) + le32(11025)
        return bytes + payload(300)
    }

    /// OptimFROG (`OFR ` header as mutagen and TagLib read it): 15 bytes of
    /// header data, 176400 samples over 2 channels, 16 bits (type 2), 44.1 kHz — 2 s.
    static func optimFROG() -> [UInt8] {
        var bytes = Array("OFR ".utf8) + le32(15) + le32(176400) + le16(0) + [2, 1] + le32(44100)
        bytes += le16(0x0123) + [0]
        return bytes + payload(300)
    }

    /// TAK: `tBaK`, a STREAMINFO object (type 1, 10 bytes of data and a
    /// 3-byte CRC; the bit field described in ``TAKStreamInfo``), the END
    /// object: 96000 samples at 48 kHz, 24 bits, 6 channels — 2 s.
    static func tak(samples: UInt64 = 96000, rate: Int = 48000, bits: Int = 24, channels: Int = 6) -> [UInt8] {
        var field: (low: UInt64, high: UInt64) = (0, 0)
        func put(_ value: UInt64, at bit: Int, _ count: Int) {
            for index in 0..<count where value >> index & 1 == 1 {
                let position = bit + index
                if position < 64 { field.low |= 1 << position } else { field.high |= 1 << (position - 64) }
            }
        }
        put(2, at: 0, 6)
        put(samples, at: 14, 35)
        put(UInt64(rate - 6000), at: 52, 18)
        put(UInt64(bits - 8), at: 70, 5)
        put(UInt64(channels - 1), at: 75, 4)
        let info = (0..<8).map { UInt8(field.low >> (8 * $0) & 0xFF) } + [UInt8(field.high & 0xFF), UInt8(field.high >> 8 & 0xFF)]
        var bytes = Array("tBaK".utf8) + [1, 13, 0, 0] + info + [0x11, 0x22, 0x33]
        bytes += [0, 0, 0, 0]
        return bytes + payload(300)
    }

    /// Musepack SV7 (the `MP+` header as mutagen and TagLib read it): 100
    /// frames, 48 kHz (index 1 in bits 16–17 of the flags) — 114624 samples.
    /// The frames as ffmpeg reads them (``APEStreamCut``): from byte 24, 32-bit
    /// little-endian words read from the high bit, 8 bits in; each frame a
    /// 20-bit length and that many bits (here 40–46 bits of a pattern).
    static func musepackSV7() -> [UInt8] {
        var bits = [Bool](repeating: false, count: 8)
        for index in 0..<100 {
            let length = 40 + index % 7
            bits += (0..<20).map { length >> (19 - $0) & 1 == 1 }
            bits += (0..<length).map { ($0 + index) % 3 == 0 }
        }
        bits += [Bool](repeating: false, count: (32 - bits.count % 32) % 32)
        var bytes = Array("MP+".utf8) + [0x17] + le32(100) + le32(1 << 16) + [UInt8](repeating: 0, count: 12)
        for start in stride(from: 0, to: bits.count, by: 32) {
            bytes += le32(bits[start..<start + 32].reduce(UInt32(0)) { $0 << 1 | ($1 ? 1 : 0) })
        }
        return bytes
    }

    /// OptimFROG laid out in chunks as encoder output is (a 4-character id
    /// and a u32 LE size): the ``optimFROG()`` header as an `OFR ` chunk, a
    /// `HEAD` chunk (the WAV header), a `COMP` chunk of 300 bytes, an empty `TAIL`.
    static func optimFROGChunks() -> [UInt8] {
        let header = Array(optimFROG()[0..<23])
        return header + Array("HEAD".utf8) + le32(44) + payload(44, seed: 7) + Array("COMP".utf8) + le32(300) + payload(300)
            + Array("TAIL".utf8) + le32(0)
    }

    /// ``tak()`` with a LAST_FRAME metadata object (type 7, 11 bytes: the
    /// last frame's 40-bit position after the metadata and its 24-bit size,
    /// then a CRC) before the END object: frames of 300 bytes, the last one
    /// at 200 and 100 bytes long.
    static func takWithLastFrame() -> [UInt8] {
        let plain = tak()
        let end = plain.count - 300 - 4 // the END object
        let field = UInt64(200) | UInt64(100) << 40
        let lastFrame: [UInt8] = [7, 11, 0, 0] + (0..<8).map { UInt8(field >> (8 * $0) & 0xFF) } + [0x44, 0x55, 0x66]
        return Array(plain[0..<end]) + lastFrame + Array(plain[end...])
    }

    /// Musepack SV5 (no marker; version in bits 11–20 of the first u32, the
    /// bit rate in kbit/s in bits 23–31, the frame count u32 at 4, one too many).
    static func musepackSV5() -> [UInt8] {
        let word = UInt32(5) << 11 | UInt32(128) << 23
        return le32(word) + le32(201) + [UInt8](repeating: 0, count: 24) + payload(300)
    }

    /// Every hand-built stream with its format and what its header says:
    /// (name, format identifier, file extension, bytes, sample rate, channels, bits, samples).
    struct Stream: Sendable, CustomStringConvertible {
        var name: String
        var format: String
        var pathExtension: String
        var bytes: [UInt8]
        var rate: Int
        var channels: Int
        var bits: Int?
        var samples: Int
        var description: String { name }
    }

    static let streams: [Stream] = [
        Stream(name: "ape", format: "ape", pathExtension: "ape", bytes: monkeysAudio(), rate: 44100, channels: 2, bits: 16, samples: 83728),
        Stream(
            name: "ape-old", format: "ape", pathExtension: "ape", bytes: monkeysAudioOld(), rate: 22050, channels: 1, bits: 24,
            samples: 11025),
        Stream(
            name: "optimfrog", format: "optimfrog", pathExtension: "ofr", bytes: optimFROG(), rate: 44100, channels: 2, bits: 16,
            samples: 88200),
        Stream(name: "tak", format: "tak", pathExtension: "tak", bytes: tak(), rate: 48000, channels: 6, bits: 24, samples: 96000),
        Stream(
            name: "musepack-sv7", format: "musepack", pathExtension: "mpc", bytes: musepackSV7(), rate: 48000, channels: 2, bits: nil,
            samples: 100 * 1152 - 576),
        Stream(
            name: "musepack-sv5", format: "musepack", pathExtension: "mpc", bytes: musepackSV5(), rate: 44100, channels: 2, bits: nil,
            samples: 200 * 1152 - 576),
    ]

    /// A tag with every kind of item: text, several values, non-ASCII,
    /// binary, an external locator, a read-only item, a picture, mixed-case keys.
    static func richTag(picture: [UInt8]) -> [UInt8] {
        tag([
            text("Title", "Tïtle ✓ 日本"),
            item("Artist", Array("Ärtist One".utf8) + [0] + Array("Artist Two".utf8)),
            text("ALBUM", "Album"),
            text("Track", "3/12"),
            text("Disc", "1/2"),
            text("Year", "2021"),
            text("Genre", "Shoegaze"),
            text("Custom Thing", "keep me", flags: 1),
            item("Blob", [0, 1, 2, 255], flags: 2),
            item("Link", Array("http://example.com/ü".utf8), flags: 4),
            item("Cover Art (Front)", Array("cover.png".utf8) + [0] + picture, flags: 2),
        ])
    }
}
