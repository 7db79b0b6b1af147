import Foundation
import Testing

@testable import MetadataKit

/// MP4 chapters against ffmpeg, ffprobe and mutagen: chapters ffmpeg writes
/// (`chpl` and a QuickTime chapter track) read exactly; chapters MetadataKit
/// writes read back by ffprobe (every start, end and title) and mutagen
/// (`MP4Chapters`, from `chpl`), in M4A, M4B, MP4 video and MOV, fast start
/// or not; replaced and removed; the audio and video packets unchanged.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && TestSupport.hasPythonModule("mutagen"),
        "needs ffmpeg, ffprobe and mutagen"))
struct MP4ChapterInteropTests {
    struct Kind: CustomTestStringConvertible, Sendable {
        var ext: String
        var video: Bool
        var fastStart: Bool
        var testDescription: String { "\(ext)\(video ? " video" : "")\(fastStart ? " fast start" : "")" }
    }

    static let kinds: [Kind] = [
        Kind(ext: "m4a", video: false, fastStart: false), Kind(ext: "m4b", video: false, fastStart: true),
        Kind(ext: "mp4", video: true, fastStart: false), Kind(ext: "mp4", video: true, fastStart: true),
        Kind(ext: "mov", video: false, fastStart: false),
    ]

    static let ffmetadata = """
        ;FFMETADATA1
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1000
        title=One
        [CHAPTER]
        TIMEBASE=1/1000
        START=1000
        END=2500
        title=Zwei Ü
        [CHAPTER]
        TIMEBASE=1/1000
        START=2500
        END=3000
        title=Three

        """

    /// A 3 s file of `kind`, with ffmpeg's three chapters when `chapters`.
    static func make(_ kind: Kind, chapters: Bool) throws -> (URL, URL) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.\(kind.ext)")
        var arguments = ["-nostdin", "-v", "error", "-y"]
        if kind.video { arguments += ["-f", "lavfi", "-i", "testsrc=duration=3:size=64x48:rate=10"] }
        arguments += ["-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
        if chapters {
            let metadata = directory.appendingPathComponent("chapters.txt")
            try Data(ffmetadata.utf8).write(to: metadata)
            arguments += ["-i", metadata.path, "-map_chapters", kind.video ? "2" : "1"]
        }
        arguments += kind.video ? ["-map", "0", "-map", "1", "-c:v", "mpeg4"] : ["-map", "0"]
        arguments += ["-c:a", "aac", "-b:a", "64k"]
        if kind.fastStart { arguments += ["-movflags", "+faststart"] }
        try TestSupport.runChecked("ffmpeg", arguments + [url.path])
        return (url, directory)
    }

    struct Probed: Equatable {
        var start: Double
        var end: Double
        var title: String
    }

    /// ffprobe's chapters.
    static func ffprobeChapters(_ url: URL) throws -> [Probed] {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_chapters", "-print_format", "json", url.path])
        let json = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any]
        let chapters = json?["chapters"] as? [[String: Any]] ?? []
        return chapters.map { chapter in
            let tags = chapter["tags"] as? [String: Any]
            return Probed(
                start: Double(chapter["start_time"] as? String ?? "") ?? -1, end: Double(chapter["end_time"] as? String ?? "") ?? -1,
                title: tags?["title"] as? String ?? "")
        }
    }

    /// mutagen's `MP4Chapters` (from `chpl`): start and title per chapter.
    static func mutagenChapters(_ url: URL) throws -> [(Double, String)] {
        let script = """
            import sys, json
            from mutagen.mp4 import MP4
            f = MP4(sys.argv[1])
            print(json.dumps([[c.start, c.title] for c in (f.chapters or [])]))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        let list = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [[Any]] ?? []
        return list.map { (($0[0] as? NSNumber)?.doubleValue ?? -1, $0[1] as? String ?? "") }
    }

    /// ffmpeg's hash of every packet of `map` (the payload, not decoded).
    static func streamHash(_ url: URL, _ map: String) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "streamhash", "-"]).text
    }

    @Test(arguments: kinds)
    func ffmpegChaptersReadExactly(kind: Kind) async throws {
        let (url, directory) = try Self.make(kind, chapters: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let item = try await MediaItem.loaded(url)
        let probed = try Self.ffprobeChapters(url)
        #expect(probed.map(\.title) == ["One", "Zwei Ü", "Three"])
        #expect(item.chapters.map(\.title) == probed.map(\.title))
        #expect(item.chapters.map(\.start) == [0, 1, 2.5])
        #expect(item.chapters.map { $0.end ?? -1 } == [1, 2.5, 3])
        for (chapter, other) in zip(item.chapters, probed) {
            #expect(abs(chapter.start - other.start) < 0.001)
            #expect(abs((chapter.end ?? -1) - other.end) < 0.001)
        }
    }

    static let written = [
        Chapter(start: 0, end: 0.75, titles: [.init("Opening")]), Chapter(start: 0.75, end: 2, titles: [.init("Middle — ü")]),
        Chapter(start: 2, end: 3, titles: [.init("Close")]),
    ]

    @Test(arguments: kinds)
    func writtenChaptersReadBackEverywhere(kind: Kind) async throws {
        let (url, directory) = try Self.make(kind, chapters: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = try Self.streamHash(url, "0:a")
        let video = kind.video ? try Self.streamHash(url, "0:v") : ""
        var item = try await MediaItem.loaded(url)
        #expect(item.chapters.isEmpty)
        item.chapters = Self.written
        try await item.save()
        try Self.expectWritten(url, Self.written)
        #expect(try Self.streamHash(url, "0:a") == audio)
        if kind.video { #expect(try Self.streamHash(url, "0:v") == video) }
        if kind.fastStart { #expect(try MediaChecks.topLevelTypes(url).prefix(2) == ["ftyp", "moov"]) }

        // Replaced: the old track is dropped, the new one read.
        var again = try await MediaItem.loaded(url)
        let replaced = [Chapter(start: 0, end: 1.5, titles: [.init("First half")]), Chapter(start: 1.5, end: 3, titles: [.init("Second")])]
        again.chapters = replaced
        try await again.save()
        try Self.expectWritten(url, replaced)
        #expect(try Self.streamHash(url, "0:a") == audio)

        // Removed: no chapters anywhere, one track per stream.
        var last = try await MediaItem.loaded(url)
        last.chapters = []
        try await last.save()
        #expect(try Self.ffprobeChapters(url).isEmpty)
        #expect(try Self.mutagenChapters(url).isEmpty)
        #expect(try await MediaItem.loaded(url).chapters.isEmpty)
        let movie = try MP4Movie(FileSource(url: url))
        #expect(movie.moov.children("trak").count == (kind.video ? 2 : 1))
        #expect(try Self.streamHash(url, "0:a") == audio)
        if kind.fastStart { #expect(try MediaChecks.topLevelTypes(url).prefix(2) == ["ftyp", "moov"]) }
    }

    /// Chapters ffmpeg wrote, replaced by ours: ffprobe and mutagen see only ours.
    @Test(arguments: [kinds[0], kinds[3]])
    func replacingFFmpegChapters(kind: Kind) async throws {
        let (url, directory) = try Self.make(kind, chapters: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = try Self.streamHash(url, "0:a")
        var item = try await MediaItem.loaded(url)
        item.chapters = Self.written
        try await item.save()
        try Self.expectWritten(url, Self.written)
        #expect(try Self.streamHash(url, "0:a") == audio)
        let movie = try MP4Movie(FileSource(url: url))
        #expect(movie.moov.children("trak").count == (kind.video ? 3 : 2))
    }

    /// An export of part of a chaptered file keeps the chapters in that part,
    /// cut to it and moved to its start: `chpl` (mutagen) and what we read.
    @Test(arguments: [false, true])
    func exportKeepsChaptersInItsRange(fastStart: Bool) async throws {
        let (url, directory) = try Self.make(Self.kinds[0], chapters: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let asset = try await Asset.load(url: url)
        #expect(asset.chapterTables.first?.chapters.map(\.title) == ["One", "Zwei Ü", "Three"])
        let out = directory.appendingPathComponent("part.m4a")
        let session = ExportSession(asset: asset)
        session.outputURL = out
        session.timeRange = ExportTimeRange(start: 0.5, end: 2.75)
        session.shouldOptimizeForNetworkUse = fastStart
        try await session.export()
        let nero = try Self.mutagenChapters(out)
        #expect(nero.map(\.1) == ["One", "Zwei Ü", "Three"])
        #expect(zip(nero.map(\.0), [0, 0.5, 2.0]).allSatisfy { abs($0 - $1) < 0.0001 }, "\(nero)")
        let probed = try Self.ffprobeChapters(out)
        #expect(probed.map(\.title) == ["One", "Zwei Ü", "Three"])
        #expect(zip(probed.map(\.start), [0, 0.5, 2.0]).allSatisfy { abs($0 - $1) < 0.03 }, "\(probed)")
        let read = try await MediaItem.loaded(out).chapters
        #expect(read.map(\.title) == ["One", "Zwei Ü", "Three"])
        #expect(zip(read.map(\.start), [0, 0.5, 2.0]).allSatisfy { abs($0 - $1) < 0.0001 }, "\(read)")
    }

    static func expectWritten(_ url: URL, _ chapters: [Chapter], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let probed = try ffprobeChapters(url)
        #expect(probed.map(\.title) == chapters.map(\.title), sourceLocation: sourceLocation)
        #expect(probed.count == chapters.count, sourceLocation: sourceLocation)
        for (chapter, other) in zip(chapters, probed) {
            #expect(abs(chapter.start - other.start) < 0.002, "start \(other.start)", sourceLocation: sourceLocation)
            #expect(abs((chapter.end ?? -1) - other.end) < 0.002, "end \(other.end)", sourceLocation: sourceLocation)
        }
        let nero = try mutagenChapters(url)
        #expect(nero.map(\.1) == chapters.map(\.title), sourceLocation: sourceLocation)
        #expect(zip(nero, chapters).allSatisfy { abs($0.0 - $1.start) < 0.0001 }, sourceLocation: sourceLocation)
    }
}
