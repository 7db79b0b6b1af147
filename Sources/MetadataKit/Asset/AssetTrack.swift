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

    /// An edit showing `segmentDuration` (movie timescale) of media from
    /// `mediaTime` (-1: an empty edit) at `rate`.
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
    /// The reference type: `chap` (chapter track), `tmcd`, `cdsc`, …
    public var type: FourCC
    /// The IDs of the tracks referred to.
    public var trackIDs: [UInt32]

    /// A reference of `type` to `trackIDs`.
    public init(type: FourCC, trackIDs: [UInt32]) {
        self.type = type
        self.trackIDs = trackIDs
    }
}

/// One track (stream) of a file: what it carries and how it is coded, and
/// for MP4/MOV/M4A tracks their headers, sample descriptions and sample
/// tables.
///
/// An ``Asset`` lists the tracks of any file that has several (MP4, MOV,
/// Matroska, WebM, Ogg and ASF files with more than one stream);
/// ``MediaProperties/streams`` lists the same tracks for ``MediaItem``.
/// Fields a format doesn't give stay nil, empty or zero; only MP4 tracks
/// have sample tables to read through an ``AssetReader``.
public struct AssetTrack: Sendable, Hashable, Identifiable {
    /// What a track carries (the former `MediaStream.Kind`).
    public typealias Kind = AssetMediaType

    /// The track's number in its file: MP4 `tkhd` track_ID, Matroska
    /// TrackNumber, ASF stream number; 0 where the format numbers none (Ogg).
    public var id: UInt32
    /// What the track carries.
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
    /// The track's language: MP4 `mdhd`'s ISO 639-2/T code ("und" when
    /// unset), Matroska's BCP 47 or ISO 639-2 code; nil where the format
    /// gives none.
    public var language: String?
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
    /// Video: pixel height (see ``width``).
    public var height: Int?
    /// Audio: sample rate and channels from the sample entry.
    public var sampleRate: Int?
    /// Audio: channel count from the sample entry.
    public var channels: Int?
    /// Average bit rate in bits per second, when the codec configuration gives it.
    public var bitrate: Int?
    /// Audio: bits per sample, where the format gives it (Matroska BitDepth).
    public var bitsPerSample: Int?
    /// The format's own codec identifier (Matroska CodecID: `A_AAC`, `V_VP9`).
    public var codecID: String?
    /// The format's unique ID of the track (Matroska TrackUID).
    public var uid: UInt64?
    /// The track's name (Matroska track Name).
    public var name: String?
    /// Whether players pick the track by default, and must show it
    /// (subtitles), where the format says (Matroska FlagDefault, FlagForced).
    public var isDefault: Bool?
    /// Whether players must show the track (Matroska FlagForced, forced
    /// subtitles); nil where the format doesn't say.
    public var isForced: Bool?
    /// The sample tables (MP4 tracks; empty elsewhere).
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

    /// A track described by what it carries and its codec's name, for a
    /// format without sample tables; the other fields are set one by one.
    public init(id: UInt32 = 0, mediaType: AssetMediaType, codecName: String? = nil) {
        self.init(
            id: id, mediaType: mediaType, handlerType: mediaType.handler, handlerName: nil, codec: nil, codecName: codecName,
            timescale: 0, duration: 0, language: nil, sampleDescriptions: [], sampleDescriptionVersion: 0, editList: [],
            references: [], flags: 0, alternateGroup: 0, sampleTable: SampleTable())
    }

    init(
        id: UInt32, mediaType: AssetMediaType, handlerType: FourCC, handlerName: String?, codec: FourCC?,
        codecName: String? = nil, timescale: UInt32, duration: Int64, language: String?, sampleDescriptions: [[UInt8]],
        sampleDescriptionVersion: UInt8, editList: [EditListEntry], references: [TrackReference], flags: UInt32,
        alternateGroup: Int16, sampleTable: SampleTable
    ) {
        self.id = id
        self.mediaType = mediaType
        self.handlerType = handlerType
        self.handlerName = handlerName
        self.codec = codec
        self.codecName = codecName
        self.timescale = timescale
        self.duration = duration
        self.language = language
        self.sampleDescriptions = sampleDescriptions
        self.sampleDescriptionVersion = sampleDescriptionVersion
        self.editList = editList
        self.references = references
        self.flags = flags
        self.alternateGroup = alternateGroup
        self.sampleTable = sampleTable
    }
}

/// A track as ``MediaProperties/streams`` lists it: the same type as an
/// ``Asset``'s tracks.
@available(*, deprecated, renamed: "AssetTrack")
public typealias MediaStream = AssetTrack

extension AssetTrack {
    /// What the track carries.
    @available(*, deprecated, renamed: "mediaType")
    public var kind: AssetMediaType {
        get { mediaType }
        set { mediaType = newValue }
    }

    /// The track's number; nil where the format numbers none.
    @available(*, deprecated, message: "use id (0 where the format numbers no tracks)")
    public var trackID: Int? { id == 0 ? nil : Int(id) }

    /// A track described by its number, what it carries and its codec's name.
    @available(*, deprecated, message: "use init(id:mediaType:codecName:)")
    public init(trackID: Int? = nil, kind: AssetMediaType, codec: String? = nil) {
        self.init(id: UInt32(clamping: trackID ?? 0), mediaType: kind, codecName: codec)
    }
}
