import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// The editor's short cuts: merged patches and small layout changes done in
/// place without fsync. Each must give the same file, and the same safety, as
/// the long way.
@Suite struct FileEditorSpeedPathTests {
    let original: [UInt8] = (0..<8192).map { UInt8(($0 * 7) % 251) }

    func makeFile(_ bytes: [UInt8]? = nil) throws -> (URL, FileSnapshot) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.bin")
        try Data(bytes ?? original).write(to: url)
        return (url, try FileSource(url: url).snapshot)
    }

    func contents(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    func inode(_ url: URL) throws -> UInt64 {
        try FileSource(url: url).snapshot.inode
    }

    var noSync: FileEditor {
        var editor = FileEditor()
        editor.durability = .noSync
        return editor
    }

    @Test func nearbyPatchesMergeAndUnchangedOnesAreDropped() throws {
        let (url, snapshot) = try makeFile()
        let patches: [(offset: Int64, bytes: [UInt8])] = [
            (offset: 100, bytes: [1, 2]), (offset: 300, bytes: [3]), (offset: 90, bytes: [4, 4, 4, 4, 4]),
            (offset: 92, bytes: [5]), // overlaps the one before: applied after it
            (offset: 5000, bytes: Array(original[5000..<5010])), // changes nothing
            (offset: 8000, bytes: [6]),
        ]
        let descriptor = open(url.path, O_RDONLY)
        defer { close(descriptor) }
        let (originals, writes) = try FileEditor.journaledWrites(of: patches, newSize: nil, in: descriptor, size: 8192, url: url)
        #expect(writes.map(\.offset) == [90, 8000], "90...300 merged, the unchanged patch dropped")
        #expect(originals.map(\.offset) == [90, 8000])
        #expect(originals[0].bytes == Array(original[90..<301]))

        try FileEditor().apply(.inPlace(patches), to: url, expecting: snapshot) { _ in }
        var expected = original
        expected[90..<95] = [4, 4, 5, 4, 4]
        expected[100..<102] = [1, 2]
        expected[300] = 3
        expected[8000] = 6
        #expect(try contents(url) == expected)
    }

    @Test func aPatchThatChangesNothingLeavesTheFileUntouched() throws {
        let (url, snapshot) = try makeFile()
        try FileEditor().apply(.inPlace([(offset: 10, bytes: Array(original[10..<20]))]), to: url, expecting: snapshot) { _ in
            Issue.record("nothing was written, so nothing is checked")
        }
        #expect(try FileSource(url: url).snapshot == snapshot, "not even the modification time changed")
    }

    @Test func aSmallLayoutChangeWithoutSyncIsDoneInPlace() throws {
        let (url, snapshot) = try makeFile()
        let inode = try inode(url)
        // A tag that grows by 100 bytes at offset 16: everything after it moves.
        let plan = FileEditPlan.rewrite([
            .original(offset: 0, length: 16), .bytes(Array(repeating: 0xAB, count: 116)),
            .original(offset: 32, length: 8160),
        ])
        try noSync.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(try contents(url) == Array(original[..<16]) + Array(repeating: 0xAB, count: 116) + Array(original[32...]))
        #expect(try self.inode(url) == inode, "same inode: written in place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["file.bin"])
    }

    @Test(arguments: [FileEditor.Step.journalWrite, .patchWrite, .dataSync])
    func aFailedSmallLayoutChangeLeavesTheOriginal(step: FileEditor.Step) throws {
        let (url, snapshot) = try makeFile()
        var editor = noSync
        editor.failingStep = step
        let plan = FileEditPlan.rewrite([.bytes([1, 2, 3]), .original(offset: 0, length: 8192)])
        #expect(throws: MediaError.self) { try editor.apply(plan, to: url, expecting: snapshot) { _ in } }
        #expect(try contents(url) == original, "step \(step)")
        // A failed check also puts back the old tail and size.
        #expect(throws: MediaError.self) {
            try noSync.apply(plan, to: url, expecting: snapshot) { _ in throw MediaError(.malformed, "bad") }
        }
        #expect(try contents(url) == original)
    }

    @Test func aLayoutChangeWithSyncOrOfMoreThanTheLimitGoesThroughATemporaryFile() throws {
        let (url, snapshot) = try makeFile()
        let inode = try inode(url)
        let plan = FileEditPlan.rewrite([.bytes([1]), .original(offset: 0, length: 8192)])
        try FileEditor().apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(try contents(url) == [1] + original)
        #expect(try self.inode(url) != inode, "fsync: rewritten")

        let big = [UInt8](repeating: 3, count: Int(FileEditor.smallTailLimit) + 1)
        let (large, largeSnapshot) = try makeFile(big)
        let largeInode = try self.inode(large)
        try noSync.apply(
            .rewrite([.bytes([1]), .original(offset: 0, length: Int64(big.count))]), to: large,
            expecting: largeSnapshot
        ) { _ in }
        #expect(try contents(large) == [1] + big)
        #expect(try self.inode(large) != largeInode, "a tail over the limit: rewritten")
    }

    /// In a batch, a small layout change made in place whose check fails gets
    /// its old tail and size back from the batch journal; the other file keeps
    /// its change.
    @Test func aBatchRestoresASmallLayoutChangeWhoseCheckFails() throws {
        let (first, firstSnapshot) = try makeFile()
        let (second, secondSnapshot) = try makeFile()
        let plan = FileEditPlan.rewrite([.original(offset: 0, length: 100), .bytes([1, 2, 3]), .original(offset: 100, length: 8092)])
        let results = FileEditor().applyBatch([
            FileEditor.BatchEdit(plan: plan, url: first, snapshot: firstSnapshot, verify: { _ in throw MediaError(.malformed, "bad") }),
            FileEditor.BatchEdit(plan: plan, url: second, snapshot: secondSnapshot, verify: { _ in }),
        ])
        #expect((try? results[0].get()) == nil && (try? results[1].get()) != nil)
        #expect(try contents(first) == original)
        #expect(try contents(second) == Array(original[..<100]) + [1, 2, 3] + Array(original[100...]))
    }

    /// Journals store fingerprints: the function must not change between
    /// versions (a journal left by a crash is read by the next version), and
    /// must see every byte.
    @Test func fingerprintsAreStableAndSeeEveryByte() {
        let bytes = (0..<100).map { UInt8($0 * 7 % 256) }
        let pinned = [Fingerprint.of([UInt8]()), Fingerprint.of(Array(bytes[..<3])), Fingerprint.of(bytes)]
        #expect(pinned == [0xEF7289FC8777A981, 0x87E3D07750E9849B, 0xE3195D22CAE5A7C8])
        var seen: Set<UInt64> = [Fingerprint.of(bytes)]
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 1
            seen.insert(Fingerprint.of(changed))
        }
        seen.insert(Fingerprint.of(bytes + [0]))
        #expect(seen.count == bytes.count + 2, "every one-bit change and a trailing zero change the fingerprint")
    }

    @Test func divergenceSkipsTheUnchangedStart() {
        let plan = FileEditPlan.rewrite([
            .original(offset: 0, length: 10), .original(offset: 10, length: 5),
            .bytes([1]), .original(offset: 15, length: 100),
        ])
        let found = plan.divergence()
        #expect(found?.offset == 15 && found?.rest.count == 2)
        #expect(FileEditPlan.rewrite([.original(offset: 5, length: 10)]).divergence()?.offset == 0)
        #expect(FileEditPlan.inPlace([]).divergence() == nil)
    }

    /// A save without fsync keeps its journal beside the file, as every
    /// save does, while the file is patched and checked, and removes it after.
    @Test func aSaveWithoutFsyncJournalsBesideTheFile() throws {
        let (url, snapshot) = try makeFile()
        let journal = EditJournal.path(for: url.path, inode: snapshot.inode)
        var seen: [UInt8]?
        try noSync.apply(.inPlace([(offset: 5, bytes: [0xAA, 0xBB])]), to: url, expecting: snapshot) { _ in
            seen = FileManager.default.contents(atPath: journal).map { [UInt8]($0) }
        }
        let written = try #require(seen, "no journal beside the file while it was checked")
        #expect(EditJournal.decode(written, fileName: url.lastPathComponent)?.regions.first?.bytes == Array(original[5..<7]))
        #expect(try contents(url)[5..<7] == [0xAA, 0xBB])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["file.bin"])
    }
}
