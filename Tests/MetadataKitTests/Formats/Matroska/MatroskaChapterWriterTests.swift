import Foundation
import Testing

@testable import MetadataKit

private typealias B = MatroskaBuilder
private typealias ID = MatroskaID

/// Chapter and attachment saves of built Matroska files: the SeekHead entry,
/// tables copied byte for byte, CRC-32, UIDs, and the saves refused before
/// anything is written.
@Suite struct MatroskaChapterWriterTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// An EditionEntry with `uid` and atoms, the first holding a ChapProcess (0x6944) the model doesn't know.
    static func edition(uid: UInt64, titles: [String]) -> [UInt8] {
        var data = B.uint(ID.editionUID, uid)
        for (index, title) in titles.enumerated() {
            let display = B.element(ID.chapterDisplay, B.string(ID.chapString, title) + B.string(ID.chapLanguage, "eng"))
            let process = index == 0 ? B.element(0x6944, B.uint(0x6955, 0)) : []
            data += B.element(
                ID.chapterAtom,
                B.uint(ID.chapterUID, uid * 100 + UInt64(index) + 1) + B.uint(ID.chapterTimeStart, UInt64(index) * 500_000_000) + display
                    + process)
        }
        return B.element(ID.editionEntry, data)
    }

    func file(chapters: [UInt8]?, name: String = "c.mkv") throws -> URL {
        let children = [B.info(title: "T"), B.tracks()] + (chapters.map { [$0] } ?? []) + [B.cluster()]
        return try B.write(B.file(children), name, in: directory)
    }

    @Test func chaptersAddedToAFileWithASeekHeadGetAnEntryAndReadBack() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try B.write(B.typical(), "a.mkv", in: directory)
        var item = try await MediaItem.loaded(url)
        item.chapters = [Chapter(start: 0, end: 1, titles: [.init("A", language: "fra")]), Chapter(start: 1, titles: [.init("B")])]
        try await item.save()
        let layout = try MatroskaLayout(parsing: FileSource(url: url))
        let chapters = try #require(layout.first(ID.chapters))
        #expect(layout.seekHeads[0].entries.contains { $0.id == ID.chapters && $0.position == chapters.offset - layout.segmentData })
        #expect(!layout.scannedClusters && layout.warnings.isEmpty)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapters.map(\.title) == ["A", "B"] && reread.chapters.map(\.language) == ["fra", "und"])
        #expect(reread.chapters[0].end == 1 && reread.chapters[1].end == nil)
        #expect(reread.chapterTables.count == 1 && reread.chapterTables[0].isDefault)
    }

    @Test func anUnchangedTableIsCopiedByteForByteAndACRC32IsRecomputed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = Self.edition(uid: 7, titles: ["a", "b"]), second = Self.edition(uid: 8, titles: ["c"])
        let url = try file(chapters: B.element(ID.chapters, EBMLCRC32.prefixed(first + second)))
        var item = try await MediaItem.loaded(url)
        #expect(item.chapterTables.count == 2)
        item.chapterTables[1].chapters[0].titles = [.init("changed, and longer than before")]
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.firstRange(of: first) != nil, "the unchanged EditionEntry (with its ChapProcess) is copied")
        let source = try FileSource(url: url)
        let layout = try MatroskaLayout(parsing: source)
        let element = try #require(layout.first(ID.chapters))
        let data = try source.getBytes(at: element.dataOffset, count: Int(element.dataSize!))
        #expect(Array(data.prefix(6)) == Array(EBMLCRC32.prefixed(Array(data.dropFirst(6))).prefix(6)), "CRC-32 recomputed")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapterTables[1].chapters[0].title == "changed, and longer than before")
        #expect(reread.chapterTables[1].id == "8" && reread.chapterTables[1].chapters[0].id == "801", "UIDs kept")
        #expect(reread.chapterTables[0] == item.chapterTables[0])
    }

    @Test func newUIDsAreUniqueNonZeroAndTheSameForTheSameChapters() throws {
        let tables = [
            ChapterTable(id: "5", chapters: [Chapter(id: "5", start: 0), Chapter(id: "0", start: 1), Chapter(id: "x", start: 2)])
        ]
        var first = MatroskaChapterWriter.UIDs(seed: tables), second = MatroskaChapterWriter.UIDs(seed: tables)
        let a = ["5", "5", "0", "x", nil].map { first.take($0) }, b = ["5", "5", "0", "x", nil].map { second.take($0) }
        #expect(a == b && a[0] == 5 && Set(a).count == a.count && !a.contains(0))
    }

    @Test func impossibleChaptersAndAttachmentsAreRefusedBeforeAnythingIsWritten() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try file(chapters: B.element(ID.chapters, Self.edition(uid: 1, titles: ["a"])))
        let original = try Data(contentsOf: url)
        var deep = Chapter(start: 0)
        for _ in 0..<40 { deep = Chapter(start: 0, chapters: [deep]) }
        let png = try Data(
            contentsOf: try B.write(
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40), "p.png", in: directory))
        let gif = Data(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 40))
        let cases: [(String, (inout MediaItem) -> Void)] = [
            ("negative start", { $0.chapters = [Chapter(start: -1)] }),
            ("infinite end", { $0.chapters = [Chapter(start: 0, end: .infinity)] }),
            ("too deep", { $0.chapters = [deep] }),
            ("a GIF cover", { $0.metadata.artwork = [Artwork(data: gif, mimeType: "image/gif")] }),
            ("five covers", { $0.metadata.artwork = (0..<5).map { Artwork(data: png + Data([UInt8($0)]), mimeType: "image/png") } }),
            (
                "a changed non-picture attachment",
                {
                    $0.metadata.items.append(
                        MetadataItem(keySpace: .matroska, key: "Attachment/font.ttf", value: .string("font/ttf"), dataType: .binary))
                }
            ),
        ]
        for (name, change) in cases {
            var item = try await MediaItem.loaded(url)
            change(&item)
            await #expect(throws: MediaError.self, "\(name) must be refused") { try await item.save() }
            #expect(try Data(contentsOf: url) == original, "\(name) changed the file")
        }
    }

    @Test func aCoverIsAddedToAFileWithoutAttachmentsAndRemovedAgain() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try B.write(B.typical(), "a.mkv", in: directory)
        var generator = SplitMix64(state: 0xC0FE)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0xFF, 0xD9])
        var item = try await MediaItem.loaded(url)
        item.metadata.artwork = [Artwork(data: jpeg, mimeType: "image/jpeg", description: "front")]
        try await item.save()
        let layout = try MatroskaLayout(parsing: FileSource(url: url))
        let element = try #require(layout.first(ID.attachments))
        #expect(layout.seekHeads[0].entries.contains { $0.id == ID.attachments && $0.position == element.offset - layout.segmentData })
        var reread = try await MediaItem.loaded(url)
        let cover = try #require(reread.metadata.artwork.first)
        #expect(try await cover.data() == jpeg && cover.description == "front")
        #expect(reread.metadata.items.contains { $0.key == "Attachment/cover.jpg" })
        reread.metadata.artwork = []
        try await reread.save()
        #expect(try MatroskaLayout(parsing: FileSource(url: url)).first(ID.attachments) == nil)
        #expect(try await MediaItem.loaded(url).metadata.artwork.isEmpty)
    }

    @Test func damagedOrRepeatedElementsRefuseTheirSaveBeforeAnythingIsWritten() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // An Attachments element whose AttachedFile claims more than its parent holds.
        let file = B.element(ID.attachedFile, B.string(ID.fileName, "font.ttf") + B.element(ID.fileData, [1, 2, 3]))
        let damaged = B.element(ID.attachments, file + EBML.idBytes(ID.attachedFile) + [0x90])
        let two = B.element(ID.chapters, Self.edition(uid: 1, titles: ["a"]))
        let urls = [
            try B.write(B.file([B.info(title: "T"), B.tracks(), damaged, B.cluster()]), "damaged.mkv", in: directory),
            try B.write(B.file([B.info(title: "T"), B.tracks(), two, two, B.cluster()]), "two.mkv", in: directory),
        ]
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 9, count: 60) + [0xFF, 0xD9])
        for url in urls {
            let before = try Data(contentsOf: url)
            var item = try await MediaItem.loaded(url)
            if url.lastPathComponent == "damaged.mkv" {
                item.metadata.artwork = [Artwork(data: jpeg, mimeType: "image/jpeg")]
            } else {
                item.chapters = [Chapter(start: 0, titles: [.init("b")])]
            }
            let error = await #expect(throws: MediaError.self, "\(url.lastPathComponent)") { try await item.save() }
            #expect(error?.code == .unsupportedFeature)
            #expect(try Data(contentsOf: url) == before)
        }
    }
}
