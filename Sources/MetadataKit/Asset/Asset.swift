#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A movie file opened for its tracks and samples: MP4, M4A, MOV (ISO/IEC
/// 14496-12 base media files and QuickTime movies).
///
/// ```swift
/// let asset = try await Asset.load(url: url)
/// for track in asset.tracks { print(track.id, track.mediaType, track.codec ?? "?") }
/// ```
///
/// Loading reads `ftyp`, the `moov` tree and every track's sample tables
/// (ISO/IEC 14496-12 §8.6–8.7); media data stays on disk and is read sample by
/// sample through an ``AssetReader``.
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
    /// True once ``load()`` succeeded.
    public private(set) var isLoaded = false
    /// Where `moov` and the first `mdat` lie (`moov` first means "fast start").
    public private(set) var isMovieHeaderFirst = false

    /// An asset for `url`; nothing is read until ``load()``.
    public init(url: URL) {
        self.url = url
    }

    /// Opens and loads the asset at `url`.
    public static func load(url: URL) async throws -> Asset {
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

    /// Reads the movie header, the tracks and their sample tables.
    ///
    /// - Throws: ``MediaError`` naming the file: `unsupportedFormat` (not an
    ///   MP4/QuickTime file), `malformed`/`truncated`/`sizeOutOfRange` (bad
    ///   boxes or tables), `unsupportedFeature` (a compressed `cmov` header).
    public mutating func load() async throws {
        do {
            let source = try FileSource(url: url)
            let head = try source.getAvailableBytes(at: 0, count: 8)
            guard head.count == 8,
                MP4Parser.topLevelTypes.contains(
                    FourCC(UInt32(head[4]) << 24 | UInt32(head[5]) << 16 | UInt32(head[6]) << 8 | UInt32(head[7])))
            else {
                throw MediaError(.unsupportedFormat, "not an MP4/QuickTime file (no box at the start)", offset: 0)
            }
            // The same forgiving read of the box tree as MediaItem's (MP4Movie).
            let movie = try MP4Movie(source)
            let (layout, moov) = (movie.layout, movie.moov)
            movieWarnings = movie.warnings
            brands = layout.brands ?? []
            if let mvhd = moov.child("mvhd") {
                var reader = try source.mp4Payload(of: mvhd.header, upTo: 32)
                let timing = try MP4HeaderTiming(parsing: &reader)
                movieTimescale = timing.timescale
                movieDuration = timing.units
            }
            tracks = try moov.children("trak").map { try AssetTrack(parsing: $0, in: source) }
            metadataItems = try MP4MetadataParser(source: source, url: url).items(in: moov)
            var chapterWarnings: [MediaWarning] = []
            chapterTables = MP4Chapters.tables(in: moov, source: source, warnings: &chapterWarnings)
            movieWarnings += chapterWarnings
            chapterTrackIDs = MP4ChapterTrack.textTrackIDs(in: moov, source: source)
            isFragmented = try moov.child("mvex") != nil || MP4Movie.topLevelTypes(in: source).contains("moof")
            isMovieHeaderFirst = try MP4Movie.isMovieHeaderFirst(in: source)
            isLoaded = true
        } catch let error as MediaError {
            throw error.naming(url.path)
        }
    }
}
