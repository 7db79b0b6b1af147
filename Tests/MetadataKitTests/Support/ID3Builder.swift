import CZlib
import Foundation

@testable import MetadataKit

/// Builds ID3v2 tags, ID3v1 tags and MPEG frames in memory for tests —
/// including wrong ones (sizes can be overridden).
struct ID3Builder {
    var version: UInt8 = 4
    var flags: UInt8 = 0
    var frames: [[UInt8]] = []
    var padding = 0
    /// Bytes of an extended header (sets flag b).
    var extendedHeader: [UInt8]?
    /// Replaces the computed tag size (written syncsafe unless `rawSize`).
    var sizeOverride: UInt32?
    /// Adds a v2.4 footer (sets flag d).
    var footer = false
    /// Unsynchronises the whole body and sets flag a (v2.2/v2.3).
    var unsynchronise = false

    init(version: UInt8 = 4) { self.version = version }

    /// The tag's bytes.
    func bytes() -> [UInt8] {
        var body: [UInt8] = []
        var flags = self.flags
        if let extendedHeader {
            body += extendedHeader
            flags |= 0x40
        }
        for frame in frames { body += frame }
        body += [UInt8](repeating: 0, count: padding)
        if unsynchronise {
            body = Self.unsynchronised(body)
            flags |= 0x80
        }
        if footer { flags |= 0x10 }
        let size = Self.syncsafe(sizeOverride ?? UInt32(body.count))
        var tag = Array("ID3".utf8) + [version, 0, flags] + size + body
        if footer { tag += Array("3DI".utf8) + [version, 0, flags] + size }
        return tag
    }

    // MARK: Frames

    /// A frame: header (6 bytes for v2.2, 10 after) and payload. The size is
    /// syncsafe for v2.4 unless `plainSize`, or `sizeOverride` as written.
    static func frame(
        _ id: String, _ payload: [UInt8], version: UInt8 = 4, flags: UInt16 = 0,
        sizeOverride: UInt32? = nil, plainSize: Bool = false
    ) -> [UInt8] {
        let size = sizeOverride ?? UInt32(payload.count)
        if version == 2 {
            return Array(id.utf8) + [UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + payload
        }
        let sizeBytes = version == 4 && !plainSize && sizeOverride == nil ? syncsafe(size) : be32(size)
        return Array(id.utf8) + sizeBytes + [UInt8(flags >> 8), UInt8(flags & 0xFF)] + payload
    }

    /// A text frame payload: encoding byte, strings separated by terminators.
    static func text(_ strings: [String], encoding: UInt8, terminate: Bool = false) -> [UInt8] {
        var payload: [UInt8] = [encoding]
        for (index, string) in strings.enumerated() {
            if index > 0 { payload += terminator(encoding) }
            payload += encode(string, encoding: encoding)
        }
        if terminate { payload += terminator(encoding) }
        return payload
    }

    static func terminator(_ encoding: UInt8) -> [UInt8] {
        encoding == 1 || encoding == 2 ? [0, 0] : [0]
    }

    /// `string` in ID3 encoding `encoding` (UTF-16 with a little-endian BOM for 1).
    static func encode(_ string: String, encoding: UInt8, bigEndianBOM: Bool = false) -> [UInt8] {
        switch encoding {
        case 0: return string.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        case 1:
            let units = Array(string.utf16)
            if bigEndianBOM { return [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
            return [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case 2: return Array(string.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default: return Array(string.utf8)
        }
    }

    /// A `COMM`/`USLT` payload.
    static func comment(_ text: String, description: String = "", language: String = "eng", encoding: UInt8 = 3) -> [UInt8] {
        [encoding] + Array(language.utf8) + encode(description, encoding: encoding) + terminator(encoding)
            + encode(text, encoding: encoding)
    }

    /// An `APIC` payload (or v2.2 `PIC` when `legacyFormat` is given).
    static func picture(
        _ image: [UInt8], mime: String = "image/png", type: UInt8 = 3, description: String = "",
        encoding: UInt8 = 0, legacyFormat: String? = nil
    ) -> [UInt8] {
        var payload: [UInt8] = [encoding]
        if let legacyFormat { payload += Array(legacyFormat.utf8) } else { payload += Array(mime.utf8) + [0] }
        payload += [type] + encode(description, encoding: encoding) + terminator(encoding) + image
        return payload
    }

    // MARK: Byte helpers

    static func syncsafe(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// Unsynchronisation: a zero after every `FF` followed by `111xxxxx` or
    /// `00`, and after a final `FF`.
    static func unsynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            output.append(byte)
            if byte == 0xFF {
                let next = index + 1 < bytes.count ? bytes[index + 1] : 0
                if next == 0 || next & 0xE0 == 0xE0 { output.append(0) }
            }
        }
        return output
    }

    /// zlib-compresses `bytes`.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = CZlib.compress(&output, &length, bytes, uLong(bytes.count))
        precondition(status == Z_OK)
        return Array(output[0..<Int(length)])
    }

    /// An ID3v1.1 tag (track when non-zero).
    static func id3v1(
        title: String = "", artist: String = "", album: String = "", year: String = "",
        comment: String = "", track: UInt8 = 0, genre: UInt8 = 255
    ) -> [UInt8] {
        func field(_ text: String, _ length: Int) -> [UInt8] {
            let bytes = Array(encode(text, encoding: 0).prefix(length))
            return bytes + [UInt8](repeating: 0, count: length - bytes.count)
        }
        return Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field(album, 30) + field(year, 4)
            + field(comment, track == 0 ? 30 : 28) + (track == 0 ? [] : [0, track]) + [genre]
    }

    // MARK: MPEG

    /// `count` MPEG-1 layer III frames, 128 kbit/s, 44.1 kHz, stereo, no
    /// padding: 417 bytes each.
    static func mpegFrames(_ count: Int) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: 417)
        frame[0] = 0xFF
        frame[1] = 0xFB
        frame[2] = 0x90
        frame[3] = 0x00
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// A first frame with a Xing header (frames and bytes fields), then `count` plain frames.
    static func xingStream(frames: UInt32, bytes: UInt32, tag: String = "Xing", count: Int = 5) -> [UInt8] {
        var first = mpegFrames(1)
        let offset = 4 + 32
        first.replaceSubrange(offset..<offset + 16, with: Array(tag.utf8) + be32(3) + be32(frames) + be32(bytes))
        return first + mpegFrames(count)
    }

    // MARK: Files

    /// Writes `bytes` to a new temporary file.
    static func file(_ bytes: [UInt8], ext: String = "mp3") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("mdkit-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        return url
    }

    /// Loads `bytes` through ``MediaItem``.
    static func load(_ bytes: [UInt8]) async throws -> MediaItem {
        let url = try file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        return item
    }

    /// Reads `bytes` with ``MP3Parser`` directly. The file is removed before
    /// returning, so lazily read pictures can't be read: use ``withFile(_:_:)``.
    static func parse(_ bytes: [UInt8]) throws -> ParsedFile {
        try withFile(bytes) { try MP3Parser.parse(try FileSource(url: $0), $0) }
    }

    /// Runs `body` with a temporary file holding `bytes`, then removes it.
    static func withFile<T>(_ bytes: [UInt8], _ body: (URL) throws -> T) throws -> T {
        let url = try file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// A 3×2 PNG.
    static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0x12, 0x16, 0xF1,
        0x4D, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0x00,
        0x41, 0x0C, 0x70, 0x16, 0x00, 0x41, 0xD2, 0x05, 0xFB, 0x87, 0xF0, 0xB9, 0x48, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

extension ParsedFile {
    /// The first item with `key` (in key space `keySpace`).
    func item(_ key: String, _ keySpace: MetadataKeySpace = .id3) -> MetadataItem? {
        items.first { $0.key == key && $0.keySpace == keySpace }
    }
}

extension MediaItem {
    func item(_ key: String, _ keySpace: MetadataKeySpace = .id3) -> MetadataItem? {
        metadata.items.first { $0.key == key && $0.keySpace == keySpace }
    }
}

/// Whether a command-line tool (or a Python module, `python3:<module>`) is
/// available; the ID3 tests' names for the shared helpers in ``TestSupport``.
enum ToolCheck {
    static func has(_ tool: String) -> Bool {
        tool.hasPrefix("python3:") ? TestSupport.hasPythonModule(String(tool.dropFirst(8))) : TestSupport.hasTool(tool)
    }

    /// Runs `tool` with `arguments`, returns its exit status (-1 when it can't start).
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        (try? TestSupport.run(tool, arguments).status) ?? -1
    }
}
