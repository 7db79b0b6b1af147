import Foundation
import Testing

@testable import MetadataKit

/// `CHAPTERxxx` Vorbis comment fields as chapters (``VorbisChapters``): the
/// numbering ffmpeg and the Xiph proposal use, the times, the order and ends,
/// what a write replaces and what it refuses; hostile fields never trap.
struct VorbisChaptersTests {
    func items(_ fields: [(String, String)]) -> [MetadataItem] {
        fields.map { MetadataItem(keySpace: .vorbis, key: $0.0, value: .string($0.1), dataType: .utf8) }
    }

    func shape(_ tables: [ChapterTable]) -> [[String]] {
        tables.flatMap(\.chapters).map { [String($0.start), $0.end.map { String($0) } ?? "nil", $0.title ?? "nil", $0.url ?? "nil"] }
    }

    @Test func numbersFrom000Or001WithTwoOrThreeDigitsAreRead() {
        // ffmpeg writes CHAPTER000…; the Xiph proposal's examples CHAPTER001…; OGM tools CHAPTER01.
        let ffmpeg = items([
            ("CHAPTER000", "00:00:00.000"), ("CHAPTER000NAME", "One"), ("CHAPTER001", "00:00:12.250"), ("CHAPTER001NAME", "Twö"),
        ])
        #expect(
            shape(VorbisChapters.tables(from: ffmpeg, duration: 30)) == [["0.0", "12.25", "One", "nil"], ["12.25", "30.0", "Twö", "nil"]])
        let twoDigits = items([("CHAPTER01", "0:00:01.5"), ("CHAPTER01NAME", "A"), ("CHAPTER02", "1:02:03.004"), ("CHAPTER02URL", "u")])
        #expect(
            shape(VorbisChapters.tables(from: twoDigits, duration: nil)) == [
                ["1.5", "3723.004", "A", "nil"], ["3723.004", "nil", "nil", "u"],
            ])
        let table = VorbisChapters.tables(from: ffmpeg, duration: nil)
        #expect(table.count == 1 && table[0].isDefault && table[0].chapters.map(\.id) == ["000", "001"])
    }

    @Test func chaptersAreSortedByStartAndEndAtTheNextStart() {
        let fields = items([
            ("CHAPTER003", "00:00:20.000"), ("CHAPTER003NAME", "C"), ("CHAPTER001", "00:00:00.000"), ("CHAPTER001NAME", "A"),
            ("CHAPTER002", "00:00:05.5"), ("CHAPTER002NAME", "B"),
        ])
        #expect(
            shape(VorbisChapters.tables(from: fields, duration: 25))
                == [["0.0", "5.5", "A", "nil"], ["5.5", "20.0", "B", "nil"], ["20.0", "25.0", "C", "nil"]])
        // A duration before the last start doesn't end it.
        #expect(shape(VorbisChapters.tables(from: fields, duration: 10)).last == ["20.0", "nil", "C", "nil"])
    }

    @Test func fieldsThatAreNoChaptersAreLeftAlone() {
        let fields = items([
            ("CHAPTERS", "3"), ("CHAPTER1", "00:00:01.000"), ("CHAPTER0001", "00:00:01.000"), ("CHAPTER005NAME", "no start"),
            ("CHAPTER006", "12:xx"), ("CHAPTER007", "-00:00:01"), ("CHAPTER008", "1.2.3"), ("CHAPTER009", ""), ("TITLE", "t"),
        ])
        #expect(VorbisChapters.tables(from: fields, duration: 9).isEmpty)
        #expect(VorbisChapters.tables(from: items([("TITLE", "t"), ("ARTIST", "a")]), duration: 9).isEmpty)
        // The early proposal's start-->end form gives an end.
        let ranged = items([("CHAPTER001", "00:00:01.000-->00:00:02.500"), ("CHAPTER002", "00:00:04.000")])
        #expect(shape(VorbisChapters.tables(from: ranged, duration: 9)) == [["1.0", "2.5", "nil", "nil"], ["4.0", "9.0", "nil", "nil"]])
    }

    @Test func timestampsAreWrittenAsFfmpegWritesThem() {
        #expect(VorbisChapters.timestamp(0) == "00:00:00.000")
        #expect(VorbisChapters.timestamp(12.3456) == "00:00:12.346")
        #expect(VorbisChapters.timestamp(3723.004) == "01:02:03.004")
        #expect(VorbisChapters.timestamp(360_000.5) == "100:00:00.500")
        for seconds in [0.0, 0.001, 59.999, 61.5, 3599.999, 86_400.25] {
            #expect(VorbisChapters.seconds(VorbisChapters.timestamp(seconds)) == seconds)
        }
    }

    @Test func aWriteReplacesEveryChapterFieldAndKeepsTheRest() throws {
        let old = items([
            ("TITLE", "Song"), ("CHAPTER000", "00:00:00.000"), ("CHAPTER000NAME", "Old"), ("CHAPTER01URL", "x"),
            ("CHAPTER002FOO", "stale"), ("CHAPTERS", "keep"), ("ARTIST", "A"),
        ])
        let chapters = [
            Chapter(start: 0, end: 10, titles: [.init("Ïntro")]), Chapter(start: 10, url: "https://example.com/2"),
            Chapter(start: 20.5, end: 30, titles: [.init("End")]),
        ]
        let stored = try VorbisChapters.storing([ChapterTable(isDefault: true, chapters: chapters)], in: old)
        #expect(
            stored.map { "\($0.key)=\($0.value.stringValue ?? "")" } == [
                "TITLE=Song", "CHAPTERS=keep", "ARTIST=A", "CHAPTER001=00:00:00.000", "CHAPTER001NAME=Ïntro",
                "CHAPTER002=00:00:10.000", "CHAPTER002URL=https://example.com/2", "CHAPTER003=00:00:20.500", "CHAPTER003NAME=End",
            ])
        #expect(
            shape(VorbisChapters.tables(from: stored, duration: 30)) == [
                ["0.0", "10.0", "Ïntro", "nil"], ["10.0", "20.5", "nil", "https://example.com/2"], ["20.5", "30.0", "End", "nil"],
            ])
        // No chapters: every chapter field goes.
        #expect(try VorbisChapters.storing([], in: old).map(\.key) == ["TITLE", "CHAPTERS", "ARTIST"])
        // Ten and more chapters keep three digits.
        let many = (0..<120).map { Chapter(start: Double($0)) }
        let keys = try VorbisChapters.storing([ChapterTable(chapters: many)], in: []).map(\.key)
        #expect(keys.first == "CHAPTER001" && keys[9] == "CHAPTER010" && keys.last == "CHAPTER120")
    }

    @Test func aWriteRefusesWhatTheFieldsCannotHold() {
        func refusal(_ tables: [ChapterTable]) -> String? {
            do {
                _ = try VorbisChapters.storing(tables, in: [])
                return nil
            } catch {
                return (error as? MediaError).map { "\($0.code.rawValue): \($0.reason)" } ?? "\(error)"
            }
        }
        func one(_ chapters: [Chapter]) -> [ChapterTable] { [ChapterTable(isDefault: true, chapters: chapters)] }
        let cases: [([ChapterTable], String)] = [
            (one([Chapter(start: 0, end: 5), Chapter(start: 6)]), "store only starts"),
            (one([Chapter(start: 0, end: 7), Chapter(start: 6)]), "store only starts"),
            (one([Chapter(start: 5), Chapter(start: 1)]), "sort them"),
            (one([Chapter(start: 0, chapters: [Chapter(start: 1)])]), "nested"),
            (one([Chapter(start: 0, artwork: Artwork(data: Data([1]), mimeType: "image/png"))]), "picture"),
            (one([Chapter(start: 0, isHidden: true)]), "hidden"),
            (one([Chapter(start: 0, titles: [.init("a", language: "eng"), .init("b", language: "ger")])]), "2 titles"),
            (one([Chapter(start: -1)]), "starts at"),
            (one([Chapter(start: .nan)]), "starts at"),
            (one([Chapter(start: 3, end: 2)]), "ends before"),
            (one((0..<1000).map { Chapter(start: Double($0)) }), "at most 999"),
            (one([Chapter(start: 0)]) + one([Chapter(start: 1)]), "one list"),
        ]
        for (tables, expected) in cases {
            let message = refusal(tables)
            #expect(message?.hasPrefix("invalidValue") == true && message?.contains(expected) == true, "\(message ?? "accepted")")
        }
        // Ends that meet the next start (within the tolerance) are fine; so is the last one's.
        #expect(refusal(one([Chapter(start: 0, end: 5.001), Chapter(start: 5, end: 99)])) == nil)
    }

    /// Random chapter-looking fields: reading never traps, gives sorted, finite,
    /// non-negative starts, and what it read writes and reads back the same.
    @Test func hostileFieldsAreReadWithoutTrapping() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let pieces = ["CHAPTER", "0", "1", "9", "NAME", "URL", ":", ".", "-->", "99", "x", "ß", " ", "-", "00", "\u{0}"]
        func text(_ count: Int) -> String { (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined() }
        for _ in 0..<300 {
            let fields = (0..<Int(random.next() % 12)).map { _ in
                let key = (random.next() % 4 == 0 ? "" : "CHAPTER") + text(Int(random.next() % 4))
                return (
                    key.uppercased(),
                    random.next() % 3 == 0 ? text(Int(random.next() % 8)) : "0\(random.next() % 10):1\(random.next() % 10):00.5"
                )
            }
            let tables = VorbisChapters.tables(from: items(fields), duration: random.next() % 2 == 0 ? nil : 100)
            let chapters = tables.flatMap(\.chapters)
            #expect(chapters.allSatisfy { $0.start.isFinite && $0.start >= 0 }, "seed \(seed)")
            #expect(zip(chapters, chapters.dropFirst()).allSatisfy { $0.start <= $1.start }, "seed \(seed)")
            var plain = chapters
            for index in plain.indices { plain[index].end = nil }
            let stored = try VorbisChapters.storing([ChapterTable(chapters: plain)], in: items(fields))
            let reread = VorbisChapters.tables(from: stored, duration: nil).flatMap(\.chapters)
            #expect(ChapterComparison.difference(expected: plain, actual: reread) == nil, "seed \(seed)")
        }
    }
}
