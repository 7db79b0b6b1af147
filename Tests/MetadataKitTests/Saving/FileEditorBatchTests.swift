import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

@Suite struct FileEditorBatchTests {
    let original: [UInt8] = (0..<4096).map { UInt8($0 % 251) }

    func makeFiles(_ count: Int) throws -> [(URL, FileSnapshot)] {
        try TestSupport.makeFiles(count, holding: original)
    }

    func plans() -> [FileEditPlan] {
        [
            .inPlace([(offset: 10, bytes: [1, 2, 3])]), .rewrite([.bytes([9]), .original(offset: 0, length: 4096)]),
            .tail(offset: 4000, bytes: [7, 7]),
        ]
    }

    @Test(arguments: [FileEditor.smallTailLimit, 0])
    func aBatchAppliesEveryPlanAndLeavesNothingBehind(tailLimit: Int64) throws {
        let files = try makeFiles(3)
        let inode = try FileSource(url: files[1].0).snapshot.inode
        var editor = FileEditor()
        editor.durability = .full
        editor.inPlaceTailLimit = tailLimit
        let results = editor.applyBatch(
            zip(files, plans()).map { file, plan in
                FileEditor.BatchEdit(plan: plan, url: file.0, snapshot: file.1, verify: { _ in })
            })
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        var patched = original
        patched[10...12] = [1, 2, 3]
        #expect([UInt8](try Data(contentsOf: files[0].0)) == patched)
        #expect([UInt8](try Data(contentsOf: files[1].0)) == [9] + original)
        #expect(
            try (FileSource(url: files[1].0).snapshot.inode == inode) == (tailLimit > 0),
            "a small rewrite is done in place (the old tail in the batch journal), else through a temporary file")
        #expect([UInt8](try Data(contentsOf: files[2].0)) == Array(original[..<4000]) + [7, 7])
        let directory = files[0].0.deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["file0.bin", "file1.bin", "file2.bin"])
    }

    /// `journalSync` and `dataSync` are the batch's file-system syncs: a
    /// failed `syncfs` fails the saves it should have made durable.
    @Test(arguments: [FileEditor.Step.journalWrite, .journalSync, .temporaryWrite, .patchWrite, .dataSync, .rename])
    func aFailingStepLeavesThoseFilesAsTheyWere(step: FileEditor.Step) throws {
        let files = try makeFiles(3)
        var editor = FileEditor()
        editor.failingStep = step
        if step == .temporaryWrite || step == .rename {
            editor.inPlaceTailLimit = 0 // the rewrite goes through a temporary file
        }
        let results = editor.applyBatch(
            zip(files, plans()).map { file, plan in
                FileEditor.BatchEdit(plan: plan, url: file.0, snapshot: file.1, verify: { _ in })
            })
        for (file, result) in zip(files, results) where (try? result.get()) == nil {
            #expect([UInt8](try Data(contentsOf: file.0)) == original, "\(file.0.lastPathComponent) after \(step)")
        }
        #expect(results.contains { (try? $0.get()) == nil }, "the injected failure must fail some save")
        let directory = files[0].0.deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 3, "stray files after \(step)")
    }

    @Test func aFailedCheckRestoresOnlyThatFile() throws {
        let files = try makeFiles(2)
        let results = FileEditor().applyBatch([
            FileEditor.BatchEdit(
                plan: .inPlace([(offset: 0, bytes: [0xEE])]), url: files[0].0, snapshot: files[0].1,
                verify: { _ in
                    throw MediaError(.malformed, "bad")
                }),
            FileEditor.BatchEdit(plan: .inPlace([(offset: 0, bytes: [0xEE])]), url: files[1].0, snapshot: files[1].1, verify: { _ in }),
        ])
        #expect((try? results[0].get()) == nil && (try? results[1].get()) != nil)
        #expect([UInt8](try Data(contentsOf: files[0].0)) == original)
        #expect([UInt8](try Data(contentsOf: files[1].0)).first == 0xEE)
    }
}
