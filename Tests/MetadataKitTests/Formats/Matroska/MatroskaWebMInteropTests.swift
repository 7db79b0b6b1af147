import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Chapters written to WebM files made by ffmpeg (VP8 and Opus) hold only
/// the elements WebM allows, and ffprobe, mkvinfo and mkvextract read them;
/// an edition's name written to an mkvmerge file is an EditionDisplay that
/// mkvextract lists, the DocTypeVersion raised to 5.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaWebMInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// Nested chapters with ISO 639-2 languages (what WebM can hold).
    static let chapters = [
        Chapter(
            start: 0, end: 0.8, titles: [Chapter.Title("Anfang", language: "ger"), Chapter.Title("Start", language: "eng")],
            chapters: [Chapter(start: 0.4, end: 0.6, titles: [Chapter.Title("Innen – ü")])]),
        Chapter(start: 0.8, end: 2, titles: [Chapter.Title("Ende", language: "ger")]),
    ]

    /// A 2-second VP8 and Opus WebM made by ffmpeg; with ffmpeg's chapters when `chaptered`.
    func webm(chaptered: Bool) throws -> URL {
        #expect(Capabilities.ffmpegEncodes("libvpx") && Capabilities.ffmpegEncodes("libopus"))
        let plain = directory.appendingPathComponent("plain.webm"), file = directory.appendingPathComponent("v.webm")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=5", "-f", "lavfi", "-i", "sine=duration=2",
                "-t", "2", "-c:v", "libvpx", "-c:a", "libopus", "-metadata", "title=Web", plain.path,
            ])
        guard chaptered else { return plain }
        let metadata = directory.appendingPathComponent("chapters.txt")
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\n"
            .write(to: metadata, atomically: true, encoding: .utf8)
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", plain.path, "-i", metadata.path, "-map", "0", "-map_chapters", "1", "-c", "copy",
                file.path,
            ])
        return file
    }

    @Test(arguments: [false, true])
    func chaptersWrittenToAnFFmpegWebMAreWebMAndEveryToolReadsThem(chaptered: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try webm(chaptered: chaptered)
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        var item = try await MediaItem.loaded(file)
        #expect(item.fileType?.identifier == FileType.webm.identifier)
        #expect(item.chapters.count == (chaptered ? 2 : 0))
        item.chapters = Self.chapters
        try await item.save()
        // ffmpeg's Chapters, before the Clusters, grow and stay there with
        // padding (the Clusters move); new ones fit where ffmpeg left room.
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: chaptered ? 3 * 1024 : 1024)
        let ids = try MatroskaWriteRulesTests.chapterIDs(file)
        let foreign = Set(ids).subtracting(MatroskaWriteRulesTests.webMChapterIDs)
        #expect(foreign.isEmpty, "elements WebM doesn't allow: \(foreign.map { String($0, radix: 16) })")
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).header.docType == "webm")
        let reread = try await MediaItem.loaded(file)
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        #expect(ChapterComparison.difference(expected: [ChapterTable(chapters: Self.chapters)], actual: reread.chapterTables) == nil)
        // mkvinfo lists no edition flag, edition UID, hidden flag or IETF language.
        let info = try I.mkvinfo(file)
        for name in ["Edition UID", "Edition flag", "Chapter flag", "IETF"] {
            #expect(!info.contains(name), "mkvinfo shows \(name)")
        }
        #expect(info.components(separatedBy: "Chapter atom").count - 1 == 3)
        // ffprobe: the top-level chapters, their times and (last) titles.
        let probed = try #require(try I.ffprobe(file)["chapters"] as? [[String: Any]])
        #expect(probed.count == 2)
        for (chapter, other) in zip(Self.chapters, probed) {
            #expect(abs(chapter.start - (Double(other["start_time"] as? String ?? "") ?? -1)) < 1e-6)
            #expect(abs((chapter.end ?? -1) - (Double(other["end_time"] as? String ?? "") ?? -1)) < 1e-6)
            #expect((other["tags"] as? [String: String])?["title"] == chapter.titles.last?.text)
        }
        let xml = try I.extractedChapters(file)
        for text in [
            "<ChapterString>Innen – ü</ChapterString>", "<ChapterLanguage>ger</ChapterLanguage>", "<ChapterTimeStart>00:00:00.400000000",
        ] {
            #expect(xml.contains(text), "mkvextract chapters lacks \(text)")
        }
        // What WebM can't hold is refused, the file untouched.
        let before = try Data(contentsOf: file)
        var hidden = reread
        hidden.chapterTables[0].chapters[1].isHidden = true
        let error = await #expect(throws: MediaError.self) { try await hidden.save() }
        #expect(error?.code == .unsupportedFeature)
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func anEditionNameMkvmergeWroteIsRead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("in.mka"), file = directory.appendingPathComponent("named.mka")
        let xml = directory.appendingPathComponent("chapters.xml")
        try I.ffmpegAudio(audio)
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <Chapters><EditionEntry>
          <EditionDisplay><EditionString>Kinofassung</EditionString><EditionLanguageIETF>de</EditionLanguageIETF></EditionDisplay>
          <ChapterAtom><ChapterTimeStart>00:00:00.000</ChapterTimeStart>
            <ChapterDisplay><ChapterString>Eins</ChapterString></ChapterDisplay></ChapterAtom>
        </EditionEntry></Chapters>
        """.write(to: xml, atomically: true, encoding: .utf8)
        try TestSupport.runChecked("mkvmerge", ["-q", "-o", file.path, "--chapters", xml.path, audio.path])
        #expect(try I.mkvinfo(file).contains("Edition string: Kinofassung"))
        let item = try await MediaItem.loaded(file)
        #expect(item.chapterTables.map(\.title) == ["Kinofassung"] && item.chapters.map(\.title) == ["Eins"])
    }

    @Test func anEditionNameIsWrittenAndMkvextractListsIt() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("mkvmerge.mka", in: directory)
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).header.docTypeVersion == 4)
        var item = try await MediaItem.loaded(file)
        let chapters = item.chapters
        item.chapterTables[0].title = "Fassung B"
        try await item.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 1024)
        let reread = try await MediaItem.loaded(file)
        #expect(reread.chapterTables.map(\.title) == ["Fassung B"] && reread.chapters == chapters)
        #expect(try I.mkvinfo(file).contains("Document type version: 5"))
        let xml = try I.extractedChapters(file)
        #expect(xml.contains("<EditionString>Fassung B</EditionString>"), "\(xml)")
        #expect(xml.contains("<ChapterString>Intro</ChapterString>") && xml.contains("<ChapterString>Sub</ChapterString>"))
        // ffprobe still reads the file and its chapters.
        #expect((try I.ffprobe(file)["chapters"] as? [[String: Any]])?.count == 2)
    }
}
