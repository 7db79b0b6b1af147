import Foundation
import Testing

@testable import MetadataKit

/// Files made by `ffmpeg -movflags use_metadata_tags` keep their tags as
/// QuickTime `mdta` items (a `keys` table and a key-indexed `ilst`) in
/// `moov/udta/meta`. A save that adds iTunes items moves that `meta` to
/// `moov/meta` (QuickTime's place and layout) so the iTunes `meta` is the
/// only one in `udta`: mutagen and TagLib (first `udta/meta/ilst` only; no
/// `keys` support, so they never name the `mdta` items) read the iTunes
/// items; ffprobe, exiftool and mediainfo read both; no packet changes.
@Suite(
    .enabled(
        if: MatrixReaders.toolsPresent && TestSupport.hasTool("exiftool") && TestSupport.hasTool("mediainfo"),
        "needs ffmpeg, ffprobe, mutagen, g++ with TagLib, exiftool and mediainfo"))
struct MP4MdtaPlacementTests {
    static let sine = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
    static let video = ["-f", "lavfi", "-i", "testsrc=duration=1:size=32x16:rate=5", "-c:v", "mpeg4"]

    /// An ffmpeg file with `mdta` items `title` and `custom_key` in `udta/meta`.
    func make(_ name: String, video: Bool, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y"] + Self.sine + (video ? Self.video : []) + [
                "-c:a", "aac", "-shortest", "-metadata", "title=Keyed title", "-metadata", "custom_key=Custom value",
                "-movflags", "use_metadata_tags", url.path,
            ])
        return url
    }

    /// The handler types of the `meta` boxes of `moov/udta` and of `moov`,
    /// and whether each `moov/meta` has version and flags.
    func metaLayout(_ url: URL) throws -> (userData: [String], movie: [String], movieFullBox: [Bool], userDataFirst: Bool) {
        let source = try FileSource(url: url)
        let moov = try MP4Movie(source).moov
        let parser = MP4MetadataParser(source: source, url: url)
        let userData = try (moov.child("udta")?.children("meta") ?? []).map { try parser.handlerType(of: $0)?.description ?? "" }
        let movieMetas = moov.children("meta")
        let movie = try movieMetas.map { try parser.handlerType(of: $0)?.description ?? "" }
        let fullBox = try movieMetas.map { try MP4TreeBuilder(source: source).metaPrefix($0.header) == 4 }
        let types = moov.children.map(\.type)
        let userDataFirst = (types.firstIndex(of: "udta") ?? .max) < (types.firstIndex(of: "meta") ?? .max)
        return (userData, movie, fullBox, userDataFirst)
    }

    /// ffmpeg's MD5 of every stream's packets (a stream copy).
    func packetHashes(_ url: URL) throws -> String {
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]
        ).text
    }

    /// exiftool's tags as "Group:Name" → value.
    func exiftool(_ url: URL) throws -> [String: String] {
        let output = try TestSupport.runChecked("exiftool", ["-j", "-G1", "-a", url.path])
        let objects = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [[String: Any]] ?? []
        return (objects.first ?? [:]).mapValues { "\($0)" }
    }

    func checkEveryReader(_ url: URL, artist: String) throws {
        let mutagen = try MatrixReaders.mutagen([url])[url.path] ?? [:]
        #expect(mutagen["mp4:©ART"] == [artist] && mutagen["mp4:©alb"] == ["New album"], "mutagen: \(mutagen)")
        let taglib = try MatrixReaders.taglib([url])[url.path] ?? [:]
        #expect(taglib["ARTIST"] == [artist] && taglib["ALBUM"] == ["New album"], "TagLib: \(taglib)")
        let ffprobe = try MatrixReaders.ffprobe(url)
        #expect(ffprobe["artist"] == [artist] && ffprobe["album"] == ["New album"], "ffprobe: \(ffprobe)")
        #expect(ffprobe["title"] == ["Keyed title"] && ffprobe["custom_key"] == ["Custom value"], "ffprobe: \(ffprobe)")
        let exif = try exiftool(url)
        #expect(exif["ItemList:Artist"] == artist && exif["ItemList:Album"] == "New album", "exiftool: \(exif)")
        #expect(exif["Keys:Title"] == "Keyed title" && exif["Keys:CustomKey"] == "Custom value", "exiftool: \(exif)")
        let mediainfo = try TestSupport.runChecked("mediainfo", [url.path]).text
        #expect(mediainfo.contains("Custom value") && mediainfo.contains(artist), "mediainfo: \(mediainfo)")
    }

    @Test(arguments: [("a.m4a", false), ("v.mov", true), ("v.mp4", true)])
    func iTunesItemsAddedBesideMdtaItemsAreReadByEveryTool(name: String, video: Bool) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try make(name, video: video, in: directory)
        #expect(try metaLayout(url).userData == ["mdta"], "ffmpeg wrote its mdta meta in udta")
        let packets = try packetHashes(url)

        var item = try await MediaItem.loaded(url)
        item.metadata.artist = "New artist"
        item.metadata.album = "New album"
        try await item.save()

        let layout = try metaLayout(url)
        #expect(layout.userData == ["mdir"], "the iTunes meta is the only meta of udta: \(layout)")
        #expect(layout.movie == ["mdta"] && layout.movieFullBox == [false], "mdta in moov/meta, Apple's layout: \(layout)")
        #expect(layout.userDataFirst, "udta before moov/meta (mutagen reads nothing after such a meta)")
        try checkEveryReader(url, artist: "New artist")
        #expect(try packetHashes(url) == packets)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Keyed title" && reread.metadata.artist == "New artist")
        #expect(reread.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.key == "custom_key" })

        // The next save keeps the layout.
        var again = reread
        again.metadata.artist = "Other artist"
        try await again.save()
        let next = try metaLayout(url)
        #expect(next.userData == ["mdir"] && next.movie == ["mdta"], "\(next)")
        try checkEveryReader(url, artist: "Other artist")
        #expect(try packetHashes(url) == packets)
    }
}
