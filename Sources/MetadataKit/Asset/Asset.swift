#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A file opened for its tracks: MP4, M4A, MOV (ISO/IEC 14496-12 base
/// media files and QuickTime movies) with their samples, and the tracks of
/// Matroska, WebM, Ogg and ASF files with several streams.
///
/// ```swift
/// let asset = try await Asset.load(url: url)
/// for track in asset.tracks { print(track.id, track.mediaType, track.codec ?? "?") }
/// ```
///
/// Loading an MP4 reads `ftyp`, the `moov` tree and every track's sample
/// tables (ISO/IEC 14496-12 §8.6–8.7); media data stays on disk and is read
/// sample by sample through an ``AssetReader``. Other formats' tracks have
/// no sample tables (``AssetReader`` and ``ExportSession`` refuse them).
///
/// Fragmented files (`moov/mvex`, samples in `moof` fragments, §8.8) load
/// — their tracks are listed with the samples of `moov`, usually none — but
/// ``isFragmented`` is true and ``AssetReader`` and ``ExportSession`` refuse
/// them with `unsupportedFeature`.
public struct Asset: Sendable {
    /// The file.
    public let url: URL
    /// The tracks, in `moov` order; empty until loaded.
    public private(set) var tracks: [AssetTrack] = []
    /// `mvhd` timescale (units per second).
    public private(set) var movieTimescale: UInt32 = 0
    /// `mvhd` duration in ``movieTimescale`` units.
    public private(set) var movieDuration: Int64 = 0
    /// `ftyp` major brand then compatible brands; empty without `ftyp`.
    public private(set) var brands: [FourCC] = []
    /// Movie-level metadata items (iTunes `ilst`, QuickTime `mdta`, `udta`).
    public private(set) var metadataItems: [MetadataItem] = []
    /// True when the movie has fragments (`mvex` or `moof`).
    public private(set) var isFragmented = false
    /// Local damage loading read around, with byte offsets: in the box tree
    /// (read as ``MediaItem`` reads it), then the samples left out of
    /// inconsistent sample tables (see ``SampleTable``), track by track.
    public var warnings: [MediaWarning] { movieWarnings + tracks.flatMap(\.warnings) }
    /// Damage in the box tree that the load read around (a `moov` longer
    /// than the file, boxes cut at the end of their container).
    private var movieWarnings: [MediaWarning] = []
    /// The file's format, found as ``MediaItem`` finds it; nil until loaded.
    public private(set) var format: MediaFormat?
    /// The file's type where its ordinary read tells it (Matroska, WebM,
    /// Ogg, WMA/WMV); nil for MP4 files, whose ``brands`` tell it.
    public private(set) var fileType: FileType?
    /// Whether the tracks have sample tables an ``AssetReader`` reads (MP4
    /// files); other formats' tracks are described only.
    public private(set) var hasSampleTables = false
    /// True once ``load()`` succeeded.
    public private(set) var isLoaded = false
    /// Where `moov` and the first `mdat` lie (`moov` first means "fast start").
    public private(set) var isMovieHeaderFirst = false

    /// An asset for `url`; nothing is read until ``load()``.
    public init(url: URL) {
        self.url = url
    }

    /// Opens and loads the asset at `url`.
    public static func load(url: URL) async throws(MediaError) -> Asset {
        var asset = Asset(url: url)
        try await asset.load()
        return asset
    }

    /// The movie duration in seconds (the longest track's when `mvhd` gives none).
    public var durationSeconds: Double {
        if movieTimescale > 0, movieDuration > 0 { return Double(movieDuration) / Double(movieTimescale) }
        return tracks.map(\.durationSeconds).max() ?? 0
    }

    /// The normalized metadata derived from ``metadataItems``.
    public var metadata: Metadata { Metadata(items: metadataItems) }
    /// The movie's chapters (QuickTime chapter track or Nero `chpl`; see
    /// ``MediaItem/chapterTables``).
    public private(set) var chapterTables: [ChapterTable] = []
    /// The IDs of the text tracks that hold chapters (named by a `tref/chap`).
    public private(set) var chapterTrackIDs: Set<UInt32> = []

    /// The track with `id`.
    public func track(id: UInt32) -> AssetTrack? { tracks.first { $0.id == id } }

    /// Reads the file's tracks: for MP4/MOV/M4A the movie header, the
    /// tracks and their sample tables; for the other formats with several
    /// streams (Matroska, WebM, Ogg, ASF) the tracks their reader lists.
    /// The format is found as ``MediaItem`` finds it (``MediaFormat/all``).
    ///
    /// - Throws: ``MediaError`` naming the file: `unsupportedFormat` (no
    ///   format recognised, or one whose files hold a single stream),
    ///   `malformed`/`truncated`/`sizeOutOfRange` (bad boxes or tables),
    ///   `unsupportedFeature` (a compressed `cmov` header).
    ///
    /// The file is read on a thread outside Swift's cooperative pool.
    public mutating func load() async throws(MediaError) {
        self = try await FileEditor.runBlocking(on: BlockingWork.loads) { [self] () throws(MediaError) -> Asset in
            var asset = self
            try MediaError.catching(path: asset.url.path) { try asset.loadNow() }
            return asset
        }
    }

    /// ``load()`` on the calling thread.
    private mutating func loadNow() throws {
        do {
            let source = try FileSource(url: url)
            let format = try MediaFormat.detect(source, url: url)
            let contents = try format.loadAsset?(source, url) ?? Self.contents(of: format, source: source, url: url)
            tracks = contents.tracks
            movieTimescale = contents.movieTimescale
            movieDuration = contents.movieDuration
            brands = contents.brands
            metadataItems = contents.metadataItems
            movieWarnings = contents.warnings
            chapterTables = contents.chapterTables
            chapterTrackIDs = contents.chapterTrackIDs
            isFragmented = contents.isFragmented
            isMovieHeaderFirst = contents.isMovieHeaderFirst
            self.format = format
            fileType = contents.fileType
            hasSampleTables = format.loadAsset != nil
            isLoaded = true
        } catch let error as MediaError {
            throw error.naming(url.path)
        }
    }

    /// What a format without a track reader of its own gives: the streams,
    /// items, chapters and warnings of its ordinary read.
    private static func contents(of format: MediaFormat, source: FileSource, url: URL) throws -> AssetContents {
        let parsed = try format.parse(source, url)
        guard !parsed.properties.streams.isEmpty else {
            throw MediaError(.unsupportedFormat, "\(format.name) files hold one stream: no tracks to list", offset: 0)
        }
        var contents = AssetContents()
        contents.tracks = parsed.properties.streams
        if let duration = parsed.properties.duration, duration.isFinite, duration > 0 {
            contents.movieTimescale = 1000
            contents.movieDuration = Int64((duration * 1000).rounded())
        }
        contents.metadataItems = parsed.items
        contents.warnings = parsed.warnings
        contents.chapterTables = parsed.chapterTables
        contents.fileType = parsed.fileType
        return contents
    }
}

/// What loading an ``Asset`` found; a format with a track reader of its own
/// (MP4) fills it through ``MediaFormat``'s `loadAsset`.
struct AssetContents {
    var tracks: [AssetTrack] = []
    var movieTimescale: UInt32 = 0
    var movieDuration: Int64 = 0
    var brands: [FourCC] = []
    var metadataItems: [MetadataItem] = []
    var warnings: [MediaWarning] = []
    var chapterTables: [ChapterTable] = []
    var chapterTrackIDs: Set<UInt32> = []
    var isFragmented = false
    var isMovieHeaderFirst = false
    var fileType: FileType?
}
