import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

private typealias B = MatroskaBuilder

/// Built files with several Tags elements (merged into one by a save that
/// changes the tags) and with a SeekHead that has no room for a new entry
/// (moved whole to the end of the Segment, a one-entry SeekHead left in
/// its place), as mkvpropedit writes them.
@Suite struct MatroskaSeveralTagsTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// Header, then a Segment of a SeekHead indexing the `indexed` children
    /// (by their IDs), a Void of `voidSize` bytes (none when 0) and `children`.
    static func file(_ children: [[UInt8]], indexed: Set<Int>, voidSize: Int = 0) -> [UInt8] {
        let void = voidSize > 0 ? EBML.void(count: voidSize) : []
        var seekHead: [UInt8] = []
        // The SeekHead's size depends on the positions it holds: settle it.
        for _ in 0..<4 {
            var position = seekHead.count + void.count
            var entries: [(id: UInt32, position: Int64)] = []
            for (index, child) in children.enumerated() {
                if indexed.contains(index) {
                    var reader = ByteReader(child)
                    entries.append(((try? EBMLElement(parsing: &reader))?.id ?? 0, Int64(position)))
                }
                position += child.count
            }
            let next = EBML.element(MatroskaID.seekHead, MatroskaSpaceLayout.seekHeadData(entries, crc: false))
            let settled = next.count == seekHead.count
            seekHead = next
            if settled { break }
        }
        return B.file([seekHead, void] + children)
    }

    /// Tags before the Clusters (album and track) and after them (a comment).
    static let twoTags: [[UInt8]] = [
        B.info(title: "Movie"), B.tracks(),
        B.element(MatroskaID.tags, B.tag(target: 50, [("TITLE", "Album")]) + B.tag(target: 30, [("TITLE", "Song")])),
        B.cluster(),
        B.element(MatroskaID.tags, B.tag(target: 30, [("COMMENT", "Other tool")])),
    ]

    /// Every SeekHead entry points at an element of its ID; returns the Tags entries.
    func checkSeekHeads(_ layout: MatroskaLayout) -> [Int64] {
        var tags: [Int64] = []
        for entry in layout.seekHeads.flatMap(\.entries) {
            let target = layout.segmentData + entry.position
            #expect(layout.elements.contains { $0.offset == target && $0.id == entry.id }, "entry 0x\(String(entry.id, radix: 16))")
            if entry.id == MatroskaID.tags { tags.append(target) }
        }
        #expect(layout.warnings.isEmpty, "\(layout.warnings)")
        return tags
    }

    @Test(arguments: [false, true])
    func severalTagsElementsAreReadAsOneAndMergedByASave(seekHead: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = seekHead ? Self.file(Self.twoTags, indexed: [0, 1, 2, 4], voidSize: 30) : B.file(Self.twoTags)
        let url = try B.write(bytes, "two.mkv", in: directory)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.album == "Album" && item.metadata.title == "Song" && item.metadata.comments == "Other tool")
        let before = try MatroskaLayout(parsing: FileSource(url: url))
        let clusters = try MatroskaInterop.clusters(url)
        #expect(before.all(MatroskaID.tags).count == 2)
        // A chapter change only: the Tags elements stay as they are.
        item.chapters = [Chapter(start: 0, titles: [Chapter.Title("Intro")])]
        try await item.save()
        var layout = try MatroskaLayout(parsing: FileSource(url: url))
        #expect(layout.all(MatroskaID.tags).count == 2)
        // A tag change: one Tags element holds every tag, the other became a Void.
        item = try await MediaItem.loaded(url)
        item.metadata.title = "New Song"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.album == "Album" && reread.metadata.title == "New Song" && reread.metadata.comments == "Other tool")
        layout = try MatroskaLayout(parsing: FileSource(url: url))
        #expect(layout.all(MatroskaID.tags).count == 1)
        #expect(reread.chapters.map(\.title) == ["Intro"])
        if seekHead {
            #expect(checkSeekHeads(layout) == layout.all(MatroskaID.tags).map(\.offset))
        }
        // The merged Tags stay before the Clusters (which move unchanged).
        #expect(try MatroskaInterop.clusters(url) == clusters)
        #expect(layout.all(MatroskaID.tags).allSatisfy { $0.offset < layout.firstCluster! })
    }

    /// A SeekHead right before Info (no Void): a new Tags element needs an
    /// entry, so the SeekHead goes to the end with it and a one-entry
    /// SeekHead points there. Then a second save finds both.
    @Test func aSeekHeadWithoutRoomMovesToTheEndBehindAForwardSeekHead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = Self.file([B.info(title: "Movie"), B.tracks(), B.cluster()], indexed: [0, 1])
        let url = try B.write(bytes, "tight.mkv", in: directory)
        let before = try MatroskaLayout(parsing: FileSource(url: url))
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "long comment ", count: 40)
        item.metadata.artist = "Someone"
        try await item.save()
        var layout = try MatroskaLayout(parsing: FileSource(url: url))
        #expect(layout.seekHeads.count == 2)
        #expect(layout.seekHeads[0].element.offset == before.seekHeads[0].element.offset)
        #expect(layout.seekHeads[0].entries.map(\.id) == [MatroskaID.seekHead])
        #expect(Set(layout.seekHeads[1].entries.map(\.id)) == [MatroskaID.info, MatroskaID.tracks, MatroskaID.tags])
        #expect(checkSeekHeads(layout).count == 1)
        #expect(layout.firstCluster == before.firstCluster)
        var reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.artist == "Someone" && reread.metadata.comments == item.metadata.comments)
        // A second save that needs another entry (Chapters): the SeekHead at the end takes it.
        reread.chapters = [Chapter(start: 0, titles: [Chapter.Title("One")]), Chapter(start: 1, titles: [Chapter.Title("Two")])]
        try await reread.save()
        layout = try MatroskaLayout(parsing: FileSource(url: url))
        _ = checkSeekHeads(layout)
        #expect(layout.seekHeads.flatMap(\.entries).contains { $0.id == MatroskaID.chapters })
        let last = try await MediaItem.loaded(url)
        #expect(last.chapters.map(\.title) == ["One", "Two"] && last.metadata.artist == "Someone")
    }

    /// A failure at any step of such a save leaves the old file or the new one.
    @Test(arguments: FileEditor.Step.allCases)
    func aFailingStepOfASeekHeadMoveLeavesTheFileAsItWasOrSaved(step: FileEditor.Step) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = Self.file([B.info(title: "Movie"), B.tracks(), B.cluster()], indexed: [0, 1])
        let url = try B.write(bytes, "tight.mkv", in: directory)
        var item = try await MediaItem.loaded(url)
        item.metadata.artist = "Someone"
        let save = try item.prepareSave(options: SaveOptions())
        var editor = FileEditor()
        editor.failingStep = step
        var failed = false
        do {
            try editor.apply(save.plan, to: url, expecting: save.snapshot, verify: save.verify)
        } catch {
            failed = true
        }
        let reread = try await MediaItem.loaded(url)
        if failed && step != .dataSync && step != .directorySync {
            #expect(try Data(contentsOf: url) == Data(bytes), "the save failed at \(step) but changed the file")
        } else if !failed {
            #expect(reread.metadata.artist == "Someone", "the save at \(step) succeeded but reads back differently")
        } else {
            #expect(reread.metadata.artist == "Someone" || reread.metadata.artist == nil, "neither old nor new after \(step)")
        }
        #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: url).path), "a journal was left after \(step)")
    }
}
