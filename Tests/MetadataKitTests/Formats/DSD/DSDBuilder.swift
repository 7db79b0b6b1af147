import Foundation

@testable import MetadataKit

/// Small DSF and DSDIFF files built from the specifications, holding the
/// DSD idle pattern (0x69) as audio: ffmpeg and sox can't write either.
enum DSDBuilder {
    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func be64(_ value: UInt64) -> [UInt8] { le64(value).reversed() }
    static func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The DSD idle pattern.
    static let idle: UInt8 = 0x69

    // MARK: DSF (Sony DSF File Format Specification 1.01)

    /// A DSF file: 'DSD ' chunk, 'fmt ' chunk, 'data' chunk with `blocks`
    /// 4096-byte blocks per channel, then `tag` (the pointer leads there
    /// unless `pointer` says otherwise). `total` overrides the total file size.
    static func dsf(
        channels: UInt32 = 2, rate: UInt32 = 2_822_400, blocks: Int = 2, samples: UInt64? = nil, tag: [UInt8]? = nil,
        pointer: UInt64? = nil, total: UInt64? = nil, dataSize: UInt64? = nil, after: [UInt8] = []
    ) -> [UInt8] {
        let blockSize = 4096
        let data = [UInt8](repeating: idle, count: blockSize * blocks * Int(channels))
        let sampleCount = samples ?? UInt64(blockSize * blocks * 8)
        var fmt = Array("fmt ".utf8) + le64(52) + le32(1) + le32(0)
        fmt += le32(channels == 1 ? 1 : 2) + le32(channels) + le32(rate) + le32(1) + le64(sampleCount) + le32(UInt32(blockSize)) + le32(0)
        let dataChunk = Array("data".utf8) + le64(dataSize ?? UInt64(12 + data.count)) + data
        let tagOffset = UInt64(28 + fmt.count + dataChunk.count)
        let size = UInt64(28 + fmt.count + dataChunk.count + (tag?.count ?? 0) + after.count)
        let header = Array("DSD ".utf8) + le64(28) + le64(total ?? size) + le64(pointer ?? (tag == nil ? 0 : tagOffset))
        return header + fmt + dataChunk + (tag ?? []) + after
    }

    /// Offset of the sample data in ``dsf(channels:rate:blocks:samples:tag:pointer:total:dataSize:after:)``.
    static let dsfDataOffset = 28 + 52 + 12

    // MARK: DSDIFF (Philips DSDIFF 1.5)

    /// A chunk: ID, 64-bit big-endian size, data, pad byte.
    static func chunk(_ id: String, _ data: [UInt8], size: UInt64? = nil) -> [UInt8] {
        Array(id.utf8) + be64(size ?? UInt64(data.count)) + data + (data.count & 1 == 1 ? [0] : [])
    }

    /// 'PROP' with 'FS  ', 'CHNL', 'CMPR' (§3.3).
    static func prop(channels: UInt16 = 2, rate: UInt32 = 2_822_400, compression: String = "DSD ") -> [UInt8] {
        let ids = ["SLFT", "SRGT", "C   ", "LFE ", "LS  ", "RS  "]
        let chnl = be16(channels) + (0..<Int(channels)).flatMap { Array(ids[$0 % ids.count].utf8) }
        let name = compression == "DSD " ? "not compressed" : "DST Encoded"
        let cmpr = Array(compression.utf8) + [UInt8(name.utf8.count)] + Array(name.utf8)
        return chunk("PROP", Array("SND ".utf8) + chunk("FS  ", be32(rate)) + chunk("CHNL", chnl) + chunk("CMPR", cmpr))
    }

    /// A 'DIIN' chunk with 'DITI'/'DIAR' text and an 'EMID'.
    static func diin(title: String? = nil, artist: String? = nil, emid: String? = "emid-0001") -> [UInt8] {
        func text(_ id: String, _ value: String) -> [UInt8] { chunk(id, be32(UInt32(value.utf8.count)) + Array(value.utf8)) }
        var body: [UInt8] = []
        if let emid { body += chunk("EMID", Array(emid.utf8)) }
        if let artist { body += text("DIAR", artist) }
        if let title { body += text("DITI", title) }
        return chunk("DIIN", body)
    }

    /// A DSDIFF file: 'FVER', 'PROP', 'DSD ' with `bytes` of idle pattern, then `after` chunks.
    static func dff(channels: UInt16 = 2, rate: UInt32 = 2_822_400, bytes: Int = 16_384, after: [[UInt8]] = [], formSize: UInt64? = nil)
        -> [UInt8]
    {
        let body =
            chunk("FVER", be32(0x0105_0000)) + prop(channels: channels, rate: rate)
            + chunk("DSD ", [UInt8](repeating: idle, count: bytes)) + after.flatMap { $0 }
        return Array("FRM8".utf8) + be64(formSize ?? UInt64(body.count + 4)) + Array("DSD ".utf8) + body
    }

    /// An ID3v2 tag with text frames.
    static func id3(_ frames: [(String, String)], version: UInt8 = 4, padding: Int = 0) -> [UInt8] {
        RIFFBuilder.id3(frames, version: version, padding: padding)
    }

    // MARK: Files

    /// A new folder holding `name` with `bytes`; remove it with ``remove(_:)``.
    static func file(_ bytes: [UInt8], name: String) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// Removes the folder ``file(_:name:)`` made (and nothing else).
    static func remove(_ url: URL) {
        let folder = url.deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("mdkit-tests-") else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The parse of `bytes` through detection.
    static func parse(_ bytes: [UInt8], name: String) throws -> ParsedFile {
        let url = try file(bytes, name: name)
        defer { remove(url) }
        let source = try FileSource(url: url)
        return try MediaFormat.detect(source, url: url).parse(source, url)
    }
}
