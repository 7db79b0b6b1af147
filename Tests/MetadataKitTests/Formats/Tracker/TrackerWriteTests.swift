import Foundation
import Testing

@testable import MetadataKit

/// Tracker modules written in place: the title and the comment's lines in
/// their fixed-size fields, nothing else in the file changed, as TagLib
/// writes them; what doesn't fit is refused.
@Suite struct TrackerWriteTests {
    static let fast = SaveOptions(durability: .noSync)

    /// The byte ranges of the title and the name fields (and an IT message).
    static func fields(of url: URL) throws -> [Range<Int>] {
        let source = try FileSource(url: url)
        let format = try MediaFormat.detect(source, url: url)
        let module: TrackerModule
        switch format.identifier {
        case "mod": module = try ProTrackerModule.read(source)
        case "s3m": module = try ScreamTracker3Module.read(source)
        case "xm": module = try FastTrackerModule.read(source)
        default: module = try ImpulseTrackerModule.read(source)
        }
        var ranges = ([module.title] + module.names).map { Int($0.offset)..<Int($0.offset) + $0.size }
        if let message = module.message { ranges.append(Int(message.offset)..<Int(message.offset) + message.length) }
        return ranges
    }

    @Test(arguments: TrackerFixtures.all) func writesTitleAndCommentInPlace(_ expected: TrackerFixtures.Expected) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TrackerFixtures.copy(expected.file, to: directory)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Renamed"
        item.metadata.comments = expected.format == "it" ? "Inst\n\nsmp 2\nmsg" : "first\nsecond"
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Renamed")
        #expect(reread.metadata.comments == item.metadata.comments)
        #expect(reread.properties == (try await MediaItem.loaded(TrackerFixtures.url(expected.file))).properties)
        let changed = try TrackerFixtures.changedOffsets(TrackerFixtures.url(expected.file), url)
        let fields = try Self.fields(of: url)
        #expect(!changed.isEmpty)
        #expect(changed.allSatisfy { offset in fields.contains { $0.contains(offset) } }, "a byte outside the text fields changed")

        // Removing the comment empties the names; the title stays.
        var again = try await MediaItem.loaded(url)
        again.metadata.comments = nil
        try await again.save(options: Self.fast)
        let cleared = try await MediaItem.loaded(url)
        #expect(cleared.metadata.comments == nil && cleared.metadata.title == "Renamed")
    }

    /// The same title written by TagLib gives the same bytes; so does a MOD
    /// or S3M comment (TagLib 1.13 writes an XM comment's sample names to
    /// other fields than it reads them from, and cuts an IT message to its
    /// old length where MetadataKit refuses it).
    @Test(.enabled(if: TrackerFixtures.hasTagLib, "needs g++ and TagLib's development files"))
    func taglibWritesTheSameBytes() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for expected in TrackerFixtures.all {
            let comment = ["mod", "s3m"].contains(expected.format) ? "one\ntwo" : nil
            let ours = try TrackerFixtures.copy(expected.file, to: directory, as: "ours-" + expected.file)
            let theirs = try TrackerFixtures.copy(expected.file, to: directory, as: "taglib-" + expected.file)
            var item = try await MediaItem.loaded(ours)
            item.metadata.title = "Title by both"
            if let comment { item.metadata.comments = comment }
            try await item.save(options: Self.fast)
            let taglib = try TrackerFixtures.taglib(theirs, title: "Title by both", comment: comment)
            let (mine, its) = ([UInt8](try Data(contentsOf: ours)), [UInt8](try Data(contentsOf: theirs)))
            if expected.format == "xm" {
                // TagLib 1.13 writes the XM title, then the second instrument's
                // name into the first instrument's sample data, and reports a
                // failed save: the header (336 bytes) is compared.
                #expect(taglib["saved"] as? Bool == false)
                #expect(mine.prefix(336) == its.prefix(336), "\(expected)")
            } else {
                #expect(taglib["saved"] as? Bool == true, "\(expected)")
                #expect(mine == its, "\(expected)")
            }
        }
    }

    /// TagLib reads what we wrote, the IT message included.
    @Test(.enabled(if: TrackerFixtures.hasTagLib, "needs g++ and TagLib's development files"))
    func taglibReadsWhatWeWrote() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for expected in TrackerFixtures.all {
            let url = try TrackerFixtures.copy(expected.file, to: directory)
            var item = try await MediaItem.loaded(url)
            let lines = expected.comment.split(separator: "\n").count
            let comment = (1...lines).map { "L\($0) é" }.joined(separator: "\n")
            item.metadata.title = "Née"
            item.metadata.comments = comment
            try await item.save(options: Self.fast)
            let taglib = try TrackerFixtures.taglib(url)
            #expect(taglib["title"] as? String == "Née", "\(expected)")
            let read = try #require(taglib["comment"] as? String)
            #expect(String(read.reversed().drop { $0 == "\n" }.reversed()) == comment, "\(expected)")
        }
    }

    /// Too long, too many lines, outside Latin-1, a line break in the title,
    /// a message that doesn't fit: refused before anything is written.
    @Test(arguments: TrackerFixtures.all) func refusesWhatDoesNotFit(_ expected: TrackerFixtures.Expected) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TrackerFixtures.copy(expected.file, to: directory)
        let original = try Data(contentsOf: url)
        let names = try Self.fields(of: url).count - 1 - (expected.format == "it" ? 1 : 0)
        var refusals: [(String, (inout Metadata) -> Void)] = [
            ("long title", { $0.title = String(repeating: "t", count: expected.titleCapacity + 1) }),
            ("not Latin-1", { $0.title = "東京" }),
            ("line break", { $0.title = "a\nb" }),
            ("long name", { $0.comments = String(repeating: "n", count: 29) }),
        ]
        if expected.format == "it" {
            refusals.append(("long message", { $0.comments = String(repeating: "\n", count: names) + String(repeating: "m", count: 17) }))
        } else {
            refusals.append(("many lines", { $0.comments = (0...names).map { "line \($0)" }.joined(separator: "\n") }))
        }
        for (what, change) in refusals {
            var item = try await MediaItem.loaded(url)
            change(&item.metadata)
            await #expect(throws: MediaError.self, "\(expected) \(what)") { try await item.save(options: Self.fast) }
            #expect(try Data(contentsOf: url) == original, "\(expected) \(what): the file changed")
        }
        // Exactly the capacity fits.
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "t", count: expected.titleCapacity)
        try await item.save(options: Self.fast)
        #expect(try await MediaItem.loaded(url).metadata.title == item.metadata.title)
    }

    @Test func refusalsSayWhy() throws {
        let source = try FileSource(url: TrackerFixtures.url("module.mod"))
        let module = try ProTrackerModule.read(source)
        let item = MetadataItem(keySpace: .module, key: "title", value: .string(String(repeating: "x", count: 21)), dataType: .latin1)
        #expect {
            try TrackerEditPlanner.plan(module, source: source, items: [item])
        } throws: { error in
            (error as? MediaError)?.code == .invalidValue && "\(error)".contains("the MOD title holds at most 20 bytes")
        }
        let other = MetadataItem(keySpace: .module, key: "artist", value: .string("x"), dataType: .latin1)
        #expect(throws: MediaError.self) { try TrackerEditPlanner.plan(module, source: source, items: [other]) }
    }
}
