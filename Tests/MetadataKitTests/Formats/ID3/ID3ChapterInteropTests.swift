import Foundation
import Testing

@testable import MetadataKit

/// ID3v2 chapters against other tools: ffmpeg and mutagen write them and we
/// read them; we write them and ffprobe and mutagen read them.
@Suite struct ID3ChapterInteropTests {
    static let fast = SaveOptions(durability: .noSync)

    /// Chapters as ffprobe or mutagen report them: seconds and the title.
    struct Seen: Equatable, CustomStringConvertible {
        var start: Double
        var end: Double
        var title: String
        var description: String { "\(start)–\(end) '\(title)'" }
    }

    /// An MP3 (or WAV, AIFF) made by ffmpeg from a sine, in its own folder.
    static func makeAudio(_ name: String, seconds: Int = 10) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent(name)
        var arguments = ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)"]
        if name.hasSuffix(".mp3") { arguments += ["-c:a", "libmp3lame", "-b:a", "64k"] }
        try TestSupport.runChecked("ffmpeg", arguments + [url.path])
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    /// What `ffprobe -show_chapters` reports.
    static func ffprobeChapters(_ url: URL) throws -> [Seen] {
        let output = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", url.path])
        let json = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
        let chapters = json?["chapters"] as? [[String: Any]] ?? []
        return chapters.map { chapter in
            Seen(
                start: Double(chapter["start_time"] as? String ?? "") ?? -1, end: Double(chapter["end_time"] as? String ?? "") ?? -1,
                title: (chapter["tags"] as? [String: String])?["title"] ?? "")
        }
    }

    static func seen(_ chapters: [Chapter]) -> [Seen] {
        chapters.map { Seen(start: $0.start, end: $0.end ?? -1, title: $0.title ?? "") }
    }

    static let chapters: [Chapter] = [
        Chapter(start: 0, end: 2.5, titles: [.init("Opening")], url: "https://example.org/a"),
        Chapter(start: 2.5, end: 6.125, titles: [.init("Kapitel Ü 章"), .init("More")]),
        Chapter(start: 6.125, end: 10, titles: [.init("Last")]),
    ]

    // MARK: We write, they read

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe")), arguments: [SaveOptions.ID3v2Version.v2_3, .v2_4])
    func ffprobeAndMutagenReadOurChapters(version: SaveOptions.ID3v2Version) async throws {
        let url = try Self.makeAudio("book.mp3")
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.chapters = Self.chapters
        try await item.save(options: SaveOptions(id3v2Version: version, durability: .noSync))
        #expect(try Self.ffprobeChapters(url) == Self.seen(Self.chapters))

        #expect(TestSupport.hasPythonModule("mutagen"))
        let script = """
            import json, sys
            from mutagen.id3 import ID3
            tags = ID3(sys.argv[1])
            out = {"version": tags.version[1], "chap": [], "ctoc": []}
            for f in tags.getall("CHAP"):
                sub = {k[:4]: v for k, v in f.sub_frames.items()}
                out["chap"].append({"id": f.element_id, "start": f.start_time, "end": f.end_time,
                    "offsets": [f.start_offset, f.end_offset],
                    "titles": [str(sub[k].text[0]) for k in ("TIT2", "TIT3") if k in sub],
                    "url": sub["WXXX"].url if "WXXX" in sub else None})
            for f in tags.getall("CTOC"):
                out["ctoc"].append({"id": f.element_id, "flags": int(f.flags), "children": f.child_element_ids})
            print(json.dumps(out))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        #expect(json["version"] as? Int == (version == .v2_3 ? 3 : 4))
        let chaps = json["chap"] as? [[String: Any]] ?? []
        #expect(chaps.map { $0["start"] as? Int } == [0, 2500, 6125])
        #expect(chaps.map { $0["end"] as? Int } == [2500, 6125, 10000])
        #expect(chaps.map { $0["titles"] as? [String] ?? [] } == Self.chapters.map { $0.titles.map(\.text) })
        #expect(chaps.map { $0["url"] as? String } == ["https://example.org/a", nil, nil])
        #expect(chaps.allSatisfy { $0["offsets"] as? [Int] == [0xFFFF_FFFF, 0xFFFF_FFFF] })
        let ctocs = json["ctoc"] as? [[String: Any]] ?? []
        #expect(ctocs.count == 1)
        #expect(ctocs.first?["flags"] as? Int == 3)
        #expect(ctocs.first?["children"] as? [String] == chaps.compactMap { $0["id"] as? String })
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen")), arguments: ["wav", "aiff"])
    func chaptersInTheID3ChunkOfWAVAndAIFF(ext: String) async throws {
        let url = try Self.makeAudio("book.\(ext)", seconds: 3)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let chapters = [Chapter(start: 0, end: 1, titles: [.init("A")]), Chapter(start: 1, end: 3, titles: [.init("B")])]
        item.chapters = chapters
        try await item.save(options: Self.fast)
        #expect(
            try await MediaItem.loaded(url).chapters
                == chapters.enumerated().map { index, chapter in
                    var chapter = chapter
                    chapter.id = "chp\(index)"
                    return chapter
                })
        let script = """
            import sys, mutagen
            tags = mutagen.File(sys.argv[1]).tags
            print(";".join("%s,%d,%d,%s" % (f.element_id, f.start_time, f.end_time, f.sub_frames["TIT2"].text[0]) for f in tags.getall("CHAP")))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        #expect(output.text.trimmingCharacters(in: .whitespacesAndNewlines) == "chp0,0,1000,A;chp1,1000,3000,B")
    }

    // MARK: They write, we read

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe")), arguments: ["3", "4"])
    func chaptersWrittenByFFmpegReadBack(version: String) async throws {
        let source = try Self.makeAudio("in.mp3")
        defer { Self.remove(source) }
        let folder = source.deletingLastPathComponent()
        let metadata = folder.appendingPathComponent("meta.ffmeta")
        try """
        ;FFMETADATA1
        title=Book

        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=3250
        title=Erste Ü

        [CHAPTER]
        TIMEBASE=1/1000
        START=3250
        END=7000
        title=Second

        [CHAPTER]
        TIMEBASE=1/1000
        START=7000
        END=10000
        title=Third

        """.write(to: metadata, atomically: true, encoding: .utf8)
        let url = folder.appendingPathComponent("out.mp3")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", source.path, "-i", metadata.path, "-map_metadata", "1", "-map_chapters", "1",
                "-c", "copy", "-id3v2_version", version, url.path,
            ])
        let expected = try Self.ffprobeChapters(url)
        #expect(expected.count == 3)
        let item = try await MediaItem.loaded(url)
        #expect(Self.seen(item.chapters) == expected)
        #expect(item.chapters.map(\.title) == ["Erste Ü", "Second", "Third"])
        #expect(item.metadata.title == "Book")
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen")), arguments: [3, 4])
    func nestedChaptersWrittenByMutagenReadBack(version: Int) async throws {
        let url = try Self.makeAudio("book.mp3")
        defer { Self.remove(url) }
        let picture = ID3Builder.tinyPNG + [UInt8](repeating: 7, count: 300)
        let pictureURL = url.deletingLastPathComponent().appendingPathComponent("cover.png")
        try Data(picture).write(to: pictureURL)
        let script = """
            import sys
            from mutagen.id3 import ID3, CHAP, CTOC, CTOCFlags, TIT2, TIT3, WXXX, APIC
            png = open(sys.argv[2], "rb").read()
            tags = ID3()
            tags.add(TIT2(encoding=3, text=["Book"]))
            tags.add(CTOC(element_id="toc", flags=CTOCFlags.TOP_LEVEL | CTOCFlags.ORDERED, child_element_ids=["ch1", "part"],
                sub_frames=[TIT2(encoding=3, text=["Contents"])]))
            tags.add(CTOC(element_id="part", flags=CTOCFlags.ORDERED, child_element_ids=["ch2", "ch3"],
                sub_frames=[TIT2(encoding=3, text=["Part Two"])]))
            tags.add(CHAP(element_id="ch1", start_time=0, end_time=2000, start_offset=0xFFFFFFFF, end_offset=0xFFFFFFFF,
                sub_frames=[TIT2(encoding=3, text=["Ünïcödé 章"]), TIT3(encoding=1, text=["About it"]),
                    WXXX(encoding=0, desc="", url="https://example.org/ch1"),
                    APIC(encoding=3, mime="image/png", type=3, desc="pic", data=png)]))
            tags.add(CHAP(element_id="ch2", start_time=2000, end_time=5500, start_offset=0xFFFFFFFF, end_offset=0xFFFFFFFF,
                sub_frames=[TIT2(encoding=0, text=["Two"])]))
            tags.add(CHAP(element_id="ch3", start_time=5500, end_time=10000, start_offset=0xFFFFFFFF, end_offset=0xFFFFFFFF,
                sub_frames=[TIT2(encoding=1, text=["Three"])]))
            tags.save(sys.argv[1], v2_version=int(sys.argv[3]))
            """
        try TestSupport.runChecked("python3", ["-c", script, url.path, pictureURL.path, "\(version)"])
        let item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
        #expect(item.chapterTables.count == 1)
        let table = try #require(item.chapterTables.first)
        #expect(table.id == "toc" && table.title == "Contents" && table.isDefault && table.isOrdered)
        #expect(table.chapters.map(\.id) == ["ch1", "part"])
        let first = table.chapters[0]
        #expect(first.titles.map(\.text) == ["Ünïcödé 章", "About it"])
        #expect(first.start == 0 && first.end == 2)
        #expect(first.url == "https://example.org/ch1")
        #expect(try await first.artwork?.data() == Data(picture))
        #expect(first.artwork?.description == "pic" && first.artwork?.mimeType == "image/png")
        let part = table.chapters[1]
        #expect(part.title == "Part Two" && part.start == 2 && part.end == 10)
        #expect(part.chapters.map(\.id) == ["ch2", "ch3"])
        #expect(part.chapters.map(\.title) == ["Two", "Three"])
        #expect(part.chapters.map(\.end) == [5.5, 10])

        // Rewritten by us (a title changed), ffprobe and mutagen still agree.
        var edited = item
        edited.chapterTables[0].chapters[1].chapters[0].titles = [.init("Zwei")]
        try await edited.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapterTables[0].chapters[1].chapters.map(\.title) == ["Zwei", "Three"])
        #expect(try await reread.chapterTables[0].chapters[0].artwork?.data() == Data(picture))
        #expect(try Data(contentsOf: url)[3] == UInt8(version))
        let check = """
            import sys
            from mutagen.id3 import ID3
            t = ID3(sys.argv[1])
            print(";".join("%s:%s" % (f.element_id, f.sub_frames.get("TIT2").text[0]) for f in t.getall("CHAP")))
            print(len(t.getall("CHAP")[0].sub_frames.getall("APIC")[0].data))
            """
        let output = try TestSupport.runChecked("python3", ["-c", check, url.path])
        #expect(output.text == "ch1:Ünïcödé 章;ch2:Zwei;ch3:Three\n\(picture.count)\n")
    }
}
