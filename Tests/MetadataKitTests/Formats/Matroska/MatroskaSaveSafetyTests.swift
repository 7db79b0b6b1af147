import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

private typealias I = MatroskaInterop

/// Chapter and cover-art saves of Matroska files that fail at any step of
/// the save layer, or whose process is killed with SIGKILL in the middle,
/// leave the old file or the new one, never a mixture, and no journal.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && Capabilities.mkvtoolnix,
        "needs ffmpeg and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaSaveSafetyTests {
    /// Chapters too long for the old Chapters element: it moves to the end of the Segment.
    static let chapters = (0..<12).map {
        Chapter(start: Double($0) * 0.25, titles: [Chapter.Title("Kapitel \($0) " + String(repeating: "·", count: 40))])
    }

    @Test(arguments: FileEditor.Step.allCases)
    func aFailingStepOfAChapterOrCoverSaveLeavesTheFileAsItWasOrSaved(step: FileEditor.Step) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("mkvmerge.mka", in: directory)
        let jpeg = directory.appendingPathComponent("new.jpg")
        try I.picture(jpeg)
        let picture = try Data(contentsOf: jpeg)
        let original = try Data(contentsOf: file)
        let hash = try I.trackHash(file)
        for change in ["chapters", "cover"] {
            try original.write(to: file)
            var item = try await MediaItem.loaded(file)
            let oldChapters = item.chapterTables
            if change == "chapters" {
                item.chapters = Self.chapters
            } else {
                item.metadata.artwork = [Artwork(data: picture, mimeType: "image/jpeg")]
            }
            let save = try item.prepareSave(options: SaveOptions())
            var editor = FileEditor()
            editor.failingStep = step
            var failed = false
            do {
                try editor.apply(save.plan, to: file, expecting: save.snapshot, verify: save.verify)
            } catch {
                failed = true
            }
            let reread = try await MediaItem.loaded(file)
            let saved =
                change == "chapters"
                ? ChapterComparison.difference(expected: [ChapterTable(chapters: Self.chapters)], actual: reread.chapterTables) == nil
                : (try await reread.metadata.artwork.first?.data()) == picture
            if failed && step != .dataSync && step != .directorySync {
                #expect(try Data(contentsOf: file) == original, "\(change) save failed at \(step) but changed the file")
            } else if !failed {
                #expect(saved, "\(change) save at \(step) succeeded but reads back differently")
            } else {
                let old =
                    change == "chapters" ? reread.chapterTables == oldChapters : reread.metadata.artwork.first?.mimeType == "image/png"
                #expect(saved || old, "\(change) save failed at \(step) and left neither the old nor the new file")
            }
            #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: file).path), "a journal was left after \(step)")
            #expect(try I.trackHash(file) == hash)
        }
    }

    /// `mdkit write --artwork` stopped before a step of the save and killed
    /// there: the next load gives the old cover or the new one.
    @Test(arguments: ["journalSync", "patchWrite", "dataSync", "directorySync"])
    func aKilledCoverSaveLeavesTheOldOrTheNewCover(pausedStep: String) async throws {
        try #require(Capabilities.mdkit)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("mkvmerge.mka", in: directory)
        let jpeg = directory.appendingPathComponent("new.jpg")
        try I.picture(jpeg)
        let hash = try I.trackHash(file)
        // Killed at the pause (the journal appears) or after the end of the save.
        try await PausedSave.killWrite(
            ["write", file.path, "--artwork", jpeg.path, "--set", "title=killed"], journalOf: file, before: pausedStep)
        var item = MediaItem(url: file)
        try await item.load() // recovers an interrupted in-place save
        let cover = try #require(item.metadata.artwork.first, "the cover was lost (paused before \(pausedStep))")
        let isNew = try await cover.data() == Data(contentsOf: jpeg)
        #expect(isNew || cover.mimeType == "image/png", "a cover never written")
        #expect(isNew == (item.metadata.title == "killed"), "the cover and the title were saved together or not at all")
        #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: file).path))
        #expect(try I.trackHash(file) == hash)
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
    }

    /// `mdkit write --chapters` (chapters that fit where the old ones are,
    /// saved in place with a journal) paused before a step and killed
    /// there: the next load gives the old chapters and title or the new ones.
    @Test(arguments: ["journalSync", "patchWrite", "dataSync", "directorySync"])
    func aKilledChapterSaveLeavesTheOldOrTheNewChapters(pausedStep: String) async throws {
        try #require(Capabilities.mdkit)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try I.make("mkvmerge.mka", in: directory)
        let chapters = directory.appendingPathComponent("chapters.txt")
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=A\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=B\n"
            .write(to: chapters, atomically: true, encoding: .utf8)
        let hash = try I.trackHash(file)
        let old = try await MediaItem.loaded(file).chapterTables
        let paused = try await PausedSave.killWrite(
            ["write", file.path, "--chapters", chapters.path, "--set", "title=killed"], journalOf: file, before: pausedStep)
        // Still running at the kill: the save reached the step and waited there (an in-place save with a journal).
        #expect(paused, "the save never paused before \(pausedStep)")
        var item = MediaItem(url: file)
        try await item.load() // recovers an interrupted in-place save
        let isNew = item.chapters.map(\.title) == ["A", "B"]
        #expect(isNew || item.chapterTables == old, "chapters neither old nor new: \(item.chapters.map(\.title))")
        #expect(isNew == (item.metadata.title == "killed"), "the chapters and the title were saved together or not at all")
        #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: file).path))
        #expect(try I.trackHash(file) == hash)
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
    }
}
