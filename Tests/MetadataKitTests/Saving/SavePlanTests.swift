import Foundation
import Testing

@testable import MetadataKit

/// ``MediaItem/plan(options:)``: what a save will do, listed before it is
/// done, and ``MediaItem/save(_:)`` carrying out exactly that plan. The
/// operation matrix checks the plan's item list against every save it makes;
/// these tests pin the cases the field-semantics review found unlisted.
@Suite struct SavePlanTests {
    static let tools = TestSupport.hasTool("ffmpeg") || TestSupport.missingUnderCI("ffmpeg")

    /// A one-second file made by ffmpeg with `arguments` (tags, container options).
    static func ffmpegFile(_ name: String, _ arguments: [String], in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try TestSupport.runChecked(
            "ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=d=1"] + arguments + ["-y", url.path])
        return url
    }

    static func lines(_ plan: SavePlan) -> [String] { plan.itemChanges.map(\.description) }

    @Test(.enabled(if: tools, "needs ffmpeg"))
    func mirroredCopyIsListed() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        // A 3GPP file holds 3GPP user data; a new iTunes list gets a copy of every field.
        let url = try Self.ffmpegFile("x.3gp", ["-c:a", "aac", "-metadata", "title=Sine", "-metadata", "comment=c"], in: folder)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        let plan = try await item.plan()
        #expect(plan.fieldChanges.map(\.description) == ["title: 'Sine' → 'New'"])
        #expect(Self.lines(plan).contains("+ itunes:©cmt = c"), "the copy of the unchanged comment: \(Self.lines(plan))")
        #expect(Self.lines(plan).contains("+ itunes:©nam = New"))
        #expect(Self.lines(plan).contains("3gpp:titl: 'Sine' → 'New'"))
        let before = try Data(contentsOf: url)
        #expect(plan.sizes.before == Int64(before.count) && plan.sizes.after > plan.sizes.before)
        let loaded = item.loadedItems
        try await item.save(plan)
        let after = try await MediaItem.loaded(url)
        #expect(SavePlan.differences(from: loaded, to: after.metadata.items).map(\.description) == Self.lines(plan))
        #expect(after.metadata.title == "New" && after.metadata[.comments]?.text == "c")
    }

    @Test(.enabled(if: tools, "needs ffmpeg"))
    func id3v1OptionsAreListed() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = try Self.ffmpegFile(
            "a.mp3", ["-metadata", "title=Sine", "-metadata", "artist=A", "-id3v2_version", "3", "-write_id3v1", "1"], in: folder)
        let item = try await MediaItem.loaded(url)
        var options = SaveOptions()
        options.id3v1 = .remove
        let removal = try await item.plan(options: options)
        #expect(removal.fieldChanges.isEmpty)
        #expect(Self.lines(removal) == ["- id3v1:title", "- id3v1:artist"])
        #expect(removal.sizes.after == removal.sizes.before - 128 && removal.layout != .unchanged)
        // Nothing asked: an empty plan.
        let nothing = try await item.plan()
        #expect(nothing.isEmpty && nothing.itemChanges.isEmpty && nothing.layout == .unchanged)
    }

    @Test(.enabled(if: tools, "needs ffmpeg"))
    func listJoinedByTheFormatIsAConversion() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = try Self.ffmpegFile("a.mp3", ["-metadata", "title=Sine", "-id3v2_version", "3"], in: folder)
        var item = try await MediaItem.loaded(url)
        item.metadata[.artist] = .texts(["A", "B"])
        let plan = try await item.plan()
        // ID3v2.3 has no list: the two values are one text, which readers show joined.
        #expect(plan.conversions == ["artist: 'A; B' is stored as 'A/B'"], "\(plan.conversions)")
        #expect(Self.lines(plan).contains("+ id3:TPE1 = A/B"), "\(Self.lines(plan))")
    }

    @Test(.enabled(if: tools, "needs ffmpeg"))
    func refusalsComeFromThePlanAndStalePlansAreRefused() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = try Self.ffmpegFile("a.flac", ["-metadata", "title=Sine"], in: folder)
        var item = try await MediaItem.loaded(url)
        item.metadata.date = "2024-13-45"
        await #expect(throws: MediaError.self) { try await item.plan() }
        let before = try Data(contentsOf: url)

        item.metadata.date = "2024"
        let plan = try await item.plan()
        #expect(Self.lines(plan) == ["+ vorbis:DATE = 2024"])
        item.metadata.title = "Changed after the plan"
        await #expect(throws: MediaError.self) { try await item.save(plan) }
        #expect(try Data(contentsOf: url) == before, "a stale plan writes nothing")

        // The file changed on disk after the plan: refused too.
        item.metadata.title = "Sine"
        let fresh = try await item.plan()
        var other = try await MediaItem.loaded(url)
        other.metadata.album = "Elsewhere"
        try await other.save()
        let changed = try Data(contentsOf: url)
        do {
            try await item.save(fresh)
            Issue.record("a plan of a file changed since was carried out")
        } catch {
            #expect(error.code == .fileChanged)
        }
        #expect(try Data(contentsOf: url) == changed)
    }

    @Test(.enabled(if: tools, "needs ffmpeg"))
    func removingEveryTagListsEveryItem() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = try Self.ffmpegFile("a.ogg", ["-c:a", "libvorbis", "-metadata", "title=Sine", "-metadata", "artist=A"], in: folder)
        let item = try await MediaItem.loaded(url)
        var options = SaveOptions()
        options.removesAllTags = true
        let plan = try await item.plan(options: options)
        let removed = plan.itemChanges.compactMap { if case .removed(let item) = $0 { return item } else { return nil } }
        #expect(removed.count == plan.itemChanges.count && Set(removed) == Set(item.metadata.items.filter { $0.keySpace == .vorbis }))
        #expect(plan.fieldChanges.contains { $0.field == .title && $0.newValue == nil })
    }

    /// A custom field of the item's schema is a field change of the plan
    /// (apart from the standard ones), beside its raw item; the plan is
    /// carried out, and so is one removing it.
    @Test func customFieldChangesAreListed() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("a.mp3")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
        let schema = try MetadataSchemaTests.schema()
        var item = try await MediaItem(contentsOf: url, schema: schema)
        item.metadata[custom: "energy"] = .text("high")
        item.metadata.title = "New"
        let plan = try await item.plan()
        #expect(plan.customFieldChanges.map(\.description) == ["energy: (none) → 'high'"])
        #expect(plan.customFieldChanges.first?.name == "energy" && plan.customFieldChanges.first?.newValue == .text("high"))
        #expect(plan.fieldChanges.map(\.field) == [.title], "the standard fields alone")
        #expect(Self.lines(plan).contains("+ id3:TXXX:ENERGY = high"), "\(Self.lines(plan))")
        #expect(try item.id3v1Updates().isEmpty, "the ID3v1 preview reads through the item's schema")
        try await item.save(plan)
        #expect(try await MediaItem(contentsOf: url, schema: schema).metadata[custom: "energy"] == .text("high"))

        item.metadata[custom: "energy"] = nil
        let removal = try await item.plan()
        #expect(removal.customFieldChanges.map(\.description) == ["energy: 'high' → (none)"])
        #expect(removal.fieldChanges.isEmpty && Self.lines(removal) == ["- id3:TXXX:ENERGY"])
        try await item.save(removal)
        #expect(try await MediaItem(contentsOf: url, schema: schema).metadata[custom: "energy"] == nil)
        #expect(try await item.plan().customFieldChanges.isEmpty, "nothing asked")
    }

    /// A source made of runs reads what the runs hold, however reads cross them.
    @Test func composedSourceReadsItsRuns() throws {
        let seed = UInt64(Date().timeIntervalSince1970) % 100_000
        var random = SplitMix64(state: seed)
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = folder.appendingPathComponent("base.bin")
        let base = (0..<40_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        try Data(base).write(to: url)
        let source = try FileSource(url: url)
        var runs: [FileSource.Run] = []
        var expected: [UInt8] = []
        for _ in 0..<12 {
            if Bool.random(using: &random) {
                let offset = Int.random(in: 0..<39_000, using: &random)
                let length = Int.random(in: 0...min(9_000, 40_000 - offset), using: &random)
                runs.append(.original(offset: Int64(offset), length: Int64(length)))
                expected += base[offset..<offset + length]
            } else {
                let bytes = (0..<Int.random(in: 0..<3_000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                runs.append(.bytes(bytes))
                expected += bytes
            }
        }
        let composed = FileSource(runs: runs, over: source)
        #expect(composed.size == Int64(expected.count), "seed \(seed)")
        for _ in 0..<200 where !expected.isEmpty {
            let offset = Int.random(in: 0..<expected.count, using: &random)
            let length = Int.random(in: 0...min(6_000, expected.count - offset), using: &random)
            let wanted = Array(expected[offset..<(offset + length)])
            let read = try composed.getBytes(at: Int64(offset), count: length)
            #expect(read == wanted, "seed \(seed)")
        }
        #expect(throws: MediaError.self) { try composed.getBytes(at: Int64(expected.count), count: 1) }
    }
}
