import Foundation
import Testing

@testable import MetadataKit

private typealias B = MatroskaBuilder

/// Hostile Matroska files: sizes past their parent or the file, IDs longer
/// than 4 bytes, nesting bombs, unknown sizes where the spec forbids them,
/// and random damage. Each reads without a crash, a hang or a large
/// allocation; damage is a warning at its offset.
@Suite struct MatroskaHostileTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func parse(_ bytes: [UInt8]) throws -> ParsedFile {
        let url = try B.write(bytes, "h.mkv", in: directory)
        return try MatroskaParser.parse(FileSource(url: url), url)
    }

    @Test func aHugeTagsSizeIsNotRead() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Tags claiming 2^50 bytes: past the Segment and the file.
        let tags = EBML.idBytes(MatroskaID.tags) + [0x01, 0x04, 0, 0, 0, 0, 0, 0] + B.tag(target: 30, [("TITLE", "x")])
        let parsed = try parse(B.file([B.info(title: "t"), B.tracks(), tags]))
        #expect(parsed.items.map(\.key) == ["Info/Title"])
        #expect(!parsed.warnings.isEmpty)
    }

    @Test func anEightByteIDEndsItsParentWithAWarning() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = B.tag(target: 30, [("TITLE", "kept")])
        let bad: [UInt8] = [0x01, 1, 2, 3, 4, 5, 6, 7, 0x81, 0]
        let tagsData = good + bad + B.tag(target: 30, [("ARTIST", "lost")])
        let tags = B.element(MatroskaID.tags, tagsData)
        let bytes = B.file([B.info(), B.tracks(), tags])
        let parsed = try parse(bytes)
        #expect(parsed.items.map(\.key) == ["30/TITLE"])
        let warning = try #require(parsed.warnings.first)
        #expect(warning.code == .malformed)
        // The warning is at the bad ID: the Tags data starts after its header.
        let tagsOffset = bytes.count - tags.count
        #expect(warning.offset == Int64(tagsOffset + tags.count - tagsData.count + good.count))
        // The same ID at the top level: the Segment's rest is not read, the file still is.
        let top = try parse(B.file([B.info(title: "t"), bad, tags]))
        #expect(top.items.map(\.key) == ["Info/Title"])
        #expect(top.warnings.count == 1)
    }

    @Test func nestingBombsStopAtTheDepthLimit() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var simple = B.element(MatroskaID.simpleTag, B.string(MatroskaID.tagName, "N") + B.string(MatroskaID.tagString, "v"))
        for _ in 0..<200 {
            simple = B.element(MatroskaID.simpleTag, B.string(MatroskaID.tagName, "N") + B.string(MatroskaID.tagString, "v") + simple)
        }
        var atom = B.element(MatroskaID.chapterAtom, B.uint(MatroskaID.chapterTimeStart, 0))
        for _ in 0..<200 { atom = B.element(MatroskaID.chapterAtom, B.uint(MatroskaID.chapterTimeStart, 0) + atom) }
        let tag = B.element(MatroskaID.tag, B.element(MatroskaID.targets, []) + simple)
        let parsed = try parse(
            B.file([
                B.info(), B.tracks(), B.element(MatroskaID.tags, tag),
                B.element(MatroskaID.chapters, B.element(MatroskaID.editionEntry, atom)),
            ]))
        #expect(parsed.items.count == EBMLChildren.maximumDepth)
        #expect(parsed.warnings.filter { $0.code == .tooDeep }.count == 2)
        var depth = 0
        var chapters = parsed.chapterTables.first?.chapters ?? []
        while let first = chapters.first {
            depth += 1
            chapters = first.chapters
        }
        #expect(depth == EBMLChildren.maximumDepth)
    }

    @Test func unknownSizesOutsideSegmentAndClusterAreDamage() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = EBML.idBytes(MatroskaID.tags) + [0xFF] + B.tag(target: 30, [("TITLE", "x")])
        let parsed = try parse(B.file([B.info(title: "t"), B.tracks(), tags]))
        #expect(parsed.items.map(\.key) == ["Info/Title"])
        #expect(parsed.warnings.contains { $0.message.contains("unknown size") })
        // Inside a master: read to the parent's end, with a warning.
        let inner =
            EBML.idBytes(MatroskaID.tag) + [0xFF]
            + B.element(MatroskaID.simpleTag, B.string(MatroskaID.tagName, "A") + B.string(MatroskaID.tagString, "b"))
        let nested = try parse(B.file([B.info(), B.tracks(), B.element(MatroskaID.tags, inner)]))
        #expect(nested.items.map(\.key) == ["A"])
        #expect(nested.warnings.count == 1)
    }

    @Test func aBombOfTinyVoidsIsWalkedQuickly() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let voids = [[UInt8]](repeating: [0xEC, 0x80], count: 200_000)
        let clock = ContinuousClock()
        let start = clock.now
        let parsed = try parse(B.file([B.info(title: "t")] + voids + [B.tracks()]))
        #expect(clock.now - start < .seconds(10))
        #expect(parsed.items.map(\.key) == ["Info/Title"])
    }

    @Test func notMatroskaOrNoSegmentIsAnError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: MediaError.self) { try parse(B.header()) }
        #expect(throws: MediaError.self) { try parse([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    /// Random byte damage (seeded; the seed is in the failure message).
    @Test func randomDamageNeverCrashes() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(state: seed)
        let original = B.typical()
        let url = directory.appendingPathComponent("r.mkv")
        for round in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            try Data(bytes).write(to: url)
            do {
                let parsed = try MatroskaParser.parse(FileSource(url: url), url)
                #expect(parsed.items.count < 100, "seed \(seed), round \(round)")
            } catch is MediaError {
                // nothing sensible remained
            }
        }
    }
}
