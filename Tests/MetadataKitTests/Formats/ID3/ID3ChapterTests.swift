import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// ID3v2 chapters (`CHAP`/`CTOC`, ID3v2 Chapter Frame Addendum 1.0): read
/// from frames built here, hostile and cut frames, writes and what they keep.
@Suite struct ID3ChapterTests {
    // MARK: Builders

    static func text(_ id: String, _ value: String, version: UInt8, encoding: UInt8 = 0) -> [UInt8] {
        B.frame(id, B.text([value], encoding: encoding), version: version)
    }

    /// A `CHAP` frame: element ID, times, unused offsets, embedded frames.
    static func chap(_ id: String, _ start: UInt32, _ end: UInt32, _ sub: [[UInt8]] = [], version: UInt8) -> [UInt8] {
        let payload = Array(id.utf8) + [0] + B.be32(start) + B.be32(end) + B.be32(0xFFFF_FFFF) + B.be32(0xFFFF_FFFF)
        return B.frame("CHAP", payload + sub.joined(), version: version)
    }

    /// A `CTOC` frame; `count` overrides the entry count.
    static func ctoc(
        _ id: String, topLevel: Bool, ordered: Bool = true, _ children: [String], count: Int? = nil, _ sub: [[UInt8]] = [],
        version: UInt8
    ) -> [UInt8] {
        var payload = Array(id.utf8) + [0, (topLevel ? 2 : 0) | (ordered ? 1 : 0), UInt8(count ?? children.count)]
        for child in children { payload += Array(child.utf8) + [0] }
        return B.frame("CTOC", payload + sub.joined(), version: version)
    }

    /// A picture big enough that v2.3 and v2.4 frame sizes differ (over 127 bytes).
    static let picture = B.tinyPNG + [UInt8](repeating: 0, count: 150)

    static func file(_ frames: [[UInt8]], version: UInt8) -> [UInt8] {
        var tag = B(version: version)
        tag.frames = frames
        tag.padding = 64
        return tag.bytes() + B.mpegFrames(20)
    }

    /// The tag of the reading tests: a top-level CTOC listing a chapter and a
    /// nested CTOC, sub-frames of every kind, and a chapter no CTOC lists.
    static func nestedFrames(version: UInt8) -> [[UInt8]] {
        let apic = B.frame("APIC", B.picture(picture, mime: "image/png", type: 3, description: "c"), version: version)
        let wxxx = B.frame("WXXX", [0, 0] + Array("https://example.org/1".utf8), version: version)
        return [
            text("TIT2", "Book", version: version),
            ctoc("toc", topLevel: true, ["intro", "part"], [text("TIT2", "Contents", version: version)], version: version),
            ctoc("part", topLevel: false, ["c1", "c2"], [text("TIT2", "Part One", version: version)], version: version),
            chap(
                "intro", 0, 1500, [text("TIT2", "Intro", version: version), text("TIT3", "Opening words", version: version), wxxx, apic],
                version: version),
            chap("c1", 1500, 3000, [text("TIT2", "Kapitel Ü", version: version, encoding: 1)], version: version),
            chap("c2", 3000, 4500, [text("TIT2", "Two", version: version)], version: version),
            chap("extra", 200, 400, [text("TIT2", "Loose", version: version)], version: version),
        ]
    }

    // MARK: Reading

    @Test(arguments: [UInt8(3), 4])
    func readsNestedTablesWithEmbeddedFrames(version: UInt8) async throws {
        let parsed = try B.parse(Self.file(Self.nestedFrames(version: version), version: version))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        #expect(parsed.chapterTables.count == 2)
        let toc = try #require(parsed.chapterTables.first)
        #expect(toc.id == "toc" && toc.title == "Contents" && toc.isDefault && toc.isOrdered)
        #expect(toc.chapters.map(\.id) == ["intro", "part"])
        let intro = toc.chapters[0]
        #expect(intro.start == 0 && intro.end == 1.5)
        #expect(intro.titles.map(\.text) == ["Intro", "Opening words"])
        #expect(intro.url == "https://example.org/1")
        #expect(try await intro.artwork?.data() == Data(Self.picture))
        #expect(intro.artwork?.mimeType == "image/png" && intro.artwork?.description == "c")
        let part = toc.chapters[1]
        #expect(part.title == "Part One" && part.start == 1.5 && part.end == 4.5)
        #expect(part.chapters.map(\.title) == ["Kapitel Ü", "Two"])
        #expect(part.chapters.map(\.start) == [1.5, 3.0])
        let loose = parsed.chapterTables[1]
        #expect(!loose.isDefault && loose.id == nil && loose.chapters.map(\.title) == ["Loose"])
        // The raw frames stay items as they were.
        #expect(parsed.items.filter { $0.key == "CHAP" }.count == 4)
        #expect(parsed.items.filter { $0.key == "CTOC" }.count == 2)
    }

    @Test func withoutCTOCTheChaptersAreOneDefaultTableSortedByStart() throws {
        let frames = [
            Self.chap("b", 5000, 9000, [Self.text("TIT2", "Second", version: 4)], version: 4),
            Self.chap("a", 0, 5000, [Self.text("TIT2", "First", version: 4)], version: 4),
        ]
        let parsed = try B.parse(Self.file(frames, version: 4))
        #expect(parsed.chapterTables.count == 1)
        #expect(parsed.chapterTables[0].isDefault)
        #expect(parsed.chapterTables[0].chapters.map(\.title) == ["First", "Second"])
        #expect(parsed.chapterTables[0].chapters.map(\.end) == [5, 9])
        let plain = try B.parse(Self.file([Self.text("TIT2", "x", version: 4)], version: 4))
        #expect(plain.chapterTables.isEmpty)
    }

    /// Sub-frames sized by the other version's rule (writers that got it
    /// wrong) are still read.
    @Test func embeddedFramesSizedByTheOtherRuleAreRead() async throws {
        let apic = B.frame("APIC", B.picture(Self.picture, mime: "image/png", type: 3), version: 3) // plain size
        let parsed = try B.parse(Self.file([Self.chap("a", 0, 10, [Self.text("TIT2", "T", version: 3), apic], version: 4)], version: 4))
        #expect(parsed.chapterTables.first?.chapters.first?.title == "T")
        #expect(try await parsed.chapterTables.first?.chapters.first?.artwork?.data() == Data(Self.picture))
    }

    // MARK: Hostile

    @Test func loopsRepeatsAndLiesAreReadAround() throws {
        let v: UInt8 = 4
        let frames = [
            Self.ctoc("self", topLevel: true, ["self", "a", "other"], version: v),
            Self.ctoc("other", topLevel: false, ["self", "other", "a", "missing"], version: v),
            Self.ctoc("many", topLevel: false, ["a"], count: 255, version: v), // lists 255, holds 1
            Self.chap("a", 0, 1000, [Self.text("TIT2", "A", version: v)], version: v),
            Self.chap("a", 0, 1000, [Self.text("TIT2", "A again", version: v)], version: v), // repeated ID
            Array(Self.chap("short", 0, 1000, version: v).prefix(10 + 8)), // cut inside its times
            // An embedded frame whose size runs past the CHAP frame.
            B.frame(
                "CHAP",
                Array("b".utf8) + [0] + B.be32(1000) + B.be32(2000) + B.be32(0) + B.be32(0) + Array("TIT2".utf8) + [
                    0x7F, 0x7F, 0x7F, 0x7F, 0, 0,
                ]
                    + [0, 65],
                version: v),
        ].map { frame -> [UInt8] in
            // Fix the size of the cut CHAP frame so the tag walks on.
            guard frame.count == 18 else { return frame }
            return Array("CHAP".utf8) + B.syncsafe(8) + [0, 0] + frame[10...]
        }
        let parsed = try B.parse(Self.file(frames, version: v))
        let tables = parsed.chapterTables
        let main = try #require(tables.first)
        #expect(main.id == "self" && main.isDefault)
        // "self" is not followed into itself; "other" is nested once, without itself or "self".
        #expect(main.chapters.map(\.id) == ["a", "other"])
        #expect(main.chapters[1].chapters.map(\.id) == ["a"])
        #expect(main.chapters[0].title == "A")
        #expect(tables.contains { $0.id == "many" && $0.chapters.map(\.id) == ["a"] })
        #expect(tables.last?.chapters.map(\.id) == ["b"]) // the loose chapter, its broken sub-frame skipped
        #expect(tables.last?.chapters.first?.title == nil)
        let messages = parsed.warnings.map(\.message)
        #expect(messages.contains { $0.contains("second chapter frame with element ID 'a'") })
        #expect(messages.contains { $0.contains("lists 255 entries") })
        #expect(messages.contains { $0.contains("'missing'") })
        #expect(messages.contains { $0.contains("too short") })
        #expect(parsed.warnings.filter { $0.message.contains("embedded frames") }.allSatisfy { $0.offset != nil })
    }

    /// Every prefix of a file with chapters reads (or fails with an error)
    /// without crashing; random damage to the chapter frames likewise.
    @Test func everyPrefixAndRandomDamage() throws {
        let whole = Self.file(Self.nestedFrames(version: 4), version: 4)
        let tagEnd = whole.count - 20 * 417
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("cut.mp3")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        for length in stride(from: 0, through: tagEnd + 10, by: 1) {
            try Data(whole.prefix(length)).write(to: url)
            _ = try? MP3Parser.parse(try FileSource(url: url), url)
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        for _ in 0..<400 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 10..<tagEnd, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            try Data(bytes).write(to: url)
            let parsed = try? MP3Parser.parse(try FileSource(url: url), url)
            let count = parsed?.chapterTables.reduce(0) { $0 + $1.chapters.count } ?? 0
            #expect(count < 100, "seed \(seed)")
        }
    }

    // MARK: Writing

    static func makeFile(_ frames: [[UInt8]], version: UInt8) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("book.mp3")
        try Data(file(frames, version: version)).write(to: url)
        return url
    }

    static func remove(_ url: URL) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    static let fast = SaveOptions(durability: .noSync)

    static let written: [Chapter] = [
        Chapter(start: 0, end: 2.5, titles: [.init("Opening")], url: "https://example.org/a"),
        Chapter(
            id: "mine", start: 2.5, titles: [.init("Kapitel Ü 章"), .init("Beschreibung")],
            artwork: Artwork(data: Data(picture), mimeType: "image/png", pictureType: .other, description: "Ü")),
        Chapter(start: 7.25, end: 9.001, titles: [.init("Last")]),
    ]

    @Test(arguments: [UInt8(3), 4])
    func writtenChaptersReadBack(version: UInt8) async throws {
        let url = try Self.makeFile([Self.text("TIT2", "Book", version: version)], version: version)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.chapters = Self.written
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(try [UInt8](Data(contentsOf: url))[3] == version)
        let table = try #require(reread.chapterTables.first)
        #expect(reread.chapterTables.count == 1 && table.isDefault && table.isOrdered && table.id == "toc")
        #expect(table.chapters.map(\.id) == ["chp0", "mine", "chp1"])
        #expect(table.chapters.map(\.start) == [0, 2.5, 7.25])
        #expect(table.chapters.map(\.end) == [2.5, 7.25, 9.001]) // the middle one ends where the next starts
        #expect(table.chapters.map(\.titles) == Self.written.map(\.titles))
        #expect(table.chapters[0].url == "https://example.org/a")
        let artwork = try #require(table.chapters[1].artwork)
        #expect(try await artwork.data() == Data(Self.picture) && artwork.description == "Ü" && artwork.pictureType == .other)
        #expect(reread.metadata.title == "Book")
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")

        // Removing them removes every CHAP and CTOC frame.
        var again = reread
        again.chapterTables = []
        try await again.save(options: Self.fast)
        let bare = try await MediaItem.loaded(url)
        #expect(bare.chapterTables.isEmpty && bare.item("CHAP") == nil && bare.item("CTOC") == nil)
    }

    /// A last chapter without an end ends at the file's `TLEN`, else where it starts.
    @Test(arguments: [true, false])
    func lastChapterEndsAtTheLength(withLength: Bool) async throws {
        var frames = [Self.text("TIT2", "Book", version: 4)]
        if withLength { frames.append(Self.text("TLEN", "5250", version: 4)) }
        let url = try Self.makeFile(frames, version: 4)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.chapters = [Chapter(start: 0, titles: [.init("A")]), Chapter(start: 1.5, titles: [.init("B")])]
        try await item.save(options: Self.fast)
        let chapters = try await MediaItem.loaded(url).chapters
        #expect(chapters.map(\.end) == [1.5, withLength ? 5.25 : 1.5])
    }

    @Test func nestedChaptersAndSeveralTablesRoundTrip() async throws {
        let url = try Self.makeFile([Self.text("TIT2", "Book", version: 4)], version: 4)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let part = Chapter(
            id: "part", start: 1, end: 3, titles: [.init("Part")],
            chapters: [Chapter(start: 1, end: 2, titles: [.init("A")]), Chapter(start: 2, end: 3, titles: [.init("B")])])
        item.chapterTables = [
            ChapterTable(id: "main", title: "Main", isDefault: true, chapters: [Chapter(start: 0, end: 1, titles: [.init("Zero")]), part]),
            ChapterTable(title: "Other", chapters: [Chapter(start: 0, end: 3, titles: [.init("All")])]),
        ]
        try await item.save(options: Self.fast)
        let tables = try await MediaItem.loaded(url).chapterTables
        #expect(tables.map(\.id) == ["main", "toc"])
        #expect(tables.map(\.title) == ["Main", "Other"])
        #expect(tables.map(\.isDefault) == [true, false])
        #expect(tables[0].chapters.map(\.title) == ["Zero", "Part"])
        #expect(tables[0].chapters[1].chapters.map(\.title) == ["A", "B"])
        #expect(tables[0].chapters[1].id == "part")
        #expect(tables[1].chapters.map(\.title) == ["All"])
    }

    @Test(arguments: [UInt8(3), 4])
    func untouchedChaptersKeepTheirBytes(version: UInt8) async throws {
        let frames = Self.nestedFrames(version: version)
        let url = try Self.makeFile(frames, version: version)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let tables = item.chapterTables
        item.metadata.title = "Another title"
        try await item.save(options: Self.fast)
        let bytes = try [UInt8](Data(contentsOf: url))
        for frame in frames.dropFirst() {
            #expect(ID3WriterTests.contains(bytes, frame), "frame \(String(decoding: frame.prefix(4), as: UTF8.self)) changed")
        }
        let reread = try await MediaItem.loaded(url)
        #expect(reread.chapterTables == tables && reread.metadata.title == "Another title")
    }

    @Test func versionConversionRewritesEmbeddedFrameSizes() async throws {
        let url = try Self.makeFile(Self.nestedFrames(version: 4), version: 4)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        let tables = item.chapterTables
        try await item.save(options: SaveOptions(id3v2Version: .v2_3, durability: .noSync))
        let reread = try await MediaItem.loaded(url)
        #expect(try [UInt8](Data(contentsOf: url))[3] == 3)
        #expect(reread.chapterTables == tables)
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        // The embedded frames' sizes follow v2.3's rule (plain), not v2.4's.
        var warnings: [MediaWarning] = []
        let payloads = reread.metadata.items.filter { $0.key == "CHAP" }.compactMap { item -> [UInt8]? in
            guard case .data(let data) = item.value else { return nil }
            return [UInt8](data)
        }
        #expect(payloads.count == 4)
        for payload in payloads {
            let frame = try #require(ID3ChapterFrame(parsing: payload, version: 3, offset: 0, warnings: &warnings))
            #expect(ID3EmbeddedFrame.walk(payload, from: frame.subFramesStart, rule: .plain).stop == nil)
        }
        #expect(payloads.contains { ID3EmbeddedFrame.walk($0, from: $0.firstIndex(of: 0)! + 17, rule: .syncsafe).stop != nil })
    }

    @Test func tablesBeyondWhatCTOCHoldsAreRefused() async throws {
        let url = try Self.makeFile([Self.text("TIT2", "Book", version: 4)], version: 4)
        defer { Self.remove(url) }
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.chapters = (0..<256).map { Chapter(start: Double($0), end: Double($0) + 1, titles: [.init("\($0)")]) }
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
        item.chapters = [Chapter(start: -1, titles: [.init("x")])]
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
        #expect(try Data(contentsOf: url) == before)
    }

    // MARK: DSD

    @Test(arguments: ["book.dsf", "book.dff"])
    func chaptersInTheID3TagOfDSFAndDSDIFF(name: String) async throws {
        let url = try DSDBuilder.file(name.hasSuffix("dsf") ? DSDBuilder.dsf() : DSDBuilder.dff(), name: name)
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        let chapters = [
            Chapter(id: "a", start: 0, end: 0.01, titles: [.init("A")]), Chapter(id: "b", start: 0.01, end: 0.02, titles: [.init("B")]),
        ]
        item.chapters = chapters
        try await item.save(options: Self.fast)
        #expect(try await MediaItem.loaded(url).chapters == chapters)
    }

    // MARK: POPM

    @Test(arguments: [UInt8(3), 4])
    func changedRatingKeepsEmailAndPlayCounter(version: UInt8) async throws {
        let popm = B.frame("POPM", Array("no@email".utf8) + [0, 128, 0, 0, 1, 42], version: version)
        let url = try Self.makeFile([Self.text("TIT2", "Song", version: version), popm], version: version)
        defer { Self.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.rating == 50)
        item.metadata.rating = 20
        try await item.save(options: Self.fast)
        let bytes = try [UInt8](Data(contentsOf: url))
        let expected = B.frame("POPM", Array("no@email".utf8) + [0, 51, 0, 0, 1, 42], version: version)
        #expect(ID3WriterTests.contains(bytes, expected))
        #expect(try await MediaItem.loaded(url).metadata.rating == 20)
    }
}
