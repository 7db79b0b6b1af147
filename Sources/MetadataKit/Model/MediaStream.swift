/// One stream (track) of a multi-track file: what `mdkit read` lists per
/// track. MP4/MOV/M4A files give one per track with a sample description;
/// single-stream formats (MP3, FLAC, …) give none, their
/// ``MediaProperties`` describe the one stream.
public struct MediaStream: Sendable, Hashable {
    /// What the stream carries.
    public enum Kind: String, Sendable, Hashable {
        case audio, video, text, subtitle, metadata, timecode, other
    }

    /// The track ID (MP4 `tkhd`), when the format numbers its streams.
    public var trackID: Int?
    public var kind: Kind
    /// Codec name (`AAC`, `H.264`, `ALAC`, …), else the sample entry's four
    /// characters (`tx3g`, `mebx`).
    public var codec: String?
    /// Average bit rate in bits per second, when the codec configuration gives it.
    public var bitrate: Int?
    /// Audio: samples per second and channels.
    public var sampleRate: Int?
    public var channels: Int?
    /// Video: pixel size.
    public var width: Int?
    public var height: Int?
    /// Audio: bits per sample, where the format gives it (Matroska BitDepth).
    public var bitsPerSample: Int?
    /// The format's own codec identifier (Matroska CodecID: `A_AAC`, `V_VP9`).
    public var codecID: String?
    /// The format's unique ID of the track (Matroska TrackUID).
    public var uid: UInt64?
    /// Language, ISO 639-2 or BCP 47, where the format gives one per stream (Matroska).
    public var language: String?
    /// The stream's name (Matroska track Name).
    public var name: String?
    /// Whether players pick the stream by default, and must show it
    /// (subtitles), where the format says (Matroska FlagDefault, FlagForced).
    public var isDefault: Bool?
    public var isForced: Bool?

    public init(trackID: Int? = nil, kind: Kind, codec: String? = nil) {
        self.trackID = trackID
        self.kind = kind
        self.codec = codec
    }
}
