import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// A crash journal belongs to a file, not to the spelling of its name: on a
/// case-insensitive volume (APFS's default) a journal of `Song.bin` must be
/// found when `song.bin` is loaded. A hard link in the same folder is the
/// Linux stand-in for the other spelling.
@Suite struct JournalIdentityTests {
    let original: [UInt8] = (0..<4096).map { UInt8($0 % 251) }

    /// `Song.bin` holding ``original``, and `song.bin`, a hard link to it.
    func makeFileAndOtherName() throws -> (file: URL, other: URL) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("Song.bin"), other = directory.appendingPathComponent("song.bin")
        try Data(original).write(to: file)
        try #require(link(file.path, other.path) == 0)
        return (file, other)
    }

    /// What a crash between patching and cleanup leaves: the journal the
    /// store wrote for `file` and the patched bytes.
    func crash(savingThrough file: URL) throws {
        let snapshot = try FileSource(url: file).snapshot
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 100, bytes: Array(original[100..<110]))])
        _ = try FileJournalStore().write(journal, of: snapshot, url: file)
        var patched = original
        patched[100..<105] = [0, 0, 0, 0, 0]
        let descriptor = open(file.path, O_WRONLY)
        defer { close(descriptor) }
        #expect(pwrite(descriptor, Array(patched[100..<105]), 5, 100) == 5)
    }

    @Test func aJournalIsFoundThroughAnotherNameOfTheFile() async throws {
        let (file, other) = try makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try crash(savingThrough: file)
        _ = try FileEditor.openRecovered(path: other.path)
        #expect([UInt8](try Data(contentsOf: file)) == original, "recovered when loaded under the other name")
        let left = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(Set(left) == ["Song.bin", "song.bin"], "the journal is gone")
    }

    /// The journal's name comes from the file's inode: both names give one.
    @Test func bothNamesOfAFileHaveOneJournalPath() throws {
        let (file, other) = try makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(EditJournal.path(for: file.path) == EditJournal.path(for: other.path))
        let inode = try #require(Platform.identity(ofFileAt: file.path)).inode
        #expect(EditJournal.path(for: file.path) == file.deletingLastPathComponent().path + "/.inode-\(inode).mdkit-journal")
        #expect(EditJournal.location(for: "song.bin", inode: 7) == ("", ".inode-7.mdkit-journal"))
        #expect(EditJournal.location(for: "/song.bin", inode: 7) == ("/", ".inode-7.mdkit-journal"))
    }

    /// The other way round, then a save: after the recovery through one name
    /// a save through the other journals under the same name and removes it.
    @Test func anInterruptedSaveThroughOneNameIsRecoveredThroughTheOther() async throws {
        let (file, other) = try makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try crash(savingThrough: other)
        let source = try FileEditor.openRecovered(path: file.path)
        #expect([UInt8](try Data(contentsOf: other)) == original)
        try FileEditor().apply(.inPlace([(offset: 0, bytes: [0xAA])]), to: other, expecting: source.snapshot) { _ in }
        #expect(try Data(contentsOf: file).first == 0xAA)
        let left = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(Set(left) == ["Song.bin", "song.bin"])
    }

    /// Journals of earlier versions, named after the file's name, are still
    /// recovered from.
    @Test func aJournalNamedAfterTheFileIsStillRecovered() throws {
        let (file, _) = try makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 200, bytes: Array(original[200..<210]))])
        let legacy = file.deletingLastPathComponent().appendingPathComponent(".Song.bin.mdkit-journal")
        try Data(journal.encoded()).write(to: legacy)
        var patched = original
        patched[200..<210] = ArraySlice(repeating: 0xEE, count: 10)
        try Data(patched).write(to: file)
        _ = try FileEditor.openRecovered(path: file.path)
        #expect([UInt8](try Data(contentsOf: file)) == original)
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
    }

    /// A batch journal names each file's entry by its identity, so the entry
    /// is found whatever name the file is loaded under.
    @Test func aBatchEntryIsFoundByIdentity() throws {
        let (file, other) = try makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let inode = try #require(Platform.identity(ofFileAt: file.path)).inode
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 300, bytes: Array(original[300..<310]))])
        let batch = EditJournal.encodeBatch([(EditJournal.identityKey(inode: inode), journal)])
        try Data(batch).write(to: URL(fileURLWithPath: EditJournal.path(for: file.path)))
        var patched = original
        patched[300..<310] = ArraySlice(repeating: 0xEE, count: 10)
        try Data(patched).write(to: file)
        _ = try FileEditor.openRecovered(path: other.path)
        #expect([UInt8](try Data(contentsOf: file)) == original)
        #expect(EditJournal.decode(batch, names: ["Song.bin"]) == nil, "not under a file name")
    }
}
