import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// MP4 chapters from hand-built files: the Nero `chpl` list (both versions),
/// the QuickTime chapter track, which one wins, and damaged or hostile
/// lists and tracks (read around, never trusted for sizes).
@Suite struct MP4ChapterTests {
    /// A `chpl` box: version 1 has four reserved bytes before the count.
    static func chpl(version: UInt8 = 1, count: Int? = nil, _ entries: [(UInt64, String)]) -> [UInt8] {
        var payload = version == 1 ? B.u32(0) : []
        payload.append(UInt8(count ?? entries.count))
        for (start, title) in entries {
            payload += B.u64(start) + [UInt8(title.utf8.count)] + Array(title.utf8)
        }
        return B.fullBox("chpl", version: version, payload)
    }

    /// A `tkhd` with `id`.
    static func tkhd(_ id: Int) -> [UInt8] {
        B.fullBox("tkhd", flags: 3, B.u32(0) + B.u32(0) + B.u32(id) + [UInt8](repeating: 0, count: 68))
    }

    /// A sound track with `id` naming `chapters` in `tref/chap`.
    static func soundTrack(id: Int, chapters: Int?) -> [UInt8] {
        let entry = B.audioEntry("mp4a", children: [B.esds(averageBitrate: 128_000)])
        let stbl = B.box("stbl", children: [B.stsd([entry]), B.fullBox("stsz", B.u32(0) + B.u32(0))])
        var children = [tkhd(id)]
        if let chapters { children.append(B.box("tref", children: [B.box("chap", B.u32(chapters))])) }
        children.append(
            B.box(
                "mdia",
                children: [B.mdhd(timescale: 44100, duration: 441_000), B.hdlr("soun"), B.box("minf", children: [stbl])]))
        return B.box("trak", children: children)
    }

    /// A text chapter track: samples at `dataOffset`, each a 16-bit length
    /// and its title; `durations` in a timescale of 600.
    static func textTrack(
        id: Int, dataOffset: Int, samples: [[UInt8]], durations: [Int], sampleCount: Int? = nil, entry: FourCC = "text"
    ) -> [UInt8] {
        let stts = B.fullBox("stts", B.u32(durations.count) + durations.flatMap { B.u32(1) + B.u32($0) })
        let stsz = B.fullBox("stsz", B.u32(0) + B.u32(sampleCount ?? samples.count) + samples.flatMap { B.u32($0.count) })
        let stsc = B.fullBox("stsc", B.u32(1) + B.u32(1) + B.u32(sampleCount ?? samples.count) + B.u32(1))
        let stco = B.fullBox("stco", B.u32(1) + B.u32(dataOffset))
        let description = B.box(entry, [UInt8](repeating: 0, count: 6) + B.u16(1) + [UInt8](repeating: 0, count: 44))
        let stbl = B.box("stbl", children: [B.stsd([description]), stts, stsc, stsz, stco])
        let total = durations.reduce(0, +)
        return B.box(
            "trak",
            children: [
                tkhd(id),
                B.box(
                    "mdia",
                    children: [B.mdhd(timescale: 600, duration: UInt64(total)), B.hdlr("text"), B.box("minf", children: [stbl])]),
            ])
    }

    static func sample(_ title: String) -> [UInt8] {
        B.u16(title.utf8.count) + Array(title.utf8) + MP4ChapterTrack.encodingAtom
    }

    /// ftyp, mdat holding `samples`, then moov with a sound track, the text
    /// chapter track and `udta` (holding `chpl` when given).
    static func file(samples: [[UInt8]], durations: [Int], chpl: [UInt8]?, sampleCount: Int? = nil, dataShift: Int = 0) -> [UInt8] {
        let head = B.ftyp()
        let mdat = B.box("mdat", samples.flatMap { $0 })
        let text = textTrack(
            id: 2, dataOffset: head.count + 8 + dataShift, samples: samples, durations: durations, sampleCount: sampleCount)
        let udta = B.box("udta", children: chpl.map { [$0] } ?? [])
        let moov = B.box(
            "moov", children: [B.mvhd(timescale: 1000, duration: 10_000), soundTrack(id: 1, chapters: 2), text, udta])
        return head + mdat + moov
    }

    static func chapters(_ bytes: [UInt8]) throws -> (chapters: [Chapter], warnings: [MediaWarning]) {
        let (parsed, url) = try B.parse(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        return (parsed.chapterTables.first?.chapters ?? [], parsed.warnings)
    }

    @Test(arguments: [UInt8(0), 1])
    func neroListReadsBothVersions(version: UInt8) throws {
        let list = Self.chpl(version: version, [(0, "Intro"), (25_000_000, "Zwei Ü"), (70_000_000, "End")])
        let bytes = B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [list])])
        let (chapters, warnings) = try Self.chapters(bytes)
        #expect(chapters.map(\.start) == [0, 2.5, 7])
        #expect(chapters.map(\.end) == [2.5, 7, 10])
        #expect(chapters.map(\.title) == ["Intro", "Zwei Ü", "End"])
        #expect(warnings.isEmpty)
    }

    @Test func neroListCutShortKeepsWhatFits() throws {
        let list = Self.chpl(count: 255, [(0, "One"), (10_000_000, "Two")])
        let (chapters, warnings) = try Self.chapters(B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [list])]))
        #expect(chapters.map(\.title) == ["One", "Two"])
        #expect(warnings.contains { $0.code == .truncated })
    }

    @Test func chapterTrackReadsTimesFromItsTimescale() throws {
        let samples = ["Eins", "Zwei", "Drei"].map(Self.sample)
        let (chapters, warnings) = try Self.chapters(Self.file(samples: samples, durations: [600, 1500, 300], chpl: nil))
        #expect(chapters.map(\.start) == [0, 1, 3.5])
        #expect(chapters.map(\.end) == [1, 3.5, 4])
        #expect(chapters.map(\.title) == ["Eins", "Zwei", "Drei"])
        #expect(warnings.isEmpty)
    }

    @Test func chapterTrackWinsOverTheNeroList() throws {
        let samples = ["Track one", "Track two"].map(Self.sample)
        let list = Self.chpl([(0, "List one"), (10_000_000, "List two")])
        let (chapters, _) = try Self.chapters(Self.file(samples: samples, durations: [600, 600], chpl: list))
        #expect(chapters.map(\.title) == ["Track one", "Track two"])
    }

    @Test func utf16TitlesWithAByteOrderMark() throws {
        let title: [UInt8] = [0xFE, 0xFF, 0, 0x41, 0, 0xDC]
        let (chapters, _) = try Self.chapters(Self.file(samples: [B.u16(title.count) + title], durations: [600], chpl: nil))
        #expect(chapters.map(\.title) == ["AÜ"])
    }

    /// A sample whose length runs past it, and samples past the end of the
    /// file: the list ends there, with a warning; the Nero list is the fallback
    /// when nothing is left.
    @Test func hostileChapterTracks() throws {
        var long = Self.sample("Fine")
        long += B.u16(60_000) + Array("x".utf8)
        let (chapters, warnings) = try Self.chapters(
            Self.file(samples: [Self.sample("Fine"), Array(long.suffix(3))], durations: [600, 600], chpl: nil))
        #expect(chapters.map(\.title) == ["Fine"])
        #expect(warnings.contains { $0.code == .malformed })

        let list = Self.chpl([(0, "From list")])
        let away = Self.file(samples: [Self.sample("Gone")], durations: [600], chpl: list, dataShift: 1 << 30)
        let (fallback, farWarnings) = try Self.chapters(away)
        #expect(fallback.map(\.title) == ["From list"])
        #expect(!farWarnings.isEmpty)

        // A sample table claiming a billion samples: refused by its box size, not allocated.
        let huge = Self.file(samples: [Self.sample("A")], durations: [600], chpl: list, sampleCount: 1_000_000_000)
        let (read, _) = try Self.chapters(huge)
        #expect(read.count <= 1)
    }

    /// Every prefix of a file with both lists: read or refused, never a crash
    /// or a non-MediaError.
    @Test func everyPrefix() throws {
        let samples = ["Eins", "Zwei"].map(Self.sample)
        let file = Self.file(samples: samples, durations: [600, 600], chpl: Self.chpl([(0, "A"), (10_000_000, "B")]))
        let url = try B.write([])
        defer { try? FileManager.default.removeItem(at: url) }
        for length in 0..<file.count {
            try Data(file[0..<length]).write(to: url)
            do {
                _ = try MP4Parser.parse(FileSource(url: url), url)
            } catch is MediaError {
            } catch {
                Issue.record("prefix of \(length) bytes: \(error)")
            }
        }
    }

    /// Random byte changes in the chapter boxes (seeded): every result reads
    /// or fails with a MediaError.
    @Test func randomDamage() throws {
        let samples = ["Eins", "Zwei", "Drei"].map(Self.sample)
        let file = Self.file(samples: samples, durations: [600, 600, 600], chpl: Self.chpl([(0, "A"), (10_000_000, "B")]))
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let url = try B.write([])
        defer { try? FileManager.default.removeItem(at: url) }
        for round in 0..<400 {
            var bytes = file
            for _ in 0..<3 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            try Data(bytes).write(to: url)
            do {
                _ = try MP4Parser.parse(FileSource(url: url), url)
            } catch is MediaError {
            } catch {
                Issue.record("seed \(seed) round \(round): \(error)")
            }
        }
    }

    /// Chapters set on a hand-built file are written as `chpl` and a track,
    /// read back, replaced, and removed with the track and its reference.
    @Test func setReplaceRemoveRoundTrip() async throws {
        let head = B.ftyp()
        let mdat = B.box("mdat", [UInt8](repeating: 0x5A, count: 64))
        let bytes =
            head + mdat + B.box("moov", children: [B.mvhd(timescale: 1000, duration: 10_000), Self.soundTrack(id: 1, chapters: nil)])
        let url = try B.write(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        #expect(item.chapters.isEmpty)
        item.chapters = [
            Chapter(start: 0, end: 2, titles: [.init("Anfang")]), Chapter(start: 2, end: 6.5, titles: [.init("Mitte ✓")]),
            Chapter(start: 6.5, end: 10, titles: [.init(String(repeating: "l", count: 300))]),
        ]
        try await item.save()
        var reread = MediaItem(url: url)
        try await reread.load()
        #expect(reread.chapters.map(\.start) == [0, 2, 6.5])
        #expect(reread.chapters.map(\.end) == [2, 6.5, 10])
        #expect(reread.chapters.map(\.title) == ["Anfang", "Mitte ✓", String(repeating: "l", count: 300)])
        let source = try FileSource(url: url)
        let movie = try MP4Movie(source)
        let list = try MP4ChapterList(parsing: #require(movie.moov.child("udta")?.child("chpl")).header, in: source)
        #expect(list.entries.map(\.title) == ["Anfang", "Mitte ✓", String(repeating: "l", count: 255)])
        #expect(MP4ChapterTrack.referencedIDs(in: movie.moov, source: source) == [2])
        #expect(try Data(contentsOf: url)[head.count..<(head.count + mdat.count)] == Data(mdat))

        reread.chapters = [Chapter(start: 0, titles: [.init("Only")])]
        try await reread.save()
        var third = MediaItem(url: url)
        try await third.load()
        #expect(third.chapters.map(\.title) == ["Only"])
        let movie3 = try MP4Movie(FileSource(url: url))
        #expect(movie3.moov.children("trak").count == 2)

        third.chapters = []
        try await third.save()
        var fourth = MediaItem(url: url)
        try await fourth.load()
        #expect(fourth.chapters.isEmpty)
        let movie4 = try MP4Movie(FileSource(url: url))
        #expect(movie4.moov.children("trak").count == 1)
        #expect(movie4.moov.descendant("trak", "tref") == nil)
        #expect(movie4.moov.descendant("udta", "chpl") == nil)
    }

    /// Chapters that don't start at 0 go in `chpl` alone; more than 255 of
    /// them can't, and the save is refused before anything is written.
    @Test func chaptersNotStartingAtZero() async throws {
        let bytes =
            B.ftyp() + B.box("mdat", [1, 2, 3])
            + B.box("moov", children: [B.mvhd(timescale: 1000, duration: 10_000), Self.soundTrack(id: 1, chapters: nil)])
        let url = try B.write(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        item.chapters = [Chapter(start: 1, titles: [.init("Late")]), Chapter(start: 4, titles: [.init("Later")])]
        try await item.save()
        var reread = MediaItem(url: url)
        try await reread.load()
        #expect(reread.chapters.map(\.start) == [1, 4])
        #expect(reread.chapters.map(\.title) == ["Late", "Later"])
        let movie = try MP4Movie(FileSource(url: url))
        #expect(movie.moov.children("trak").count == 1)

        let before = try Data(contentsOf: url)
        reread.chapters = (0..<300).map { Chapter(start: 1 + Double($0) / 100, titles: [.init("C\($0)")]) }
        await #expect(throws: MediaError.self) { try await reread.save() }
        #expect(try Data(contentsOf: url) == before)
    }
}
