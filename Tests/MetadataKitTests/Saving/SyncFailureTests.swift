import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// Every failed sync is an error, on every path — also the syncs made after
/// the file changed (the folder after a rename, a journal's removal): the
/// save happened, but a crash could undo it, so it is not reported as done.
@Suite struct SyncFailureTests {
    let original: [UInt8] = (0..<4096).map { UInt8($0 % 251) }

    func makeFiles(_ count: Int) throws -> [(URL, FileSnapshot)] {
        try TestSupport.makeFiles(count, holding: original)
    }

    /// The steps that sync, per plan of a single save: each fails the save.
    @Test(arguments: [FileEditor.Step.journalSync, .dataSync, .directorySync, .temporarySync])
    func aFailedSyncFailsASingleSave(step: FileEditor.Step) throws {
        let plans: [FileEditPlan] =
            step == .temporarySync || step == .directorySync
            ? [.inPlace([(offset: 7, bytes: [0xEE])]), .rewrite([.bytes([1]), .original(offset: 0, length: 4096)])]
            : [.inPlace([(offset: 7, bytes: [0xEE])])]
        for plan in plans where !(step == .temporarySync && plan.inPlaceWrites != nil) {
            let (url, snapshot) = try makeFiles(1)[0]
            var editor = FileEditor()
            editor.failingStep = step
            let error = #expect(throws: MediaError.self, "step \(step)") {
                try editor.apply(plan, to: url, expecting: snapshot) { _ in }
            }
            #expect(error?.code == .io)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            #expect(names == [url.lastPathComponent], "no journal or temporary file left after \(step)")
        }
    }

    /// The step of the journal's removal sync runs after an in-place save
    /// without fsync too (which syncs nothing there).
    @Test func aFailedRemovalSyncFailsASaveWithoutFsyncToo() throws {
        let (url, snapshot) = try makeFiles(1)[0]
        var editor = FileEditor()
        editor.durability = .noSync
        editor.failingStep = .directorySync
        #expect(throws: MediaError.self) { try editor.apply(.inPlace([(offset: 7, bytes: [0xEE])]), to: url, expecting: snapshot) { _ in } }
        // The journal was removed: a later load finds nothing to recover.
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(names == [url.lastPathComponent])
    }

    /// The batch's last `syncfs` (the journals' removal) fails the saves
    /// whose journals it should have made durable.
    @Test(.enabled(if: Platform.syncFileSystem != nil, "needs syncfs"))
    func aFailedSyncAfterTheJournalsGoFailsThoseBatchSaves() throws {
        let files = try makeFiles(2)
        var editor = FileEditor()
        editor.failingStep = .directorySync
        let results = editor.applyBatch(
            files.map { file in
                FileEditor.BatchEdit(plan: .inPlace([(offset: 7, bytes: [0xEE])]), url: file.0, snapshot: file.1, verify: { _ in })
            })
        for result in results {
            #expect(throws: MediaError.self) { try result.get() }
        }
        let directory = files[0].0.deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["file0.bin", "file1.bin"])
    }
}
