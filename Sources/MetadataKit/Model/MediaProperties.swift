/// Technical properties of the audio (or the main stream) of a file.
public struct MediaProperties: Sendable, Hashable {
    /// Duration in seconds.
    public var duration: Double?
    /// Average bit rate in bits per second.
    public var bitrate: Int?
    /// Samples per second of the audio.
    public var sampleRate: Int?
    /// Audio channel count.
    public var channels: Int?
    /// Bits per sample, for PCM and lossless audio.
    public var bitsPerSample: Int?
    /// Codec name: `MP3`, `AAC`, `ALAC`, `AC-3`, `Opus`, `FLAC`, `H.264`, …
    public var codec: String?
    /// Pixel size of the first video track, if any.
    public var width: Int?
    /// Pixel height of the first video track, if any (see ``width``).
    public var height: Int?
    /// Every stream of a multi-track file (MP4/MOV/M4A: one per track), in
    /// file order; empty for single-stream formats.
    public var streams: [AssetTrack] = []
    /// The Opus output gain in dB (the signed Q7.8 number at bytes 16–17 of
    /// the `OpusHead` packet, RFC 7845 §5.1) that a player applies to the
    /// decoded audio; nil for other codecs.
    public var opusOutputGain: Double?
    /// A tracker module's own properties (MOD, S3M, XM, IT); nil for other formats.
    public var module: TrackerModuleProperties?

    /// Properties with nothing known yet.
    public init() {}
}

/// The kind of a media file.
public struct FileType: Sendable, Hashable, CustomStringConvertible {
    /// Short identifier of the format family: `mp3`, `mp4`.
    public var identifier: String
    /// MIME type: `audio/mpeg`, `audio/mp4`, `video/mp4`, `video/quicktime`, `video/3gpp`.
    public var mimeType: String

    /// A file type with this ``identifier`` and ``mimeType``.
    public init(identifier: String, mimeType: String) {
        self.identifier = identifier
        self.mimeType = mimeType
    }

    public var description: String { identifier }
}

/// What a format reader returns: the raw items and properties of one file.
struct ParsedFile: Sendable {
    var fileType: FileType
    var items: [MetadataItem]
    var properties: MediaProperties
    /// Whether MetadataKit can write this file's metadata back.
    var isEditable: Bool
    /// Local damage the reader read around, in file order.
    var warnings: [MediaWarning] = []
    /// The file's chapter tables (see ``ChapterTable``); empty without chapters.
    var chapterTables: [ChapterTable] = []
    /// The format's own parse of the file (its tag layout), for a save
    /// planned while the file is as it was read: the planner then reads the
    /// tags once, not again. Nil for formats that plan from the file alone.
    var editBasis: (any Sendable)? = nil
}
