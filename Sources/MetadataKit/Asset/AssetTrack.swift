import Foundation

/// What a track carries, from its `hdlr` handler type (ISO/IEC 14496-12 §8.4.3,
/// QTFF "Handler reference atom").
public enum AssetMediaType: String, Sendable, Hashable, CaseIterable {
    case audio, video, text, subtitle, closedCaption, timecode, metadata, other

    /// The media type of a handler type: `soun` `vide` `text` `sbtl` `subt`
    /// `clcp` `tmcd` `meta`; anything else is `other`.
    public init(handler: FourCC) {
        switch handler {
        case "soun": self = .audio
        case "vide": self = .video
        case "text": self = .text
        case "sbtl", "subt": self = .subtitle
        case "clcp": self = .closedCaption
        case "tmcd": self = .timecode
        case "meta": self = .metadata
        default: self = .other
        }
    }

    /// The handler type written for this media type.
    public var handler: FourCC {
        switch self {
        case .audio: "soun"
        case .video: "vide"
        case .text: "text"
        case .subtitle: "sbtl"
        case .closedCaption: "clcp"
        case .timecode: "tmcd"
        case .metadata: "meta"
        case .other: "data"
        }
    }
}

/// One entry of an edit list (`elst`, ISO/IEC 14496-12 §8.6.6).
public struct EditListEntry: Sendable, Hashable {
    /// Length of the edit, in the movie timescale.
    public var segmentDuration: Int64
    /// Start of the edit in media time (track timescale); -1 for an empty edit.
    public var mediaTime: Int64
    /// Playback rate (16.16 fixed point as a Double); 1 for normal play.
    public var rate: Double

    public init(segmentDuration: Int64, mediaTime: Int64, rate: Double = 1) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.rate = rate
    }

    /// True for an empty edit (a gap before the media starts).
    public var isEmpty: Bool { mediaTime == -1 }
}

/// A track reference (`tref` child, ISO/IEC 14496-12 §8.3.3): a type such as
/// `tmcd`, `chap`, `hint`, `cdsc`, `sync`, `subt`, and the referenced track IDs.
public struct TrackReference: Sendable, Hashable {
    public var type: FourCC
    public var trackIDs: [UInt32]

    public init(type: FourCC, trackIDs: [UInt32]) {
        self.type = type
        self.trackIDs = trackIDs
    }
}

/// A track of an ``Asset``: its headers, sample descriptions and sample tables.
public struct AssetTrack: Sendable, Identifiable {
    /// `tkhd` track_ID.
    public var id: UInt32
    public var mediaType: AssetMediaType
    /// The `hdlr` handler type as stored.
    public var handlerType: FourCC
    /// The `hdlr` name ("SoundHandler", "Core Media Video", ...).
    public var handlerName: String?
    /// The first sample entry's type (`avc1`, `mp4a`, `alac`, `tx3g`, `tmcd`, ...).
    public var codec: FourCC?
    /// The media timescale (`mdhd`), in units per second.
    public var timescale: UInt32
    /// The media duration (`mdhd`) in `timescale` units.
    public var duration: Int64
    /// The ISO 639-2/T language of `mdhd` ("und" when unset).
    public var language: String
    /// Sample description entries of `stsd` (complete boxes, byte for byte).
    public var sampleDescriptions: [[UInt8]]
    /// The `stsd` version (0 in nearly every file).
    public var sampleDescriptionVersion: UInt8
    /// Edit list entries; empty without `edts/elst`.
    public var editList: [EditListEntry]
    /// Track references (`tref`).
    public var references: [TrackReference]
    /// `tkhd` flags (bit 0 enabled, bit 1 in movie, bit 2 in preview).
    public var flags: UInt32
    /// `tkhd` alternate group.
    public var alternateGroup: Int16
    /// Video: pixel size from the sample entry, else from `tkhd`.
    public var width: Int?
    public var height: Int?
    /// Audio: sample rate and channels from the sample entry.
    public var sampleRate: Int?
    public var channels: Int?
    /// The sample tables.
    public var sampleTable: SampleTable
    /// What loading read around in this track (samples left out of
    /// inconsistent sample tables), each naming the track.
    public var warnings: [MediaWarning] {
        sampleTable.warnings.map { MediaWarning($0.code, "track \(id): \($0.message)", offset: $0.offset) }
    }

    /// Number of samples.
    public var sampleCount: Int { sampleTable.sampleCount }
    /// Sum of the sample sizes, in bytes.
    public var totalSampleBytes: Int64 { sampleTable.totalSampleBytes }
    /// The media duration in seconds.
    public var durationSeconds: Double { timescale > 0 ? Double(duration) / Double(timescale) : 0 }
}

/// Reads one `trak` into an ``AssetTrack``.
struct AssetTrackParser {
    let source: FileSource

    func track(_ trak: MP4Box) throws -> AssetTrack {
        guard let tkhd = trak.child("tkhd"), let mdia = trak.child("mdia"), let mdhd = mdia.child("mdhd") else {
            throw MediaError(.malformed, "'trak' without 'tkhd', 'mdia' or 'mdhd'", offset: trak.header.offset)
        }
        // tkhd (§8.3.2): FullBox; v1: u64 creation, u64 modification, u32 track_ID, u32 reserved, u64 duration;
        // v0: 32-bit times and duration; then u32[2] reserved, i16 layer, i16 alternate_group, i16 volume,
        // u16 reserved, i32[9] matrix, u32 width (16.16), u32 height (16.16).
        var header = try source.mp4Payload(of: tkhd.header, upTo: 96)
        let version = try header.readUInt8()
        let flags = try header.readUInt24()
        try header.skip(version == 1 ? 16 : 8)
        let id = try header.readUInt32()
        try header.skip(4 + (version == 1 ? 8 : 4) + 8 + 2)
        let alternateGroup = try header.readInt16()
        try header.skip(2 + 2 + 36)
        let tkhdWidth = Int(try header.readUInt32() >> 16)
        let tkhdHeight = Int(try header.readUInt32() >> 16)

        // mdhd (§8.4.2): FullBox; times, u32 timescale, duration, then pad bit + 15-bit packed language.
        var media = try source.mp4Payload(of: mdhd.header, upTo: 36)
        let mdhdVersion = try media.readUInt8()
        try media.skip(3 + (mdhdVersion == 1 ? 16 : 8))
        let timescale = try media.readUInt32()
        var duration = mdhdVersion == 1 ? Int64(bitPattern: try media.readUInt64()) : Int64(try media.readUInt32())
        if duration == -1 || duration == Int64(UInt32.max) { duration = 0 }
        let language = Self.language(try media.readUInt16())

        var handlerType: FourCC = "    "
        var handlerName: String?
        if let hdlr = mdia.child("hdlr") { (handlerType, handlerName) = try handler(hdlr.header) }

        let stbl = mdia.descendant("minf", "stbl")
        var descriptions: [[UInt8]] = []
        var stsdVersion: UInt8 = 0
        if let stsd = stbl?.child("stsd") {
            var reader = try source.mp4Payload(of: stsd.header, upTo: 8)
            stsdVersion = try reader.readUInt8()
            try reader.skip(3)
            let count = try reader.readUInt32()
            let entries = try source.mp4Children(of: stsd.header, skipping: 8, depth: 6)
            guard entries.count >= min(Int(count), 1) else {
                throw MediaError(.malformed, "'stsd' lists \(count) entries but holds \(entries.count)", offset: stsd.header.offset)
            }
            descriptions = try entries.prefix(Int(count)).map { try source.read(at: $0.offset, count: Int($0.size)) }
        }
        let table = try stbl.map { try SampleTable(stbl: $0, source: source) } ?? SampleTable()
        if duration == 0 { duration = table.totalDuration }

        var track = AssetTrack(
            id: id, mediaType: AssetMediaType(handler: handlerType), handlerType: handlerType, handlerName: handlerName,
            codec: descriptions.first.map { FourCC(UInt32($0[4]) << 24 | UInt32($0[5]) << 16 | UInt32($0[6]) << 8 | UInt32($0[7])) },
            timescale: timescale, duration: duration, language: language,
            sampleDescriptions: descriptions, sampleDescriptionVersion: stsdVersion,
            editList: try editList(trak.descendant("edts", "elst")),
            references: try references(trak.child("tref")),
            flags: flags, alternateGroup: alternateGroup,
            width: nil, height: nil, sampleRate: nil, channels: nil, sampleTable: table)

        if let stsd = stbl?.child("stsd") {
            let entries = MP4SampleEntryReader(source: source)
            if let (entry, version) = try entries.firstEntry(stsd: stsd.header, depth: 5) {
                switch track.mediaType {
                case .audio:
                    let info = try entries.audio(entry, stsdVersion: version, depth: 6)
                    track.sampleRate = info.sampleRate
                    track.channels = info.channels
                case .video:
                    let info = try entries.video(entry)
                    track.width = info.width
                    track.height = info.height
                default: break
                }
            }
        }
        if track.mediaType == .video || tkhdWidth > 0 {
            if track.width == nil || track.width == 0 { track.width = tkhdWidth }
            if track.height == nil || track.height == 0 { track.height = tkhdHeight }
        }
        return track
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

    /// `hdlr`: FullBox, u32 pre_defined, u32 handler_type, u32[3] reserved,
    /// name (ISO: NUL-terminated UTF-8; QuickTime: a Pascal string).
    func handler(_ header: MP4BoxHeader) throws -> (FourCC, String?) {
        var reader = try source.mp4Payload(of: header, upTo: 24 + 256)
        try reader.skip(8)
        let type = try reader.readFourCC()
        guard reader.remaining > 12 else { return (type, nil) }
        try reader.skip(12)
        var bytes = reader.readRemainingBytes()
        if let first = bytes.first, Int(first) == bytes.count - 1 || (Int(first) < bytes.count && first > 0 && first < 0x20) {
            bytes = Array(bytes.dropFirst().prefix(Int(first)))
        }
        if let zero = bytes.firstIndex(of: 0) { bytes = Array(bytes[..<zero]) }
        let name = String(decoding: bytes, as: UTF8.self)
        return (type, name.isEmpty ? nil : name)
    }

    /// `elst` (§8.6.6): FullBox, u32 count, entries of {segment_duration,
    /// media_time} (u32/i32 in v0, u64/i64 in v1), i16 rate integer, i16 rate fraction.
    func editList(_ elst: MP4Box?) throws -> [EditListEntry] {
        guard let elst else { return [] }
        var reader = try source.mp4Payload(of: elst.header)
        let version = try reader.readUInt8()
        try reader.skip(3)
        let count = Int(try reader.readUInt32())
        let entrySize = version == 1 ? 20 : 12
        guard count <= reader.remaining / entrySize else {
            throw MediaError(.sizeOutOfRange, "'elst' claims \(count) entries; its box holds \(reader.remaining / entrySize)", offset: elst.header.offset)
        }
        return try (0..<count).map { _ in
            let duration = version == 1 ? Int64(bitPattern: try reader.readUInt64()) : Int64(try reader.readUInt32())
            let time = version == 1 ? Int64(bitPattern: try reader.readUInt64()) : Int64(try reader.readInt32())
            let rate = Double(try reader.readInt16()) + Double(try reader.readUInt16()) / 65536
            return EditListEntry(segmentDuration: duration, mediaTime: time, rate: rate)
        }
    }

    /// `tref` children: each a box whose payload is a list of u32 track IDs.
    func references(_ tref: MP4Box?) throws -> [TrackReference] {
        guard let tref else { return [] }
        return try tref.children.map { child in
            var reader = try source.mp4Payload(of: child.header, upTo: 4 * 1024)
            var ids: [UInt32] = []
            while reader.remaining >= 4 { ids.append(try reader.readUInt32()) }
            return TrackReference(type: child.type, trackIDs: ids)
        }
    }
}
