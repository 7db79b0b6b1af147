#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// The name of the first sample entry's codec for audio and video
    /// tracks ("AAC", "ALAC", "H.264", "HEVC", ...; the entry type when it
    /// is not a known one), as ``MediaProperties/codec`` gives it; nil for
    /// other tracks.
    public var codecName: String?
    /// The media timescale (`mdhd`), in units per second.
    public var timescale: UInt32
    /// The media duration (`mdhd`) in `timescale` units.
    public var duration: Int64
    /// The ISO 639-2/T language of `mdhd` ("und" when unset).
    public var language: String
    /// Sample description entries of `stsd` (complete boxes, byte for byte).
    public var sampleDescriptions: [[UInt8]]
    /// The type of each of ``sampleDescriptions`` (`avc1`, `mp4a`, `mebx`, ...);
    /// the first is ``codec``.
    public var sampleDescriptionTypes: [FourCC] { sampleDescriptions.map(Self.entryType) }
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

extension AssetTrack {
    /// Reads one `trak` of `source`: its boxes (through ``MP4TrackBoxes``)
    /// and its sample tables.
    init(parsing trak: MP4Box, in source: FileSource) throws {
        let boxes = MP4TrackBoxes(trak: trak, source: source)
        guard trak.child("tkhd") != nil, boxes.mediaBox?.child("mdhd") != nil,
            let header = try boxes.trackHeader(), let media = try boxes.mediaHeader()
        else {
            throw MediaError(.malformed, "'trak' without 'tkhd', 'mdia' or 'mdhd'", offset: trak.header.offset)
        }
        let handler = try boxes.handler()
        let handlerType = handler?.handlerType ?? "    "
        var descriptions: [[UInt8]] = []
        var stsdVersion: UInt8 = 0
        if let stsd = try boxes.sampleDescriptions() {
            stsdVersion = stsd.version
            let entries = try stsd.entries(in: source, depth: MP4TrackBoxes.sampleEntryDepth)
            guard entries.count >= min(Int(stsd.entryCount), 1) else {
                throw MediaError(
                    .malformed, "'stsd' lists \(stsd.entryCount) entries but holds \(entries.count)", offset: stsd.header.offset)
            }
            descriptions = try entries.prefix(Int(stsd.entryCount)).map { try source.getBytes(at: $0.offset, count: Int($0.size)) }
        }
        let table = try boxes.sampleTableBox.map { try SampleTable(parsing: $0, in: source) } ?? SampleTable()
        var duration = media.timing.units
        if duration == 0 { duration = table.totalDuration }

        self.init(
            id: header.trackID, mediaType: AssetMediaType(handler: handlerType), handlerType: handlerType,
            handlerName: handler?.name, codec: descriptions.first.map { Self.entryType($0) },
            timescale: media.timing.timescale, duration: duration, language: media.language,
            sampleDescriptions: descriptions, sampleDescriptionVersion: stsdVersion,
            editList: try boxes.editList(), references: try boxes.references(),
            flags: header.flags, alternateGroup: header.alternateGroup,
            width: nil, height: nil, sampleRate: nil, channels: nil, sampleTable: table)

        if let stream = try boxes.stream(handler: handlerType) {
            codecName = stream.codec
            switch mediaType {
            case .audio:
                sampleRate = stream.sampleRate
                channels = stream.channels
            case .video:
                width = stream.width
                height = stream.height
            default: break
            }
        }
        if mediaType == .video || header.width > 0 {
            if width == nil || width == 0 { width = header.width }
            if height == nil || height == 0 { height = header.height }
        }
    }

    /// The type of a sample description entry (a complete box): bytes 4–7;
    /// four spaces for bytes too short to be a box.
    static func entryType(_ entry: [UInt8]) -> FourCC {
        guard entry.count >= 8 else { return "    " }
        return FourCC(UInt32(entry[4]) << 24 | UInt32(entry[5]) << 16 | UInt32(entry[6]) << 8 | UInt32(entry[7]))
    }
}
