#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The boxes that describe one track (ISO/IEC 14496-12 §8.3–8.6): `tkhd`,
/// `mdia/mdhd`, `mdia/hdlr`, `mdia/minf/stbl/stsd`, `edts/elst` and `tref`,
/// found in the `trak` tree and each parsed when asked, by the parsers
/// below. The one reader of track boxes: the file's properties
/// (``MP4PropertiesParser``) ask for the few they need, ``AssetTrack`` for
/// all of them.
struct MP4TrackBoxes {
    /// The `trak` box (a child of `moov`).
    let trak: MP4Box
    let source: FileSource

    /// Nesting depth of the sample entries (`moov/trak/mdia/minf/stbl/stsd/…`)
    /// as the depth limit counts it.
    static let sampleEntryDepth = 5

    var mediaBox: MP4Box? { trak.child("mdia") }
    /// `mdia/minf/stbl`, holding the sample description and the sample tables.
    var sampleTableBox: MP4Box? { mediaBox?.descendant("minf", "stbl") }

    /// `tkhd`; nil without one.
    func trackHeader() throws -> MP4TrackHeader? {
        guard let tkhd = trak.child("tkhd") else { return nil }
        var reader = try source.mp4Payload(of: tkhd.header, upTo: 96)
        return try MP4TrackHeader(parsing: &reader)
    }

    /// The timing of `mdhd` alone (its language unread); nil without one.
    func mediaTiming() throws -> MP4HeaderTiming? {
        guard let mdhd = mediaBox?.child("mdhd") else { return nil }
        var reader = try source.mp4Payload(of: mdhd.header, upTo: 32)
        return try MP4HeaderTiming(parsing: &reader)
    }

    /// `mdhd` with its language; nil without one.
    func mediaHeader() throws -> MP4MediaHeader? {
        guard let mdhd = mediaBox?.child("mdhd") else { return nil }
        var reader = try source.mp4Payload(of: mdhd.header, upTo: 36)
        return try MP4MediaHeader(parsing: &reader)
    }

    /// `hdlr`; nil without one.
    func handler() throws -> MP4HandlerReference? {
        guard let hdlr = mediaBox?.child("hdlr") else { return nil }
        var reader = try source.mp4Payload(of: hdlr.header, upTo: 24 + 256)
        return try MP4HandlerReference(parsing: &reader)
    }

    /// `stsd`'s head; nil without one.
    func sampleDescriptions() throws -> MP4SampleDescriptionBox? {
        guard let stsd = sampleTableBox?.child("stsd") else { return nil }
        return try MP4SampleDescriptionBox(parsing: stsd.header, in: source)
    }

    /// What the first sample description says of an audio (`soun`) or
    /// video (`vide`) track; nil for other handlers, or without one.
    func stream(handler: FourCC?) throws -> MP4StreamInfo? {
        guard handler == "soun" || handler == "vide", let descriptions = try sampleDescriptions(),
            let entry = try descriptions.firstEntry(in: source, depth: Self.sampleEntryDepth)
        else { return nil }
        return handler == "soun"
            ? try MP4StreamInfo(
                parsingAudio: entry, in: source, stsdVersion: descriptions.version,
                depth: Self.sampleEntryDepth + 1)
            : try MP4StreamInfo(parsingVisual: entry, in: source)
    }

    /// `elst` (§8.6.6): FullBox, u32 count, entries of {segment_duration,
    /// media_time} (u32/i32 in v0, u64/i64 in v1), i16 rate integer, i16
    /// rate fraction. Empty without `edts/elst`.
    func editList() throws -> [EditListEntry] {
        guard let elst = trak.descendant("edts", "elst") else { return [] }
        var reader = try source.mp4Payload(of: elst.header)
        let version = try reader.readUInt8()
        try reader.skip(3)
        let count = Int(try reader.readUInt32())
        let entrySize = version == 1 ? 20 : 12
        guard count <= reader.remaining / entrySize else {
            throw MediaError(
                .sizeOutOfRange, "'elst' claims \(count) entries; its box holds \(reader.remaining / entrySize)", offset: elst.header.offset
            )
        }
        return try (0..<count).map { _ in
            let duration = version == 1 ? Int64(bitPattern: try reader.readUInt64()) : Int64(try reader.readUInt32())
            let time = version == 1 ? Int64(bitPattern: try reader.readUInt64()) : Int64(try reader.readInt32())
            let rate = Double(try reader.readInt16()) + Double(try reader.readUInt16()) / 65536
            return EditListEntry(segmentDuration: duration, mediaTime: time, rate: rate)
        }
    }

    /// `tref` children (§8.3.3): each a box whose payload is a list of u32
    /// track IDs. Empty without `tref`.
    func references() throws -> [TrackReference] {
        guard let tref = trak.child("tref") else { return [] }
        return try tref.children.map { child in
            var reader = try source.mp4Payload(of: child.header, upTo: 4 * 1024)
            var ids: [UInt32] = []
            while reader.remaining >= 4 { ids.append(try reader.readUInt32()) }
            return TrackReference(type: child.type, trackIDs: ids)
        }
    }
}

/// The timing fields `mvhd` (§8.2.2) and `mdhd` (§8.4.2) begin with:
/// FullBox; v1: u64 creation, u64 modification, u32 timescale, u64
/// duration; v0: the same with 32-bit times and duration. A duration of all
/// ones (in its width) means "unknown".
struct MP4HeaderTiming {
    var version: UInt8
    /// Units per second.
    var timescale: UInt32
    /// The duration as stored (a v0 duration zero-extended).
    var duration: UInt64

    init(parsing reader: inout ByteReader) throws {
        version = try reader.readUInt8()
        try reader.skip(3 + (version == 1 ? 16 : 8))
        timescale = try reader.readUInt32()
        duration = version == 1 ? try reader.readUInt64() : UInt64(try reader.readUInt32())
    }

    /// The duration in seconds; nil when unknown, zero, or without a timescale.
    var seconds: Double? {
        guard duration != (version == 1 ? .max : UInt64(UInt32.max)), timescale > 0, duration > 0 else { return nil }
        return Double(duration) / Double(timescale)
    }

    /// The duration in ``timescale`` units; 0 when unknown (all ones, or
    /// 2^32 − 1 in either version).
    var units: Int64 {
        let value = version == 1 ? Int64(bitPattern: duration) : Int64(duration)
        return value == -1 || value == Int64(UInt32.max) ? 0 : value
    }
}

/// `mdhd` (§8.4.2): the timing, then a pad bit and the language.
struct MP4MediaHeader {
    var timing: MP4HeaderTiming
    /// The ISO 639-2/T language ("und" when unset).
    var language: String

    init(parsing reader: inout ByteReader) throws {
        timing = try MP4HeaderTiming(parsing: &reader)
        language = Self.language(try reader.readUInt16())
    }

    /// ISO 639-2/T letters packed 5 bits each (§8.4.2); QuickTime's
    /// Macintosh language codes (< 0x400) are given as "und" except 0 (English).
    static func language(_ packed: UInt16) -> String {
        let code = packed & 0x7FFF
        if code == 0 { return "eng" }
        if code < 0x400 || code == 0x7FFF { return "und" }
        let letters = [code >> 10 & 0x1F, code >> 5 & 0x1F, code & 0x1F].map { UInt8($0) + 0x60 }
        guard letters.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return "und" }
        return String(decoding: letters, as: UTF8.self)
    }
}

/// `tkhd` (§8.3.2): FullBox; v1: u64 creation, u64 modification, u32
/// track_ID, u32 reserved, u64 duration; v0: 32-bit times and duration;
/// then u32[2] reserved, i16 layer, i16 alternate_group, i16 volume, u16
/// reserved, i32[9] matrix, u32 width (16.16), u32 height (16.16).
struct MP4TrackHeader {
    /// Bit 0 enabled, bit 1 in movie, bit 2 in preview.
    var flags: UInt32
    var trackID: UInt32
    var alternateGroup: Int16
    /// The presentation size in whole pixels.
    var width: Int
    var height: Int

    init(parsing reader: inout ByteReader) throws {
        let version = try reader.readUInt8()
        flags = try reader.readUInt24()
        try reader.skip(version == 1 ? 16 : 8)
        trackID = try reader.readUInt32()
        try reader.skip(4 + (version == 1 ? 8 : 4) + 8 + 2)
        alternateGroup = try reader.readInt16()
        try reader.skip(2 + 2 + 36)
        width = Int(try reader.readUInt32() >> 16)
        height = Int(try reader.readUInt32() >> 16)
    }
}

/// `hdlr` (§8.4.3): FullBox, u32 pre_defined (QuickTime's component type),
/// u32 handler_type, u32[3] reserved, name (ISO: NUL-terminated UTF-8;
/// QuickTime: a Pascal string).
struct MP4HandlerReference {
    /// `soun`, `vide`, `text`, `meta`, ...
    var handlerType: FourCC
    var name: String?

    init(parsing reader: inout ByteReader) throws {
        try reader.skip(8)
        handlerType = try reader.readFourCC()
        guard reader.remaining > 12 else { return }
        try reader.skip(12)
        var bytes = reader.readRemainingBytes()
        if let first = bytes.first, Int(first) == bytes.count - 1 || (Int(first) < bytes.count && first > 0 && first < 0x20) {
            bytes = Array(bytes.dropFirst().prefix(Int(first)))
        }
        if let zero = bytes.firstIndex(of: 0) { bytes = Array(bytes[..<zero]) }
        let name = String(decoding: bytes, as: UTF8.self)
        self.name = name.isEmpty ? nil : name
    }
}

/// `stsd` (§8.5.2; QTFF "Sample description atoms"): FullBox, u32 entry
/// count, then the entries, each a box.
struct MP4SampleDescriptionBox {
    let header: MP4BoxHeader
    var version: UInt8
    var entryCount: UInt32

    /// Reads the version and the entry count; the entries are listed by
    /// ``entries(in:depth:)``.
    init(parsing stsd: MP4BoxHeader, in source: FileSource) throws {
        header = stsd
        var reader = try source.mp4Payload(of: stsd, upTo: 8)
        version = try reader.readUInt8()
        try reader.skip(3)
        entryCount = try reader.readUInt32()
    }

    /// The entry boxes as stored (whatever the count says), at `depth`.
    func entries(in source: FileSource, depth: Int) throws -> [MP4BoxHeader] {
        try source.mp4Children(of: header, skipping: 8, depth: depth + 1)
    }

    /// The first entry; nil when the count is 0 or there is none.
    func firstEntry(in source: FileSource, depth: Int) throws -> MP4BoxHeader? {
        guard entryCount > 0 else { return nil }
        return try entries(in: source, depth: depth).first
    }
}
