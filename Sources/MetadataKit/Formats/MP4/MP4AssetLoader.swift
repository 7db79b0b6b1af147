#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads an MP4/QuickTime file as an ``Asset``: the movie header (`mvhd`),
/// every `trak` with its sample tables, the movie's metadata and chapters,
/// whether it has fragments (`mvex` or `moof`) and whether `moov` comes
/// before the media data.
enum MP4AssetLoader {
    static func load(_ source: FileSource, url: URL) throws -> AssetContents {
        // The same forgiving read of the box tree as MediaItem's (MP4Movie).
        let movie = try MP4Movie(source)
        let (layout, moov) = (movie.layout, movie.moov)
        var contents = AssetContents()
        contents.warnings = movie.warnings
        contents.brands = layout.brands ?? []
        if let mvhd = moov.child("mvhd") {
            var reader = try source.mp4Payload(of: mvhd.header, upTo: 32)
            let timing = try MP4HeaderTiming(parsing: &reader)
            contents.movieTimescale = timing.timescale
            contents.movieDuration = timing.units
        }
        contents.tracks = try moov.children("trak").map { try AssetTrack(parsing: $0, in: source) }
        contents.metadataItems = try MP4MetadataParser(source: source, url: url).items(in: moov)
        contents.chapterTables = MP4Chapters.tables(in: moov, source: source, warnings: &contents.warnings)
        contents.chapterTrackIDs = MP4ChapterTrack.textTrackIDs(in: moov, source: source)
        contents.isFragmented = try moov.child("mvex") != nil || MP4Movie.topLevelTypes(in: source).contains("moof")
        contents.isMovieHeaderFirst = try MP4Movie.isMovieHeaderFirst(in: source)
        return contents
    }
}
