import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// A writable file in a folder that can't be written — what a sandboxed app
/// (iOS, the Mac App Store) holds when handed a file without its folder: the
/// save goes in place with its journal in the store outside the folder, or
/// is refused before anything is written. The folder is made mode 0555; as
/// root (which writes there anyway) the folder probe is bound to say so.
@Suite struct UnwritableFolderTests {
    let original: [UInt8] = (0..<8192).map { UInt8($0 % 251) }

    /// A file holding ``original`` in a new folder of mode 0555.
    func makeFile() throws -> URL {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("song.bin")
        try Data(original).write(to: url)
        try #require(chmod(directory.path, 0o555) == 0)
        return url
    }

    func cleanUp(_ url: URL) {
        chmod(url.deletingLastPathComponent().path, 0o755)
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    /// Runs `body` with the folder probe saying what mode 0555 says to a
    /// user that is not root.
    func withReadOnlyFolders<Value>(_ body: () throws -> Value) rethrows -> Value {
        guard getuid() == 0 else { return try body() }
        return try FileEditor.$isFolderWritable.withValue({ !$0.contains("/mdkit-tests-") }, operation: body)
    }

    func entries(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
    }

    @Test func theDecisionNeedsAStoreOnDiskOnTheFilesVolumeOnlyWithFsync() {
        typealias E = FileEditor
        #expect(E.refusalWithoutFolder(durability: .noSync, store: (1, false), fileDevice: 2) == nil, "without fsync: any store")
        #expect(E.refusalWithoutFolder(durability: .noSync, store: nil, fileDevice: 2)?.contains("no journal folder") == true)
        #expect(E.refusalWithoutFolder(durability: .full, store: (2, true), fileDevice: 2) == nil, "Darwin: on disk, same volume")
        #expect(E.refusalWithoutFolder(durability: .full, store: (2, false), fileDevice: 2)?.contains("RAM") == true, "Linux: /dev/shm")
        #expect(E.refusalWithoutFolder(durability: .full, store: (1, true), fileDevice: 2)?.contains("another volume") == true)
        #expect(E.refusalWithoutFolder(durability: .full, store: nil, fileDevice: 2) != nil)
    }

    @Test(.enabled(if: Capabilities.journalStoreElsewhere, "needs the journal store outside the folder (/dev/shm)"))
    func withoutFsyncASameSizeChangeIsMadeInPlaceWithTheJournalElsewhere() throws {
        let url = try makeFile()
        defer { cleanUp(url) }
        try withReadOnlyFolders {
            #expect(!FileEditor.isFolderWritable(url.deletingLastPathComponent().path))
            var editor = FileEditor()
            editor.durability = .noSync
            var sawJournal = false, elsewhere: [UInt8]?
            let snapshot = try FileSource(url: url).snapshot
            let journal = try #require(ElsewhereJournalStore.shared).path(device: snapshot.device, inode: snapshot.inode)
            try editor.apply(.inPlace([(offset: 100, bytes: [1, 2, 3])]), to: url, expecting: snapshot) { _ in
                sawJournal = try entries(url) != ["song.bin"]
                elsewhere = FileManager.default.contents(atPath: journal).map { [UInt8]($0) }
            }
            #expect(!sawJournal, "nothing beside the file while it was checked")
            let written = try #require(elsewhere, "the journal was in the store outside the folder")
            #expect(EditJournal(decoding: written)?.regions.first?.bytes == Array(original[100..<103]))
            #expect(!FileManager.default.fileExists(atPath: journal), "and removed after the save")
            #expect(editor.recorder.path == .inPlace)
        }
        var expected = original
        expected[100..<103] = [1, 2, 3]
        #expect([UInt8](try Data(contentsOf: url)) == expected)
        #expect(try entries(url) == ["song.bin"])
    }

    /// A layout change is made as a tail replacement in place (the file keeps
    /// its inode), never through a temporary file beside it.
    @Test(.enabled(if: Capabilities.journalStoreElsewhere, "needs the journal store outside the folder (/dev/shm)"))
    func withoutFsyncALayoutChangeIsATailReplacementInPlace() throws {
        let url = try makeFile()
        defer { cleanUp(url) }
        let inode = try #require(Platform.identity(ofFileAt: url.path)).inode
        try withReadOnlyFolders {
            var editor = FileEditor()
            editor.durability = .noSync
            editor.inPlaceTailLimit = 0 // would be a temporary file in a writable folder
            editor.allowsInsertion = false
            let plan = FileEditPlan.rewrite([.bytes([9, 9, 9]), .original(offset: 0, length: 8192)])
            try editor.apply(plan, to: url, expecting: try FileSource(url: url).snapshot) { _ in }
            #expect(editor.recorder.path == .inPlace)
        }
        #expect([UInt8](try Data(contentsOf: url)) == [9, 9, 9] + original)
        #expect(Platform.identity(ofFileAt: url.path)?.inode == inode)
        #expect(try entries(url) == ["song.bin"])
    }

    /// With fsync the store must outlive a power cut on the file's volume;
    /// Linux's is RAM, so the save is refused and the file untouched.
    @Test func withFsyncAndTheStoreInRAMTheSaveIsRefusedBeforeAnythingIsWritten() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let mp3 = directory.appendingPathComponent("song.mp3")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: mp3)
        try #require(chmod(directory.path, 0o555) == 0)
        defer { cleanUp(mp3) }
        let before = try Data(contentsOf: mp3)
        var item = try await MediaItem.loaded(mp3)
        item.metadata.title = "Refused"
        let probe: @Sendable (String) -> Bool = { getuid() == 0 ? $0 != directory.path : Platform.canCreateFiles(in: $0) }
        await FileEditor.$isFolderWritable.withValue(probe) {
            let error = await #expect(throws: MediaError.self) { try await item.save() }
            #expect(error?.code == .readOnly)
            #expect(error?.reason.contains("folder can't be written") == true && error?.reason.contains("nothing was written") == true)
        }
        #expect(try Data(contentsOf: mp3) == before)
        #expect(try entries(mp3) == ["song.mp3"])
    }

    /// A batch with fsync saves such a file on its own, through the same
    /// path (refused here: Linux's store is RAM), and the others as a batch.
    @Test func aBatchSavesAFileInAnUnwritableFolderOnItsOwn() throws {
        let url = try makeFile()
        defer { cleanUp(url) }
        let writable = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: writable) }
        let others = ["a.bin", "b.bin"].map { writable.appendingPathComponent($0) }
        for other in others { try Data(original).write(to: other) }
        let folder = url.deletingLastPathComponent().path
        let results = try FileEditor.$isFolderWritable.withValue({ $0 != folder }) {
            let edits = try ([url] + others).map { file in
                FileEditor.BatchEdit<Void>(
                    plan: .inPlace([(offset: 0, bytes: [7])]), url: file, snapshot: try FileSource(url: file).snapshot, verify: { _ in })
            }
            return FileEditor().applyBatch(edits)
        }
        #expect(throws: MediaError.self) { try results[0].get() }
        #expect((try? results[1].get()) != nil && (try? results[2].get()) != nil)
        #expect([UInt8](try Data(contentsOf: url)) == original)
        #expect(try others.allSatisfy { try Data(contentsOf: $0).first == 7 })
        #expect(try entries(url) == ["song.bin"])
    }

    // MARK: Recovery from the store outside the folder

    /// A file an interrupted save left half-patched, with the journal that
    /// save left in `store` (as a killed process would).
    func leaveInterruptedSave(in store: ElsewhereJournalStore, journal: [UInt8]? = nil) throws -> (URL, damaged: [UInt8], journal: String) {
        let url = try makeFile()
        let snapshot = try FileSource(url: url).snapshot
        var damaged = original
        damaged[10..<14] = [0xFF, 0xFF, 0xFF, 0xFF]
        // The folder is mode 0555: the half-done patch is written through the file itself.
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(damaged + [1, 2, 3, 4]))
        try handle.close()
        let path = store.path(device: snapshot.device, inode: snapshot.inode)
        let bytes = journal ?? EditJournal(fileSize: 8192, regions: [(offset: 10, bytes: Array(original[10..<14]))]).encoded()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (url, damaged + [1, 2, 3, 4], path)
    }

    @Test(.enabled(if: Capabilities.journalStoreElsewhere, "needs the journal store outside the folder (/dev/shm)"))
    func aLoadRecoversAnInterruptedSaveFromTheStoreOutsideTheFolder() throws {
        let store = try #require(ElsewhereJournalStore.shared)
        let (url, _, journal) = try leaveInterruptedSave(in: store)
        defer { cleanUp(url) }
        _ = try FileEditor.openRecovered(path: url.path) // what every load calls first
        #expect([UInt8](try Data(contentsOf: url)) == original, "old bytes and old size back")
        #expect(!FileManager.default.fileExists(atPath: journal), "the journal is removed")
    }

    @Test(.enabled(if: Capabilities.journalStoreElsewhere, "needs the journal store outside the folder (/dev/shm)"))
    func aTornJournalOutsideTheFolderIsRemovedAndChangesNothing() throws {
        let store = try #require(ElsewhereJournalStore.shared)
        var torn = EditJournal(fileSize: 8192, regions: [(offset: 10, bytes: Array(original[10..<14]))]).encoded()
        torn[torn.count - 1] ^= 0xFF // checksum no longer matches: the patch never started
        let (url, damaged, journal) = try leaveInterruptedSave(in: store, journal: torn)
        defer { cleanUp(url) }
        _ = try FileEditor.openRecovered(path: url.path)
        #expect([UInt8](try Data(contentsOf: url)) == damaged)
        #expect(!FileManager.default.fileExists(atPath: journal))
    }

    /// A folder others may write to is not trusted: anyone could plant a
    /// journal there for a file they can't write.
    @Test func aJournalInAFolderOpenToOthersIsNotApplied() throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ElsewhereJournalStore(directory: folder.path)
        try #require(chmod(folder.path, 0o700) == 0)
        #expect(store.prepare() != nil, "the user's own folder, closed to others")
        let (url, damaged, journal) = try leaveInterruptedSave(in: store)
        defer { cleanUp(url) }
        let snapshot = try FileSource(url: url).snapshot
        try #require(chmod(folder.path, 0o777) == 0)
        #expect(store.prepare() == nil)
        #expect(try !store.recoverPending(path: url.path, device: snapshot.device, inode: snapshot.inode))
        #expect([UInt8](try Data(contentsOf: url)) == damaged && FileManager.default.fileExists(atPath: journal))
        try #require(chmod(folder.path, 0o700) == 0)
        #expect(try store.recoverPending(path: url.path, device: snapshot.device, inode: snapshot.inode))
        #expect([UInt8](try Data(contentsOf: url)) == original)
    }
}
