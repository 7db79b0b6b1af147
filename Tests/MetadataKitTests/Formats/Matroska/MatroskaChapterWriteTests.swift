import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Chapters and cover art written to files made by ffmpeg and mkvmerge:
/// `mkvextract chapters`/`attachments`, `mkvmerge -J` and ffprobe see what
/// was written, every packet is identical and no Cluster moved.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaChapterWriteTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// Three chapters, the second with a nested hidden one; languages of both kinds.
    static let chapters = [
        Chapter(start: 0, end: 1.25, titles: [Chapter.Title("Eins", language: "ger"), Chapter.Title("One", language: "eng")]),
        Chapter(
            start: 1.25, end: 2.5, titles: [Chapter.Title("Zwei – ü", language: "de-CH")],
            chapters: [Chapter(start: 1.5, end: 2, titles: [Chapter.Title("Innen")], isHidden: true)]),
        Chapter(start: 2.5, titles: [Chapter.Title("Drei")]),
    ]

    @Test(arguments: ["ffmpeg.mkv", "mkvmerge.mka", "nocues.mka", "live.mka"])
    func chaptersAreWrittenAndEveryToolReadsThem(_ name: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make(name, in: directory)
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        var item = try await MediaItem.loaded(file)
        let oldItems = item.metadata.items
        item.chapters = Self.chapters
        try await item.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 1024)
        let reread = try await MediaItem.loaded(file)
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        #expect(ChapterComparison.difference(expected: [ChapterTable(chapters: Self.chapters)], actual: reread.chapterTables) == nil)
        #expect(reread.chapters.map { $0.titles.map(\.language) } == [["ger", "eng"], ["de-CH"], ["und"]])
        #expect(reread.chapters[1].chapters[0].isHidden && !reread.chapters[0].isHidden)
        for old in oldItems { #expect(reread.metadata.items.contains { $0.isStoredLike(old) }, "lost \(old.key)") }
        // mkvextract: every title, language, time and the hidden flag.
        let xml = try I.extractedChapters(file)
        for text in [
            "<ChapterString>Eins</ChapterString>", "<ChapterString>One</ChapterString>", "<ChapterString>Zwei – ü</ChapterString>",
            "<ChapterString>Innen</ChapterString>", "<ChapterString>Drei</ChapterString>", "<ChapterLanguage>ger</ChapterLanguage>",
            "<ChapLanguageIETF>de-CH</ChapLanguageIETF>", "<ChapterTimeStart>00:00:01.250000000</ChapterTimeStart>",
            "<ChapterTimeEnd>00:00:02.000000000</ChapterTimeEnd>", "<ChapterFlagHidden>1</ChapterFlagHidden>",
        ] {
            #expect(xml.contains(text), "mkvextract chapters lacks \(text)")
        }
        #expect(xml.components(separatedBy: "<ChapterAtom>").count - 1 == 4)
        // ffprobe: the top-level chapters with their starts, ends and first titles.
        let probed = try #require(try I.ffprobe(file)["chapters"] as? [[String: Any]])
        #expect(probed.count == 3)
        for (chapter, other) in zip(Self.chapters, probed) {
            #expect(abs(chapter.start - (Double(other["start_time"] as? String ?? "") ?? -1)) < 1e-6)
            if let end = chapter.end { #expect(abs(end - (Double(other["end_time"] as? String ?? "") ?? -1)) < 1e-6) }
            // (ffmpeg shows the last ChapterDisplay's string.)
            #expect((other["tags"] as? [String: String])?["title"] == chapter.titles.last?.text)
        }
        // A changed title keeps every ChapterUID and EditionUID (Tags may target them).
        var again = reread
        again.chapterTables[0].chapters[0].titles[0].text = "Uno"
        try await again.save()
        let third = try await MediaItem.loaded(file)
        #expect(third.chapters[0].title == "Uno")
        func ids(_ chapters: [Chapter]) -> [String?] { chapters.flatMap { [$0.id] + ids($0.chapters) } }
        #expect(ids(third.chapters) == ids(reread.chapters) && !ids(reread.chapters).contains(nil))
        #expect(third.chapterTables[0].id == reread.chapterTables[0].id)
        // Removed: no Chapters element is left, the tools see none.
        var cleared = try await MediaItem.loaded(file)
        cleared.chapterTables = []
        try await cleared.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 1024)
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).first(MatroskaID.chapters) == nil)
        #expect(try await MediaItem.loaded(file).chapterTables.isEmpty)
        #expect((try I.ffprobe(file)["chapters"] as? [[String: Any]] ?? []).isEmpty)
        #expect(!(try I.extractedChapters(file)).contains("<ChapterAtom>"))
    }

    @Test(arguments: ["ffmpeg.mkv", "mkvmerge.mka", "live.mka"])
    func coverArtIsWrittenAsAnAttachmentAndOtherAttachmentsStay(_ name: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make(name, in: directory)
        // A font beside mkvmerge's cover: it must stay byte for byte.
        var generator = SplitMix64(state: 0x6D6B76)
        let font = Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        if name == "mkvmerge.mka" {
            let fontURL = directory.appendingPathComponent("font.ttf"), with = directory.appendingPathComponent("with.mka")
            try font.write(to: fontURL)
            try TestSupport.runChecked(
                "mkvmerge", ["-q", "-o", with.path, "--attachment-mime-type", "font/ttf", "--attach-file", fontURL.path, file.path])
            try FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: with, to: file)
        }
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        let jpeg = directory.appendingPathComponent("new.jpg")
        try I.picture(jpeg)
        let picture = try Data(contentsOf: jpeg)
        var item = try await MediaItem.loaded(file)
        item.metadata.artwork = [Artwork(data: picture, mimeType: "image/jpeg")]
        try await item.save()
        // The Attachments element may move to the end, with the font.
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: Int64(picture.count + font.count) + 1024)
        let reread = try await MediaItem.loaded(file)
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        #expect(try await reread.metadata.artwork.asyncMap { try await $0.data() } == [picture])
        var listed = try I.attachments(file)
        let cover = try #require(listed.first { $0.name == "cover.jpg" })
        #expect(cover.type == "image/jpeg" && cover.size == picture.count)
        #expect(try I.extractedAttachment(file, id: cover.id, in: directory) == picture)
        #expect(!listed.contains { $0.name == "cover.png" }, "the old cover was replaced")
        if name == "mkvmerge.mka" {
            let fontEntry = try #require(listed.first { $0.name == "font.ttf" })
            #expect(try I.extractedAttachment(file, id: fontEntry.id, in: directory) == font)
            #expect(reread.metadata.items.contains { $0.key == "Attachment/font.ttf" })
        }
        // ffprobe lists the cover as an attached picture named cover.jpg.
        let streams = try #require(try I.ffprobe(file)["streams"] as? [[String: Any]])
        #expect(streams.contains { ($0["tags"] as? [String: String])?["filename"] == "cover.jpg" })
        // Removed: only the font is left.
        var cleared = reread
        cleared.metadata.artwork = []
        try await cleared.save()
        // The Attachments element may move to the end, with the font.
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: Int64(picture.count + font.count) + 1024)
        listed = try I.attachments(file)
        #expect(listed.map(\.name) == (name == "mkvmerge.mka" ? ["font.ttf"] : []))
        if let fontEntry = listed.first { #expect(try I.extractedAttachment(file, id: fontEntry.id, in: directory) == font) }
        #expect(try await MediaItem.loaded(file).metadata.artwork.isEmpty)
    }

    /// A smaller cover replacing ffmpeg's `cover.jpg` attachment is written
    /// where the old Attachments element was, the rest a Void: in place,
    /// the file the same size.
    @Test func aReplacedCoverThatFitsStaysWhereTheOldOneWas() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try I.make("ffmpeg.mkv", in: directory)
        let pictures = directory.appendingPathComponent("pictures"), file = directory.appendingPathComponent("attached.mkv")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let large = pictures.appendingPathComponent("cover.jpg"), small = directory.appendingPathComponent("small.png")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240", "-frames:v", "1", large.path])
        try I.picture(small)
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", plain.path, "-map", "0", "-c", "copy", "-attach", large.path, "-metadata:s:t",
                "mimetype=image/jpeg", file.path,
            ])
        let old = try #require(try MatroskaLayout(parsing: FileSource(url: file)).first(MatroskaID.attachments))
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        let picture = try Data(contentsOf: small)
        #expect(picture.count + 200 < (try Data(contentsOf: large)).count)
        var item = try await MediaItem.loaded(file)
        #expect(try await item.metadata.artwork.asyncMap { try await $0.data() } == [try Data(contentsOf: large)])
        item.metadata.artwork = [Artwork(data: picture, mimeType: "image/png")]
        try await item.save()
        #expect(item.lastSavePath == .inPlace)
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 0)
        let layout = try MatroskaLayout(parsing: FileSource(url: file))
        let new = try #require(layout.first(MatroskaID.attachments))
        #expect(new.offset == old.offset && layout.all(MatroskaID.attachments).count == 1)
        #expect(layout.elements.contains { $0.id == MatroskaID.void && $0.offset == new.end && $0.end == old.end })
        let listed = try I.attachments(file)
        #expect(listed.map(\.name) == ["cover.png"])
        #expect(try I.extractedAttachment(file, id: listed[0].id, in: directory) == picture)
    }

    @Test func aPNGGetsItsExtensionAndSeveralPicturesTheConventionsNames() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("ffmpeg.mkv", in: directory)
        let png = directory.appendingPathComponent("p.png"), jpeg = directory.appendingPathComponent("j.jpg")
        try I.picture(png)
        try I.picture(jpeg)
        var item = try await MediaItem.loaded(file)
        item.metadata.artwork = [
            Artwork(data: try Data(contentsOf: png), mimeType: "image/png"),
            Artwork(data: try Data(contentsOf: jpeg), mimeType: "image/jpeg"),
        ]
        try await item.save()
        #expect(Set(try I.attachments(file).map(\.name)) == ["cover.png", "small_cover.jpg"])
        #expect(try await MediaItem.loaded(file).metadata.artwork.map(\.mimeType).sorted() == ["image/jpeg", "image/png"])
    }
}
