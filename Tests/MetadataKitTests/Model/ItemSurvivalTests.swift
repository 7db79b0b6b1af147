import Foundation
import Testing

@testable import MetadataKit

/// The check every save makes that items nobody changed read back as they were.
@Suite struct ItemSurvivalTests {
    func item(_ space: MetadataKeySpace, _ key: String, _ value: MetadataValue, language: String? = nil) -> MetadataItem {
        MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8, language: language)
    }

    @Test func aDroppedFrameIsNamed() {
        let expected = [item(.id3, "TIT2", .string("T")), item(.id3, "TALB", .string("Album")), item(.id3, "PRIV:x", .data(Data()))]
        let actual = [item(.id3, "TIT2", .string("T"))]
        let missing = ItemSurvival.missing(expected: expected, actual: actual, exempt: [])
        #expect(missing.map(\.key) == ["TALB", "PRIV:x"])
        #expect(ItemSurvival.describe(missing) == "id3:TALB, id3:PRIV:x")
    }

    @Test func aChangedLanguageOrValueCountsAsAltered() {
        let comment = item(.id3, "COMM", .string("c"), language: "XXX")
        #expect(
            ItemSurvival.missing(expected: [comment], actual: [item(.id3, "COMM", .string("c"), language: "eng")], exempt: []) == [comment])
        let year = item(.id3, "TYER", .string("Test Year"))
        #expect(ItemSurvival.missing(expected: [year], actual: [item(.id3, "TYER", .string("Test"))], exempt: []) == [year])
    }

    @Test func duplicatesAreCountedOneForOne() {
        let one = item(.vorbis, "ARTIST", .string("A"))
        #expect(ItemSurvival.missing(expected: [one, one], actual: [one], exempt: []) == [one])
        #expect(ItemSurvival.missing(expected: [one, one], actual: [one, one, one], exempt: []).isEmpty)
    }

    @Test func picturesMatchByWhatTheyAreNotWhereTheyAre() throws {
        let png = try Data(contentsOf: TestSupport.fixtures.appendingPathComponent("valid/cover.png"))
        let before = item(.id3, "APIC", .picture(Artwork(data: png, description: "cover")))
        let moved = item(.id3, "APIC", .picture(Artwork(data: png, description: "cover")))
        let other = item(.id3, "APIC", .picture(Artwork(data: png, pictureType: .backCover, description: "cover")))
        #expect(ItemSurvival.missing(expected: [before], actual: [moved], exempt: []).isEmpty)
        #expect(ItemSurvival.missing(expected: [before], actual: [other], exempt: []) == [before])
    }

    @Test func exemptKeySpacesAreNotCompared() {
        let v1 = item(.id3v1, "genre", .string("Rock"))
        #expect(ItemSurvival.missing(expected: [v1], actual: [], exempt: [.id3v1]).isEmpty)
        #expect(ItemSurvival.missing(expected: [v1], actual: [], exempt: []) == [v1])
    }

    /// A real save keeps every untouched item of a file: the check passes on
    /// the sample files, with every other item read back equal.
    @Test(arguments: ["sample.mp3", "sample.m4a", "sample.flac", "sample.ogg", "sample.opus"])
    func titleSavesKeepEveryOtherItem(name: String) async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/" + name), to: url)
        var item = try await MediaItem.loaded(url)
        let others = item.metadata.items.filter { $0.keySpace != .id3v1 }
        item.metadata.title = "A new title"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "A new title")
        let kept = others.filter { !MetadataKeyMap.standard.keys[.title, default: []].contains(MetadataKeyMap.RawKey($0.keySpace, $0.key)) }
        #expect(ItemSurvival.missing(expected: kept, actual: reread.metadata.items, exempt: []).isEmpty)
    }

    /// A save that writes nothing keeps what the load knew about the file's damage.
    @Test func aSaveThatWritesNothingKeepsTheWarnings() async throws {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("damaged.flac")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("hostile/flac-comment-count-huge.flac"), to: url)
        var item = try await MediaItem.loaded(url)
        let warnings = item.warnings
        try #require(!warnings.isEmpty)
        let before = try Data(contentsOf: url)
        try await item.save()
        #expect(try Data(contentsOf: url) == before, "nothing changed, nothing written")
        #expect(item.warnings == warnings)
    }

    /// The walk used for small files and the table used for large ones find
    /// the same lost items, whatever the order and duplicates (seeded lists;
    /// the seed is in the failure message).
    @Test func smallAndLargeListsFindTheSameLostItems() {
        for seed: UInt64 in 1...40 {
            var generator = SplitMix64(state: seed)
            func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
            let pool = (0..<12).map { index in
                item([.id3, .vorbis, .id3v1][index % 3], "K\(index % 5)", .string("v\(index % 4)"), language: index % 6 == 0 ? "eng" : nil)
            }
            let expected = (0..<(5 + random(20))).map { _ in pool[random(pool.count)] }
            // The written file: most expected items, shuffled, some dropped, some extra.
            var actual = expected.filter { _ in random(5) != 0 } + (0..<random(4)).map { _ in pool[random(pool.count)] }
            for index in actual.indices.reversed() { actual.swapAt(index, random(index + 1)) }
            let exempt: Set<MetadataKeySpace> = random(2) == 0 ? [] : [.id3v1]
            let small = ItemSurvival.missing(expected: expected, actual: actual, exempt: exempt)
            // Padding of an exempt key space takes the large path without changing the answer.
            let padding = (0..<300).map { item(.id3v1, "PAD\($0)", .string("")) }
            let large = ItemSurvival.missing(expected: expected, actual: actual + padding, exempt: exempt.union([.id3v1]))
            let smallAllExempt = ItemSurvival.missing(expected: expected, actual: actual, exempt: exempt.union([.id3v1]))
            #expect(large.map(\.key).sorted() == smallAllExempt.map(\.key).sorted(), "seed \(seed)")
            // Counted one for one: what is missing is what the multiset difference leaves.
            var left = actual
            var lost: [MetadataItem] = []
            for wanted in expected where !exempt.contains(wanted.keySpace) {
                if let index = left.firstIndex(of: wanted) { left.remove(at: index) } else { lost.append(wanted) }
            }
            #expect(small.map(\.key).sorted() == lost.map(\.key).sorted(), "seed \(seed)")
        }
    }
}
