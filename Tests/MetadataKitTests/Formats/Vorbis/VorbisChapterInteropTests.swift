import Foundation
import Testing

@testable import MetadataKit

private enum VorbisChapterTools {
    static let present = ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen")
}

/// Vorbis comment chapters against ffmpeg and mutagen, in FLAC, Ogg Vorbis,
/// Opus and FLAC-in-Ogg: chapters ffmpeg wrote read back as ffprobe reads
/// them; chapters we write are read by ffprobe (`-show_chapters`: every
/// start, end and title) and by mutagen (the raw `CHAPTERxxx` fields), other
/// tags and the decoded audio stay, and removing them leaves no field.
@Suite(.enabled(if: VorbisChapterTools.present, "needs ffmpeg, ffprobe and python3 mutagen"))
struct VorbisChapterInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A 30 s sine as `name` (its extension picks the container), made by ffmpeg, with `extra` arguments.
    func make(_ name: String, codec: String, extra: [String] = []) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=30"] + extra + ["-c:a", codec, url.path])
        return url
    }

    /// Chapters as ffprobe reads them: (start, end, title).
    func ffprobeChapters(_ url: URL) throws -> [(Double, Double, String)] {
        let output = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", url.path])
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        return try #require(object["chapters"] as? [[String: Any]]).map { chapter in
            let start = Double(chapter["start_time"] as? String ?? "") ?? -1
            let end = Double(chapter["end_time"] as? String ?? "") ?? -1
            return (start, end, (chapter["tags"] as? [String: String])?["title"] ?? "")
        }
    }

    /// The comment's fields as mutagen reads them (names lowercased).
    func mutagenFields(_ url: URL) throws -> [String: [String]] {
        let script = """
            import sys, json, mutagen
            f = mutagen.File(sys.argv[1])
            out = {}
            for key, value in f.tags.items():
                out.setdefault(key.lower(), []).extend(value)
            print(json.dumps(out))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: [String]])
    }

    static let kinds: [(name: String, codec: String)] = [
        ("a.flac", "flac"), ("a.ogg", "libvorbis"), ("a.opus", "libopus"), ("a.oga", "flac"),
    ]

    /// ffmpeg writes CHAPTER000… from a metadata file (ffmpeg 5.1 into Opus
    /// only; later versions into FLAC and Ogg too). Starts are chosen below
    /// a half second: ffmpeg rounds the seconds of its timestamp to the
    /// nearest (12.5 s becomes "00:00:13.500").
    @Test(arguments: kinds) func chaptersFfmpegWroteReadAsFfprobeReadsThem(kind: (name: String, codec: String)) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let meta = directory.appendingPathComponent("meta.txt")
        try Data(
            """
            ;FFMETADATA1
            title=Song
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=12250
            title=Öne
            [CHAPTER]
            TIMEBASE=1/1000
            START=12250
            END=20125
            title=Two = 2
            [CHAPTER]
            TIMEBASE=1/1000
            START=20125
            END=30000
            title=Three

            """.utf8
        ).write(to: meta)
        let url = try make(kind.name, codec: kind.codec, extra: ["-i", meta.path, "-map", "0", "-map_metadata", "1", "-map_chapters", "1"])
        let item = try await MediaItem.loaded(url)
        let probed = try ffprobeChapters(url)
        if kind.codec == "libopus" { #expect(probed.count == 3, "ffmpeg writes chapters into Opus comments") }
        #expect(item.chapters.count == probed.count)
        for (index, (chapter, expected)) in zip(item.chapters, probed).enumerated() {
            #expect(abs(chapter.start - expected.0) < 0.0005 && chapter.title == expected.2, "\(kind.name) chapter \(index)")
            // The last end is the duration, which ffprobe estimates its own way.
            if index < probed.count - 1 { #expect(abs((chapter.end ?? -1) - expected.1) < 0.0005, "\(kind.name) chapter \(index)") }
        }
        if !probed.isEmpty {
            #expect(item.chapters.map(\.title) == ["Öne", "Two = 2", "Three"])
            #expect(item.chapters.last?.end == item.properties.duration)
        }
    }

    @Test(arguments: kinds) func chaptersWeWriteAreReadByFfprobeAndMutagen(kind: (name: String, codec: String)) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try make(kind.name, codec: kind.codec, extra: ["-metadata", "title=Song", "-metadata", "artist=Ärtist"])
        let audio = try MediaChecks.decodedMD5(url)
        var item = try await MediaItem.loaded(url)
        #expect(item.chapters.isEmpty)
        item.chapters = [
            Chapter(start: 0, end: 7.5, titles: [.init("Ïntro ✓")]),
            Chapter(start: 7.5, titles: [.init("Middle")], url: "https://example.com/m"),
            Chapter(start: 21.042, titles: [.init("End")]),
        ]
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        let duration = try #require(reread.properties.duration)
        #expect(reread.chapters.map(\.start) == [0, 7.5, 21.042])
        #expect(reread.chapters.map(\.end) == [7.5, 21.042, duration])
        #expect(reread.chapters.map(\.title) == ["Ïntro ✓", "Middle", "End"])
        #expect(reread.chapters.map(\.url) == [nil, "https://example.com/m", nil])
        #expect(reread.metadata.title == "Song" && reread.metadata.artist == "Ärtist")
        #expect(try MediaChecks.decodedMD5(url) == audio, "\(kind.name): the audio changed")

        let probed = try ffprobeChapters(url)
        #expect(probed.map(\.0) == [0, 7.5, 21.042], "\(kind.name)")
        #expect(probed.map(\.2) == ["Ïntro ✓", "Middle", "End"], "\(kind.name)")
        #expect(probed.dropLast().map(\.1) == [7.5, 21.042], "\(kind.name)")
        let fields = try mutagenFields(url)
        let chapterFields = fields.filter { $0.key.hasPrefix("chapter") }
        #expect(
            chapterFields == [
                "chapter001": ["00:00:00.000"], "chapter001name": ["Ïntro ✓"], "chapter002": ["00:00:07.500"],
                "chapter002name": ["Middle"], "chapter002url": ["https://example.com/m"], "chapter003": ["00:00:21.042"],
                "chapter003name": ["End"],
            ], "\(kind.name)")
        #expect(fields["title"] == ["Song"] && fields["artist"] == ["Ärtist"])

        // Changed again, then removed: no field stays behind.
        var again = reread
        again.chapters = [Chapter(start: 3, titles: [.init("Only")])]
        try await again.save()
        #expect(
            try mutagenFields(url).filter { $0.key.hasPrefix("chapter") } == ["chapter001": ["00:00:03.000"], "chapter001name": ["Only"]])
        again.chapterTables = []
        try await again.save()
        #expect(try mutagenFields(url).keys.filter { $0.hasPrefix("chapter") }.isEmpty)
        #expect(try await MediaItem.loaded(url).chapters.isEmpty)
        #expect(try ffprobeChapters(url).isEmpty)
        #expect(try MediaChecks.decodedMD5(url) == audio, "\(kind.name): the audio changed")
    }

    /// Chapters mutagen wrote (numbered from 001, one two-digit) read back;
    /// a gap between chapters is refused before anything is written.
    @Test func chaptersMutagenWroteAndAGapRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try make("b.flac", codec: "flac")
        let script = """
            import sys, mutagen
            f = mutagen.File(sys.argv[1])
            f["CHAPTER002"] = "00:00:10.000"; f["chapter002name"] = "B"
            f["Chapter01"] = "00:00:00.000"; f["CHAPTER01NAME"] = "A"
            f.save()
            """
        try TestSupport.runChecked("python3", ["-c", script, url.path])
        var item = try await MediaItem.loaded(url)
        #expect(item.chapters.map(\.title) == ["A", "B"] && item.chapters.map(\.start) == [0, 10])
        let before = try Data(contentsOf: url)
        item.chapters = [Chapter(start: 0, end: 5), Chapter(start: 6)]
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    /// Every prefix of a FLAC and an Opus file with chapters (up to the end
    /// of the comment) loads or fails with a ``MediaError``, never traps;
    /// a prefix that loads has no chapter ending before it starts.
    @Test func everyPrefixOfAFileWithChaptersLoadsOrFails() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, codec) in [("p.flac", "flac"), ("p.opus", "libopus")] {
            let url = try make(name, codec: codec)
            var item = try await MediaItem.loaded(url)
            item.chapters = (0..<12).map { Chapter(start: Double($0) * 2.5, titles: [.init("Chapter \($0) ✓")], url: "u\($0)") }
            try await item.save()
            let bytes = try Data(contentsOf: url)
            let prefix = directory.appendingPathComponent("prefix-" + name)
            for count in stride(from: 0, through: min(bytes.count, 4096), by: 7) {
                try bytes.prefix(count).write(to: prefix)
                do {
                    let loaded = try await MediaItem.loaded(prefix)
                    #expect(loaded.chapters.allSatisfy { ($0.end ?? $0.start) >= $0.start }, "\(name) prefix \(count)")
                } catch {
                    #expect(error is MediaError, "\(name) prefix \(count): \(error)")
                }
            }
        }
    }
}
