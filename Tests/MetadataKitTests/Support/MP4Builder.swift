import Foundation

@testable import MetadataKit

/// Builds synthetic MP4/QuickTime files box by box, including broken ones
/// (wrong sizes, 64-bit sizes, size 0).
enum MP4Builder {
    // MARK: Integers

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u24(_ value: Int) -> [UInt8] { [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * UInt32($0)) & 0xFF) } }
    static func u32(_ value: Int) -> [UInt8] { u32(UInt32(truncatingIfNeeded: value)) }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(value >> (56 - 8 * UInt64($0)) & 0xFF) } }
    static func type(_ code: FourCC) -> [UInt8] { code.bytes }

    // MARK: Boxes

    /// A box with a correct 32-bit size.
    static func box(_ code: FourCC, _ payload: [UInt8]) -> [UInt8] {
        u32(8 + payload.count) + code.bytes + payload
    }

    /// A container box.
    static func box(_ code: FourCC, children: [[UInt8]]) -> [UInt8] {
        box(code, children.flatMap { $0 })
    }

    /// A box whose size field says `declaredSize`, whatever the payload.
    static func box(_ code: FourCC, _ payload: [UInt8], declaredSize: UInt32) -> [UInt8] {
        u32(declaredSize) + code.bytes + payload
    }

    /// A box with size 1 and a 64-bit largesize (`declaredSize` overrides it).
    static func largeBox(_ code: FourCC, _ payload: [UInt8], declaredSize: UInt64? = nil) -> [UInt8] {
        u32(1) + code.bytes + u64(declaredSize ?? UInt64(16 + payload.count)) + payload
    }

    /// A box with size 0 ("to the end of the file").
    static func openBox(_ code: FourCC, _ payload: [UInt8]) -> [UInt8] {
        u32(0) + code.bytes + payload
    }

    /// A FullBox: version, flags, payload.
    static func fullBox(_ code: FourCC, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(code, [version] + u24(flags) + payload)
    }

    // MARK: Movie structure

    static func ftyp(_ major: FourCC = "M4A ", _ compatible: [FourCC] = ["M4A ", "isom", "iso2"]) -> [UInt8] {
        box("ftyp", major.bytes + u32(512) + compatible.flatMap(\.bytes))
    }

    static func mvhd(timescale: Int, duration: UInt64, version: UInt8 = 0) -> [UInt8] {
        let times =
            version == 1
            ? u64(0) + u64(0) + u32(timescale) + u64(duration)
            : u32(0) + u32(0) + u32(timescale) + u32(UInt32(duration))
        return fullBox(
            "mvhd", version: version,
            times + u32(0x0001_0000) + u16(0x0100) + [UInt8](repeating: 0, count: 10)
                + [UInt8](repeating: 0, count: 36) + [UInt8](repeating: 0, count: 24) + u32(2))
    }

    static func mdhd(timescale: Int, duration: UInt64, version: UInt8 = 0) -> [UInt8] {
        let times =
            version == 1
            ? u64(0) + u64(0) + u32(timescale) + u64(duration)
            : u32(0) + u32(0) + u32(timescale) + u32(UInt32(duration))
        return fullBox("mdhd", version: version, times + u16(0x55C4) + u16(0))
    }

    static func hdlr(_ handler: FourCC, name: String = "") -> [UInt8] {
        fullBox("hdlr", u32(0) + handler.bytes + [UInt8](repeating: 0, count: 12) + Array(name.utf8) + [0])
    }

    /// An audio sample entry (v0 layout unless `version` says otherwise).
    static func audioEntry(
        _ format: FourCC, channels: Int = 2, sampleSize: Int = 16, sampleRate: Int = 44100,
        version: Int = 0, extra: [UInt8] = [], children: [[UInt8]] = []
    ) -> [UInt8] {
        let fields =
            [UInt8](repeating: 0, count: 6) + u16(1) + u16(version) + u16(0) + u32(0)
            + u16(channels) + u16(sampleSize) + u16(0) + u16(0) + u32(UInt32(sampleRate & 0xFFFF) << 16)
        return box(format, fields + extra + children.flatMap { $0 })
    }

    /// A visual sample entry of `width` × `height`.
    static func videoEntry(_ format: FourCC, width: Int, height: Int) -> [UInt8] {
        box(
            format,
            [UInt8](repeating: 0, count: 6) + u16(1) + [UInt8](repeating: 0, count: 16) + u16(width) + u16(height)
                + u32(0x0048_0000) + u32(0x0048_0000) + u32(0) + u16(1) + [UInt8](repeating: 0, count: 32) + u16(0x18) + u16(0xFFFF))
    }

    /// An MPEG-4 descriptor with a one-byte (or four-byte) length.
    static func descriptor(_ tag: UInt8, _ body: [UInt8], longLength: Bool = false) -> [UInt8] {
        let length = longLength ? [0x80, 0x80, 0x80, UInt8(body.count)] : [UInt8(body.count)]
        return [tag] + length + body
    }

    /// `esds` for AAC: object type 0x40, `averageBitrate`, AudioSpecificConfig.
    static func esds(
        objectType: UInt8 = 0x40, averageBitrate: Int, audioSpecificConfig: [UInt8] = [0x12, 0x10],
        longLength: Bool = false
    ) -> [UInt8] {
        let decoderSpecific = descriptor(0x05, audioSpecificConfig, longLength: longLength)
        let decoderConfig = descriptor(
            0x04,
            [objectType, 0x15] + u24(0) + u32(averageBitrate + 1000) + u32(averageBitrate)
                + decoderSpecific, longLength: longLength)
        let es = descriptor(0x03, u16(1) + [0] + decoderConfig + descriptor(0x06, [0x02], longLength: longLength), longLength: longLength)
        return fullBox("esds", es)
    }

    static func stsd(_ entries: [[UInt8]]) -> [UInt8] {
        fullBox("stsd", u32(entries.count) + entries.flatMap { $0 })
    }

    /// A track: tkhd, mdia(mdhd, hdlr, minf/stbl(stsd, stsz)).
    static func trak(handler: FourCC, timescale: Int, duration: UInt64, entry: [UInt8]) -> [UInt8] {
        let stbl = box("stbl", children: [stsd([entry]), fullBox("stsz", u32(0) + u32(0))])
        return box(
            "trak",
            children: [
                fullBox("tkhd", flags: 3, [UInt8](repeating: 0, count: 80)),
                box(
                    "mdia",
                    children: [
                        mdhd(timescale: timescale, duration: duration), hdlr(handler),
                        box("minf", children: [stbl]),
                    ]),
            ])
    }

    // MARK: Metadata

    /// A `data` atom: type set 0, well-known `type`, locale, value.
    static func data(_ type: Int, _ value: [UInt8], country: Int = 0, language: Int = 0) -> [UInt8] {
        box("data", u32(type) + u16(country) + u16(language) + value)
    }

    static func text(_ string: String) -> [UInt8] { data(1, Array(string.utf8)) }

    /// An `ilst` item atom holding `data` atoms.
    static func item(_ key: FourCC, _ atoms: [UInt8]...) -> [UInt8] {
        box(key, atoms.flatMap { $0 })
    }

    /// A `----` freeform item.
    static func freeform(mean: String, name: String, _ atoms: [UInt8]...) -> [UInt8] {
        box("----", box("mean", u32(0) + Array(mean.utf8)) + box("name", u32(0) + Array(name.utf8)) + atoms.flatMap { $0 })
    }

    /// A `meta` box, with or without FullBox version/flags.
    static func meta(handler: FourCC, versionAndFlags: Bool = true, _ children: [[UInt8]]) -> [UInt8] {
        box("meta", (versionAndFlags ? u32(0) : []) + hdlr(handler) + children.flatMap { $0 })
    }

    /// A `keys` atom of `mdta` keys.
    static func keys(_ keys: [String]) -> [UInt8] {
        fullBox("keys", u32(keys.count) + keys.flatMap { u32(8 + $0.utf8.count) + Array("mdta".utf8) + Array($0.utf8) })
    }

    /// An `ilst` item typed by a 1-based key index.
    static func indexedItem(_ index: UInt32, _ atoms: [UInt8]...) -> [UInt8] {
        u32(8 + atoms.reduce(0) { $0 + $1.count }) + u32(index) + atoms.flatMap { $0 }
    }

    /// A udta ©-atom payload entry: u16 length, u16 packed language, text.
    static func userDataText(_ text: String, language: String? = "eng", macLanguage: Int = 0) -> [UInt8] {
        let code: Int
        if let language {
            code = language.utf8.reduce(0) { $0 << 5 | (Int($1) - 0x60) }
        } else {
            code = macLanguage
        }
        return u16(text.utf8.count) + u16(code) + Array(text.utf8)
    }

    /// A minimal PNG: signature, IHDR of `width` × `height`, IEND (CRCs zeroed).
    static func png(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + u32(13) + Array("IHDR".utf8) + u32(width) + u32(height)
            + [8, 6, 0, 0, 0] + u32(0) + u32(0) + Array("IEND".utf8) + u32(0)
    }

    /// A typical AAC audio file's moov: mvhd + one sound track (+ extra children).
    static func audioMovie(duration seconds: Int = 10, averageBitrate: Int = 128_000, extra: [[UInt8]] = []) -> [UInt8] {
        let entry = audioEntry("mp4a", children: [esds(averageBitrate: averageBitrate)])
        return box(
            "moov",
            children: [
                mvhd(timescale: 1000, duration: UInt64(seconds * 1000)),
                trak(handler: "soun", timescale: 44100, duration: UInt64(seconds * 44100), entry: entry),
            ] + extra)
    }

    // MARK: Files

    /// Writes `bytes` to a new temporary file with `ext` and returns its URL.
    static func write(_ bytes: [UInt8], ext: String = "m4a") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("mp4-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        return url
    }

    /// Writes `bytes` to a temporary file and loads it through ``MediaItem``.
    static func load(_ bytes: [UInt8], ext: String = "m4a") async throws -> MediaItem {
        let url = try write(bytes, ext: ext)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        return item
    }

    /// Writes `bytes` to a temporary file and parses it; the file stays until
    /// the caller removes it (artwork reads from it).
    static func parse(_ bytes: [UInt8]) throws -> (ParsedFile, URL) {
        let url = try write(bytes)
        let source = try FileSource(url: url)
        return (try MP4Parser.parse(source, url), url)
    }
}
