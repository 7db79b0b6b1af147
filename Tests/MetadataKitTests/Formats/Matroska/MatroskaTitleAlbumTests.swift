import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Title, album and album artist written where ffprobe (and the media
/// servers that read Matroska through ffmpeg), mkvinfo and mkvextract each
/// show them as what they are: ffprobe flattens every Tag without a UID
/// into one dictionary, the last of two equal names winning.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaTitleAlbumTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// An ffmpeg file (title in the Segment, artist and date as level-less
    /// Tags): a new album is a bare ALBUM, a new album artist a level-50
    /// ARTIST placed before ffmpeg's Tag, so ffprobe keeps the title, the
    /// album and the track's artist apart.
    @Test func titleAlbumAndAlbumArtistOfAnFFmpegFileShowAsThemselvesInFFprobeAndMkvextract() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("clip.mkv")
        try I.ffmpegVideo(file)
        var item = try await MediaItem.loaded(file)
        item.metadata.title = "New"
        item.metadata.album = "Alb"
        item.metadata.albumArtist = "Album Person"
        try await item.save()

        let tags = try I.ffprobeTags(file)
        #expect(tags["TITLE"] == "New", "\(tags)")
        #expect(tags["ALBUM"] == "Alb")
        #expect(tags["ARTIST"] == "Art Ist", "the album artist is not ffprobe's artist")
        #expect(try I.mkvinfo(file).contains("Title: New"))
        let xml = try I.extractedTags(file).replacingOccurrences(of: "\\s+", with: "", options: .regularExpression)
        #expect(xml.contains("<Name>ALBUM</Name><String>Alb</String>"))
        #expect(xml.contains("<TargetTypeValue>50</TargetTypeValue></Targets><Simple><Name>ARTIST</Name><String>AlbumPerson</String>"))
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.title == "New" && reread.metadata.album == "Alb")
        #expect(reread.metadata.albumArtist == "Album Person" && reread.metadata.artist == "Art Ist")
    }

    /// An mkvmerge file keeps its album in the TITLE of its level-50 Tag
    /// (mkvmerge leaves the default 50 out of the Targets), before the
    /// track's Tag: ffprobe's TITLE stays the track's.
    @Test func anMkvmergeFileKeepsItsAlbumAtLevel50() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("in.mka"), file = directory.appendingPathComponent("tagged.mka")
        try I.ffmpegAudio(audio)
        try I.mkvmerge(audio, file, in: directory)
        var item = try await MediaItem.loaded(file)
        #expect(item.metadata.album == "The Album")
        item.metadata.album = "Another Album"
        try await item.save()
        let xml = try I.extractedTags(file).replacingOccurrences(of: "\\s+", with: "", options: .regularExpression)
        #expect(xml.contains("<Tag><Targets/><Simple><Name>TITLE</Name><String>AnotherAlbum</String>"))
        #expect(!xml.contains("<Name>ALBUM</Name>"))
        #expect(try I.ffprobeTags(file)["TITLE"] == "Track Title")
        #expect(try await MediaItem.loaded(file).metadata.album == "Another Album")
    }
}
