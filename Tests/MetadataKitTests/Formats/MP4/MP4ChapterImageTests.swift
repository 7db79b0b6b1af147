import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// Chapter pictures in MP4: a JPEG/PNG video track named by `tref/chap`
/// beside the text chapter track (Apple audiobooks). Each chapter gets the
/// picture playing at its start, read lazily; ffprobe sees the track as the
/// chapters' pictures; rewriting the chapters keeps the track; damaged and
/// hostile picture tracks are read around.
@Suite struct MP4ChapterImageTests {
    static let titles = ["Eins", "Zwei ü", "Drei"]

    /// A 10 s movie: a sound track naming the text chapter track (2) and the
    /// picture track (3) in `tref/chap`; chapters at 0, 3 and 6 s; pictures
    /// `images`, each `imageDurations` milliseconds long.
    static func movie(
        images: [[UInt8]], imageDurations: [Int], entry: FourCC = "jpeg", replacing: [FourCC: [UInt8]] = [:]
    ) -> [UInt8] {
        let audioEntry = B.audioEntry("mp4a", children: [B.esds(averageBitrate: 64000)])
        let sound = MovieBuilder.Track(
            id: 1, handler: "soun", entry: audioEntry, timescale: 1000,
            samples: Array(repeating: [UInt8](repeating: 0x21, count: 32), count: 10),
            durations: Array(repeating: 1000, count: 10), references: [(type: "chap", ids: [2, 3])])
        let textEntry = B.box("text", [UInt8](repeating: 0, count: 6) + B.u16(1) + [UInt8](repeating: 0, count: 44))
        let text = MovieBuilder.Track(
            id: 2, handler: "text", entry: textEntry, timescale: 1000, samples: titles.map(MP4ChapterTests.sample),
            durations: [3000, 3000, 4000])
        var pictures = MovieBuilder.Track(
            id: 3, handler: "vide", entry: MovieBuilder.videoEntry(entry, width: 32, height: 24), timescale: 1000, samples: images,
            durations: imageDurations)
        pictures.width = 32
        pictures.height = 24
        pictures.replacing = replacing
        return MovieBuilder.movie([sound, text, pictures], movieTimescale: 1000, brand: "M4B ")
    }

    static func image(_ color: String, codec: String, in directory: URL) throws -> [UInt8] {
        let url = directory.appendingPathComponent("\(color).\(codec == "png" ? "png" : "jpg")")
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=\(color):s=32x24", "-frames:v", "1", "-c:v", codec, url.path])
        return try [UInt8](Data(contentsOf: url))
    }

    static func parse(_ bytes: [UInt8]) throws -> (chapters: [Chapter], warnings: [MediaWarning]) {
        let (parsed, url) = try B.parse(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        return (parsed.chapterTables.first?.chapters ?? [], parsed.warnings)
    }

    @Test(
        .enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe"), "needs ffmpeg and ffprobe"),
        arguments: [("jpeg", "mjpeg"), ("png ", "png"), ("mp4v", "mjpeg")])
    func picturesReadKeptAndSeenByFFprobe(entry: String, codec: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let red = try Self.image("red", codec: codec, in: directory)
        let blue = try Self.image("blue", codec: codec, in: directory)
        let url = directory.appendingPathComponent("book.m4b")
        try Data(Self.movie(images: [red, blue], imageDurations: [3000, 7000], entry: FourCC(stringLiteral: entry))).write(to: url)

        var item = try await MediaItem.loaded(url)
        #expect(item.chapters.map(\.title) == Self.titles)
        let mime = codec == "png" ? "image/png" : "image/jpeg"
        for (chapter, expected) in zip(item.chapters, [red, blue, blue]) {
            let artwork = try #require(chapter.artwork, "chapter \(chapter.title ?? "")")
            #expect(artwork.mimeType == mime)
            #expect(artwork.byteCount == expected.count)
            #expect(artwork.width == 32 && artwork.height == 24)
            #expect(try await artwork.data() == Data(expected))
        }
        let probe = try Self.ffprobe(url)
        #expect(probe.chapters == Self.titles)
        // ffmpeg names the codec by the sample entry: JPEG data in `mp4v` is "mpeg4" to it.
        #expect(probe.pictureStreams == [entry == "mp4v" ? "mpeg4" : codec])

        // New chapter titles: the text track is replaced, the picture track kept.
        item.chapters = zip(item.chapters, ["One", "Two", "Three"]).map { Chapter(start: $0.start, end: $0.end, titles: [.init($1)]) }
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapters.map(\.title) == ["One", "Two", "Three"])
        #expect(try await reread.chapters.asyncMap { try await $0.artwork?.data() } == [red, blue, blue].map { Data($0) })
        let after = try Self.ffprobe(url)
        #expect(after.chapters == ["One", "Two", "Three"])
        #expect(after.pictureStreams == probe.pictureStreams)
    }

    /// ffprobe's chapter titles and the codecs of the streams it marks as attached pictures.
    static func ffprobe(_ url: URL) throws -> (chapters: [String], pictureStreams: [String]) {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_chapters", "-show_streams", "-of", "json", url.path]
        ).text
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let chapters = (json["chapters"] as? [[String: Any]] ?? []).map { ($0["tags"] as? [String: Any])?["title"] as? String ?? "" }
        let pictures = (json["streams"] as? [[String: Any]] ?? []).filter {
            ($0["disposition"] as? [String: Any])?["attached_pic"] as? Int == 1
        }.map { $0["codec_name"] as? String ?? "" }
        return (chapters, pictures)
    }

    /// A minimal JPEG head: SOI, then SOF0 of 32 × 24.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 24, 0, 32, 1, 1, 0x11, 0, 0xFF, 0xD9]

    /// Pictures read lazily from where they lie; which sample plays at a chapter's start.
    /// A picture set on a chapter can't be written to MP4: the save is
    /// refused with the file unchanged; the file's own pictures, kept on
    /// retitled chapters, save as before.
    @Test func newChapterPicturesAreRefusedNotDropped() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x11, count: 60) + [0xFF, 0xD9]
        let url = directory.appendingPathComponent("book.m4b")
        let original = Self.movie(images: [jpeg, jpeg], imageDurations: [3000, 7000])
        try Data(original).write(to: url)

        var item = try await MediaItem.loaded(url)
        item.chapters = item.chapters.map {
            Chapter(start: $0.start, end: $0.end, titles: $0.titles, artwork: Artwork(data: Data(jpeg + [0]), mimeType: "image/jpeg"))
        }
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try [UInt8](Data(contentsOf: url)) == original)

        var kept = try await MediaItem.loaded(url)
        kept.chapters = kept.chapters.map { Chapter(start: $0.start, end: $0.end, titles: [.init("New")], artwork: $0.artwork) }
        try await kept.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapters.map(\.title) == ["New", "New", "New"])
        #expect(try await reread.chapters.asyncMap { try await $0.artwork?.data() } == Array(repeating: Data(jpeg), count: 3))
    }

    @Test func eachChapterGetsThePictureAtItsStart() throws {
        let png = B.png(width: 32, height: 24)
        // Pictures at 0–1 s, 1–6 s, 6–10 s: chapters at 0, 3, 6 s.
        let bytes = Self.movie(images: [Self.jpeg, png, Self.jpeg + [0]], imageDurations: [1000, 5000, 4000])
        let (chapters, warnings) = try Self.parse(bytes)
        #expect(warnings.isEmpty)
        #expect(chapters.map { $0.artwork?.mimeType } == ["image/jpeg", "image/png", "image/jpeg"])
        #expect(chapters.map { $0.artwork?.byteCount } == [Self.jpeg.count, png.count, Self.jpeg.count + 1])
        #expect(chapters.allSatisfy { $0.artwork?.width == 32 && $0.artwork?.height == 24 })
        // No picture track: no artwork.
        let (plain, _) = try MP4ChapterTests.chapters(
            MP4ChapterTests.file(samples: Self.titles.map(MP4ChapterTests.sample), durations: [1800, 1800, 2400], chpl: nil))
        #expect(plain.count == 3 && plain.allSatisfy { $0.artwork == nil })
    }

    /// Samples past the end, samples that are no picture, hostile tables and
    /// every cut of the file: read around, never a crash, never a picture
    /// that doesn't lie in the file.
    @Test func hostilePictureTracksAndEveryPrefix() async throws {
        let good = Self.movie(images: [Self.jpeg, Self.jpeg], imageDurations: [3000, 7000])
        // A chunk offset past the end of the file.
        let far = Self.movie(
            images: [Self.jpeg, Self.jpeg], imageDurations: [3000, 7000],
            replacing: ["stco": B.fullBox("stco", B.u32(1) + B.u32(0x7FFF_FF00))])
        let (farChapters, farWarnings) = try Self.parse(far)
        #expect(farChapters.map(\.title) == Self.titles)
        #expect(farChapters.allSatisfy { $0.artwork == nil })
        #expect(farWarnings.contains { $0.message.contains("chapter pictures") })
        // Samples that are not pictures.
        let (junk, _) = try Self.parse(Self.movie(images: [[UInt8](repeating: 7, count: 20)], imageDurations: [10000]))
        #expect(junk.count == 3 && junk.allSatisfy { $0.artwork == nil })
        // A sample table claiming a billion samples.
        let (huge, _) = try Self.parse(
            Self.movie(
                images: [Self.jpeg], imageDurations: [10000],
                replacing: ["stts": B.fullBox("stts", B.u32(1) + B.u32(1_000_000_000) + B.u32(1))]))
        #expect(huge.map(\.title) == Self.titles)
        // Every cut.
        for length in 0..<good.count {
            let url = try B.write(Array(good[0..<length]))
            defer { try? FileManager.default.removeItem(at: url) }
            guard let source = try? FileSource(url: url), let parsed = try? MP4Parser.parse(source, url) else { continue }
            let chapters = parsed.chapterTables.first?.chapters ?? []
            #expect(chapters.count <= 3, "cut at \(length)")
            for chapter in chapters {
                guard let artwork = chapter.artwork else { continue }
                #expect(try await artwork.data().count == artwork.byteCount, "cut at \(length)")
            }
        }
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func mdkitChaptersShowsThePictures() throws {
        let url = try B.write(Self.movie(images: [Self.jpeg, B.png(width: 32, height: 24)], imageDurations: [3000, 7000]), ext: "m4b")
        defer { try? FileManager.default.removeItem(at: url) }
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let output = try TestSupport.run(executable.path, ["chapters", "--json", url.path])
        let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let chapters = try #require(json.first?["chapters"] as? [[String: Any]])
        #expect(chapters.map { ($0["artwork"] as? [String: Any])?["mimeType"] as? String } == ["image/jpeg", "image/png", "image/png"])
    }
}
