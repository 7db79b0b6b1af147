import Foundation

@testable import MetadataKit

/// Builds RIFF/RF64 WAVE and AIFF/AIFF-C files in memory for tests —
/// including wrong ones (sizes can be given as written).
enum RIFFBuilder {
    // MARK: Chunks

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * UInt32($0)) & 0xFF) } }
    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(value >> (8 * UInt64($0)) & 0xFF) } }
    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { ID3Builder.be32(value) }

    /// A chunk: ID, size (the payload's unless `size` is given), payload, pad byte when odd (unless `pad` is false).
    static func chunk(_ id: String, _ payload: [UInt8], bigEndian: Bool = false, size: UInt32? = nil, pad: Bool = true) -> [UInt8] {
        let length = size ?? UInt32(payload.count)
        var bytes = Array(id.utf8) + (bigEndian ? be32(length) : le32(length)) + payload
        if pad && payload.count & 1 == 1 { bytes.append(0) }
        return bytes
    }

    // MARK: WAVE

    /// A WAVEFORMATEX `fmt ` chunk.
    static func fmt(tag: Int = 1, channels: Int = 2, rate: UInt32 = 44_100, bits: Int = 16, extra: [UInt8]? = nil) -> [UInt8] {
        let align = channels * bits / 8
        var payload = le16(tag) + le16(channels) + le32(rate) + le32(rate * UInt32(align)) + le16(align) + le16(bits)
        if let extra { payload += le16(extra.count) + extra }
        return chunk("fmt ", payload)
    }

    /// A WAVE_FORMAT_EXTENSIBLE `fmt ` chunk whose sub-format is the standard GUID of `subTag`.
    static func extensibleFmt(subTag: Int, channels: Int = 2, rate: UInt32 = 48_000, bits: Int = 32, validBits: Int = 24) -> [UInt8] {
        let guid = le16(subTag) + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        return fmt(tag: 0xFFFE, channels: channels, rate: rate, bits: bits, extra: le16(validBits) + le32(3) + guid)
    }

    /// A `LIST`/`INFO` chunk with `entries` (ID, text); text gets its NUL.
    static func info(_ entries: [(String, String)]) -> [UInt8] {
        chunk("LIST", Array("INFO".utf8) + entries.flatMap { chunk($0.0, Array($0.1.utf8) + [0]) })
    }

    /// A WAVE file of `chunks`, with the RIFF size computed unless given.
    static func wave(_ chunks: [[UInt8]], riffSize: UInt32? = nil, form: String = "RIFF") -> [UInt8] {
        let body = chunks.flatMap { $0 }
        return Array(form.utf8) + le32(riffSize ?? UInt32(body.count + 4)) + Array("WAVE".utf8) + body
    }

    /// `frames` stereo 16-bit frames of a ramp.
    static func samples(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) } }

    /// A plain 16-bit stereo WAV: fmt, INFO (when given), data, then `after`.
    static func simpleWAV(info entries: [(String, String)] = [], dataBytes: Int = 400, after: [[UInt8]] = []) -> [UInt8] {
        var chunks = [fmt()]
        if !entries.isEmpty { chunks.append(info(entries)) }
        chunks.append(chunk("data", samples(dataBytes)))
        return wave(chunks + after)
    }

    /// An ID3v2.4 tag with text frames.
    static func id3(_ frames: [(String, String)], version: UInt8 = 4, padding: Int = 0) -> [UInt8] {
        var builder = ID3Builder(version: version)
        builder.frames = frames.map { ID3Builder.frame($0.0, ID3Builder.text([$0.1], encoding: 3), version: version) }
        builder.padding = padding
        return builder.bytes()
    }

    // MARK: AIFF

    /// An 80-bit IEEE extended number for a positive integer `value`.
    static func extended(_ value: UInt64) -> [UInt8] {
        guard value > 0 else { return [UInt8](repeating: 0, count: 10) }
        let shift = value.leadingZeroBitCount
        let exponent = 16383 + 63 - shift
        return be16(exponent) + (0..<8).map { UInt8((value << UInt64(shift)) >> (56 - 8 * UInt64($0)) & 0xFF) }
    }

    /// A `COMM` chunk; AIFF-C when `compression` is given.
    static func comm(
        channels: Int = 2, frames: UInt32 = 100, bits: Int = 16, rate: UInt64 = 44_100,
        compression: String? = nil, name: String = ""
    ) -> [UInt8] {
        var payload = be16(channels) + be32(frames) + be16(bits) + extended(rate)
        if let compression {
            payload += Array(compression.utf8) + [UInt8(name.utf8.count)] + Array(name.utf8)
            if (name.utf8.count + 1) & 1 == 1 { payload.append(0) }
        }
        return chunk("COMM", payload, bigEndian: true)
    }

    static func ssnd(_ bytes: Int) -> [UInt8] {
        chunk("SSND", be32(0) + be32(0) + samples(bytes), bigEndian: true)
    }

    static func text(_ id: String, _ value: String) -> [UInt8] { chunk(id, Array(value.utf8), bigEndian: true) }

    static func aiff(_ chunks: [[UInt8]], formSize: UInt32? = nil, type: String = "AIFF") -> [UInt8] {
        let body = chunks.flatMap { $0 }
        return Array("FORM".utf8) + be32(formSize ?? UInt32(body.count + 4)) + Array(type.utf8) + body
    }

    // MARK: Files

    static func file(_ bytes: [UInt8], ext: String) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.\(ext)")
        try Data(bytes).write(to: url)
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    /// Reads `bytes` through the format detector, for failure tests.
    static func parse(_ bytes: [UInt8], ext: String = "wav") throws -> ParsedFile {
        let url = try file(bytes, ext: ext)
        defer { remove(url) }
        let source = try FileSource(url: url)
        return try MediaFormat.detect(source, url: url).parse(source, url)
    }

    /// The error code `body` throws, nil when it doesn't throw.
    static func code(_ body: () throws -> Any) -> MediaError.Code? {
        do { _ = try body() } catch let error as MediaError { return error.code } catch { return MediaError.Code(rawValue: "other") }
        return nil
    }

    /// The payload of the first top-level chunk `id` of a RIFF or FORM file
    /// (walked here, not by the library), nil when there is none.
    static func payload(of id: String, in url: URL) throws -> [UInt8]? {
        let bytes = [UInt8](try Data(contentsOf: url))
        let little = !bytes.starts(with: Array("FORM".utf8))
        var offset = 12
        while offset + 8 <= bytes.count {
            let raw = Array(bytes[offset + 4..<offset + 8])
            let size = little ? raw.reversed().reduce(0) { $0 << 8 | Int($1) } : raw.reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == id {
                return Array(bytes[offset + 8..<min(bytes.count, offset + 8 + size)])
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    /// The 32-bit container size of a RIFF or FORM file.
    static func containerSize(_ url: URL) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: url))
        let raw = Array(bytes[4..<8])
        return bytes.starts(with: Array("FORM".utf8)) ? raw.reduce(0) { $0 << 8 | Int($1) } : raw.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The top-level chunk IDs of a RIFF (little-endian) or FORM file.
    static func chunkIDs(_ url: URL) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: url))
        let little =
            bytes.starts(with: Array("RIFF".utf8)) || bytes.starts(with: Array("RF64".utf8)) || bytes.starts(with: Array("BW64".utf8))
        var ids: [String] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let raw = Array(bytes[offset + 4..<offset + 8])
            let size = little ? raw.reversed().reduce(0) { $0 << 8 | Int($1) } : raw.reduce(0) { $0 << 8 | Int($1) }
            ids.append(id)
            offset += 8 + (size == 0xFFFF_FFFF ? bytes.count : size + (size & 1))
        }
        return ids
    }
}
