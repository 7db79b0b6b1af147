import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

private typealias I = MatroskaInterop
private typealias B = MatroskaBuilder

/// mkvmerge files edited by hand the way other tools leave them: a second
/// Tags element at the end (merged by a save), and no Void after the
/// SeekHead (a new entry moves the SeekHead to the end). After each save
/// mkvinfo reads the whole file without an error, mkvextract and ffprobe
/// see what was written, and no packet or Cluster moved.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaSeekHeadInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// How many top-level elements named `name` mkvinfo lists.
    func count(_ name: String, in url: URL) throws -> Int {
        try I.mkvinfo(url).split(separator: "\n").filter { $0.hasPrefix("|+ \(name)") }.count
    }

    @Test func aSecondTagsElementAddedByAnotherToolIsMergedByASave() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("mkvmerge.mka", in: directory)
        // By hand: a second Tags element appended to the Segment, with a Seek entry in the
        // SeekHead (which grows into the Void mkvmerge leaves after it).
        let source = try FileSource(url: file)
        let layout = try MatroskaLayout(parsing: source)
        var bytes = [UInt8](try Data(contentsOf: file))
        let head = try #require(layout.seekHeads.first)
        let void = try #require(layout.elements.first { $0.offset == head.element.end && $0.id == MatroskaID.void })
        let second = B.element(MatroskaID.tags, B.tag(target: 30, [("COMMENT", "from another tool")]))
        let entries = head.entries.map { (id: $0.id, position: $0.position) } + [(MatroskaID.tags, source.size - layout.segmentData)]
        let seekHead = try #require(
            MatroskaSpaceLayout.fit(
                MatroskaID.seekHead, MatroskaSpaceLayout.seekHeadData(entries, crc: head.hasCRC),
                span: head.element.totalSize! + void.totalSize!))
        bytes.replaceSubrange(Int(head.element.offset)..<Int(head.element.offset) + seekHead.count, with: seekHead)
        let segment = layout.segment
        let size = try #require(EBML.sizeBytes(segment.dataSize! + Int64(second.count), length: segment.sizeLength))
        let sizeAt = Int(segment.offset) + segment.idLength
        bytes.replaceSubrange(sizeAt..<sizeAt + size.count, with: size)
        bytes += second
        try Data(bytes).write(to: file)
        #expect(try count("Tags", in: file) == 2)
        let hash = try I.trackHash(file), cluster = try I.clusters(file)
        var item = try await MediaItem.loaded(file)
        #expect(item.metadata.comments == "from another tool" && item.metadata.title == "Track Title")

        item.metadata.title = "Merged Title"
        try await item.save()
        #expect(try count("Tags", in: file) == 1)
        try I.checkWrite(file, hash: hash, cluster: cluster, size: Int64(bytes.count), growth: 4096)
        let tags = try I.extractedTags(file)
        #expect(tags.contains("Merged Title") && tags.contains("from another tool") && tags.contains("The Album"))
        #expect(!tags.contains("Track Title"))
        let probed = try I.ffprobeTags(file)
        #expect(probed["COMMENT"] == "from another tool")
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.title == "Merged Title" && reread.metadata.comments == "from another tool")
        #expect(reread.metadata.album == "The Album")
    }

    /// `file` (made without Cues, which hold Cluster positions) with the Void
    /// after its SeekHead cut out: what follows moves up, and the SeekHead's
    /// positions (relative to the Segment's data) with it.
    static func removingVoidAfterSeekHead(_ file: URL) throws {
        let layout = try MatroskaLayout(parsing: FileSource(url: file))
        let bytes = [UInt8](try Data(contentsOf: file))
        let head = try #require(layout.seekHeads.first)
        let void = try #require(layout.elements.first { $0.offset == head.element.end && $0.id == MatroskaID.void })
        #expect(layout.first(MatroskaID.cues) == nil && layout.seekHeads.count == 1)
        let removed = void.totalSize!
        var seekHead = [UInt8](bytes[Int(head.element.offset)..<Int(head.element.end!)])
        for _ in 0..<4 {
            // Everything after the Void moves up by the Void and by what the SeekHead shrank.
            let shift = removed + head.element.totalSize! - Int64(seekHead.count)
            let entries = head.entries.map { (id: $0.id, position: $0.position - shift) }
            let next = EBML.element(MatroskaID.seekHead, MatroskaSpaceLayout.seekHeadData(entries, crc: head.hasCRC))
            if next == seekHead { break }
            seekHead = next
        }
        let segment = layout.segment
        let data =
            Array(bytes[Int(segment.dataOffset)..<Int(head.element.offset)]) + seekHead + Array(bytes[Int(void.end!)..<bytes.count])
        let result = Array(bytes[0..<Int(segment.offset)]) + EBML.element(MatroskaID.segment, data)
        try Data(result).write(to: file)
    }

    @Test func aSeekHeadWithoutAVoidAfterItMovesToTheEndForANewEntry() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("in.mka"), file = directory.appendingPathComponent("tight.mka")
        try I.ffmpegAudio(audio)
        try TestSupport.runChecked("mkvmerge", ["-q", "-o", file.path, "--no-cues", "--no-chapters", audio.path])
        try Self.removingVoidAfterSeekHead(file)
        let layout = try MatroskaLayout(parsing: FileSource(url: file))
        #expect(layout.warnings.isEmpty && layout.first(MatroskaID.chapters) == nil)
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        var item = try await MediaItem.loaded(file)
        item.chapters = [Chapter(start: 0, titles: [Chapter.Title("Erste")]), Chapter(start: 1.5, titles: [Chapter.Title("Zweite")])]
        try await item.save()
        #expect(try count("Seek head", in: file) == 2)
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 4096)
        let chapters = try I.extractedChapters(file)
        #expect(chapters.contains("Erste") && chapters.contains("Zweite"))
        let probed = try #require(I.ffprobe(file)["chapters"] as? [[String: Any]])
        #expect(probed.compactMap { ($0["tags"] as? [String: String])?["title"] } == ["Erste", "Zweite"])
        let reread = try await MediaItem.loaded(file)
        #expect(reread.chapters.map(\.title) == ["Erste", "Zweite"])
        let after = try MatroskaLayout(parsing: FileSource(url: file))
        #expect(after.warnings.isEmpty && after.seekHeads[0].entries.map(\.id) == [MatroskaID.seekHead])
    }

    /// `mdkit write --chapters` on such a file (the SeekHead moves to the
    /// end) paused before a step of the save and killed there: the next
    /// load gives the old file or the new one, and mkvinfo reads it.
    @Test(arguments: ["journalSync", "patchWrite", "dataSync", "directorySync"])
    func aKilledSeekHeadMoveLeavesTheOldOrTheNewFile(pausedStep: String) async throws {
        try #require(Capabilities.mdkit)
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("in.mka"), file = directory.appendingPathComponent("tight.mka")
        try I.ffmpegAudio(audio)
        try TestSupport.runChecked("mkvmerge", ["-q", "-o", file.path, "--no-cues", "--no-chapters", audio.path])
        try Self.removingVoidAfterSeekHead(file)
        let chapters = directory.appendingPathComponent("chapters.txt")
        try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=A\n"
            .write(to: chapters, atomically: true, encoding: .utf8)
        let hash = try I.trackHash(file)
        try await PausedSave.killWrite(
            ["write", file.path, "--chapters", chapters.path, "--set", "title=killed"], journalOf: file, before: pausedStep)
        var item = MediaItem(url: file)
        try await item.load() // recovers an interrupted save
        let isNew = item.chapters.map(\.title) == ["A"]
        #expect(isNew || item.chapters.isEmpty, "chapters neither old nor new: \(item.chapters.map(\.title))")
        #expect(isNew == (item.metadata.title == "killed"), "the chapters and the title were saved together or not at all")
        #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: file).path))
        #expect(try I.trackHash(file) == hash)
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).warnings.isEmpty)
    }
}
