import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

/// Saves that insert blocks (``SavePath/insertion``) on ext4 (/tmp here), the
/// fallbacks where the file system can't (tmpfs: /dev/shm) or a test hook
/// forbids them, failures at every step, and recovery after a crash.
@Suite struct InsertionEditorTests {
    static let block: Int64 = 4096
    /// Not a multiple of the block size.
    let original: [UInt8] = (0..<(3 * 4096 + 123)).map { UInt8($0 % 251) }

    /// A plan that grows bytes 100..<200 to 4,196 bytes: the tail from 200
    /// moves up by exactly one block.
    var plan: FileEditPlan {
        .rewrite([
            .original(offset: 0, length: 100), .bytes([UInt8](repeating: 0xAB, count: 4196)),
            .original(offset: 200, length: Int64(original.count) - 200),
        ])
    }
    var expected: [UInt8] { Array(original[..<100]) + [UInt8](repeating: 0xAB, count: 4196) + original[200...] }

    func makeFile(in folder: String? = nil) throws -> (URL, FileSnapshot, URL) {
        let directory: URL
        if let folder {
            directory = URL(fileURLWithPath: folder).appendingPathComponent("mdkit-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        } else {
            directory = try TestSupport.makeTemporaryDirectory()
        }
        let url = directory.appendingPathComponent("file.bin")
        try Data(original).write(to: url)
        return (url, try FileSource(url: url).snapshot, directory)
    }

    func contents(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }
    func inode(_ url: URL) -> UInt64 {
        var info = stat()
        return stat(url.path, &info) == 0 ? UInt64(info.st_ino) : 0
    }
    func strayFiles(beside url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0 != url.lastPathComponent }
    }
    var editor: FileEditor {
        var editor = FileEditor()
        editor.insertionMinimumTail = 0
        return editor
    }
    /// Whether the file system under /tmp inserts blocks (ext4, XFS).
    static let canInsert: Bool = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mdkit-probe-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        defer {
            close(descriptor)
            unlink(path)
        }
        _ = ftruncate(descriptor, 2 * off_t(block))
        return Platform.insertRange(descriptor, at: 0, length: block) == 0
    }()

    @Test(.enabled(if: canInsert, "the temporary folder's file system can't insert blocks"))
    func growingInsertsBlocksAndKeepsTheInode() throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = inode(url)
        let editor = editor
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == .insertion)
        #expect(try contents(url) == expected)
        #expect(inode(url) == before)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test(.enabled(if: Capabilities.shmFolder, "needs a writable tmpfs at /dev/shm (Linux), which can't insert blocks"))
    func onTmpfsTheSaveFallsBackToARewrite() throws {
        let (url, snapshot, directory) = try makeFile(in: "/dev/shm")
        defer { try? FileManager.default.removeItem(at: directory) }
        let editor = editor
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == .rewrite)
        #expect(try contents(url) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    /// Without the capability (Darwin; bound here on Linux) the save that
    /// would insert on ext4 is a rewrite that writes and syncs no journal:
    /// a failure injected at the journal's write or sync is never reached.
    @Test(
        .enabled(if: canInsert, "the temporary folder's file system can't insert blocks"),
        arguments: [FileEditor.Step.journalWrite, .journalSync])
    func withoutTheInsertionCapabilityNoJournalIsWritten(step: FileEditor.Step) throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var withCapability = editor
        withCapability.failingStep = step
        #expect(throws: MediaError.self, "with the capability the journal step is reached") {
            try withCapability.apply(plan, to: url, expecting: snapshot) { _ in }
        }
        try FileEditor.$insertsBlocks.withValue(false) {
            var editor = editor
            editor.failingStep = step
            #expect(!editor.allowsInsertion)
            try editor.apply(plan, to: url, expecting: snapshot) { _ in }
            #expect(editor.recorder.path == .rewrite)
        }
        #expect(try contents(url) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    /// Where whole files clone (Darwin's `fclonefileat` on APFS; a copying
    /// stand-in here), the temporary file starts as a clone: the runs that
    /// keep their offset are not written again, the rest is, and the size is
    /// set. A plan that moves every run doesn't clone.
    @Test func aRewriteStartsFromAWholeFileCloneWhereRunsStayInPlace() throws {
        let (url, _, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var clones = 0
        var editor = editor
        editor.allowsInsertion = false
        editor.inPlaceTailLimit = 0
        editor.wholeFileClone = { source, path in
            clones += 1
            let target = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
            guard target >= 0 else { return -1 }
            defer { close(target) }
            var info = stat()
            fstat(source, &info)
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
            _ = pread(source, &bytes, bytes.count, 0)
            return pwrite(target, bytes, bytes.count, 0) == bytes.count ? 0 : -1
        }
        let count = Int64(original.count)
        let plans: [(FileEditPlan, [UInt8], Bool)] = [
            // A changed middle, same size: head and tail stay in place.
            (
                .rewrite([
                    .original(offset: 0, length: 1000), .bytes([UInt8](repeating: 7, count: 10)),
                    .original(offset: 1010, length: count - 1010),
                ]),
                Array(original[..<1000]) + [UInt8](repeating: 7, count: 10) + original[1010...], true
            ),
            // A shrinking tail: the clone is cut to the new size.
            (.rewrite([.original(offset: 0, length: 2000), .bytes([1, 2, 3])]), Array(original[..<2000]) + [1, 2, 3], true),
            // Everything moves: no clone.
            (.rewrite([.bytes([9, 9]), .original(offset: 0, length: count)]), [9, 9] + original, false),
        ]
        for (plan, expected, clone) in plans {
            try Data(original).write(to: url)
            let snapshot = try FileSource(url: url).snapshot
            let before = clones
            try editor.apply(plan, to: url, expecting: snapshot) { _ in }
            #expect(try contents(url) == expected)
            #expect((clones > before) == clone)
            #expect(editor.recorder.path == (clone ? .cloneRewrite : .rewrite))
            #expect(try strayFiles(beside: url).isEmpty)
        }
    }

    @Test(arguments: [(false, true, true), (false, false, true), (false, false, false)])
    func testHooksForceEachFallback(insertion: Bool, clone: Bool, kernelCopy: Bool) throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var editor = editor
        editor.allowsInsertion = insertion
        editor.allowsClone = clone
        editor.allowsKernelCopy = kernelCopy
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        // ext4 can't clone: a rewrite either way (cloneRewrite on btrfs and XFS).
        #expect(editor.recorder.path == .rewrite || editor.recorder.path == .cloneRewrite)
        #expect(try contents(url) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test(
        .enabled(if: canInsert, "the temporary folder's file system can't insert blocks"),
        arguments: [FileEditor.Step.journalWrite, .journalSync, .insert, .patchWrite, .dataSync])
    func aFailureAtAnyStepLeavesTheOriginal(step: FileEditor.Step) throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var editor = editor
        editor.failingStep = step
        #expect(throws: MediaError.self) { try editor.apply(plan, to: url, expecting: snapshot) { _ in } }
        #expect(try contents(url) == original, "step \(step)")
        #expect(try strayFiles(beside: url).isEmpty, "step \(step)")
    }

    @Test(.enabled(if: canInsert, "the temporary folder's file system can't insert blocks"))
    func aFailedCheckRemovesTheInsertedSpace() throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: MediaError.self) {
            try editor.apply(plan, to: url, expecting: snapshot) { _ in throw MediaError(.malformed, "bad box") }
        }
        #expect(error?.code == .verificationFailed)
        #expect(try contents(url) == original)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    /// What a crash leaves: the journal, the space inserted, and the new
    /// bytes not written (`written == false`) or written.
    @Test(.enabled(if: canInsert, "the temporary folder's file system can't insert blocks"), arguments: [false, true])
    func recoveryCollapsesTheInsertedSpace(written: Bool) throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let descriptor = open(url.path, O_RDWR)
        defer { close(descriptor) }
        let insertion = try #require(try editor.insertionForm(of: plan, size: snapshot.size, in: descriptor, url: url))
        #expect(insertion.offset == 0 && insertion.length == Self.block && insertion.writeOffset == 0)
        let cut = Int(insertion.offset - insertion.writeOffset)
        let collapsed = Array(insertion.bytes[..<cut]) + insertion.bytes[(cut + Int(insertion.length))...]
        let journal = EditJournal(
            fileSize: snapshot.size, regions: [(insertion.writeOffset, insertion.old)],
            written: [(insertion.writeOffset, collapsed)], insertion: (insertion.offset, insertion.length))
        #expect(EditJournal(decoding: journal.encoded()) == journal)
        try Data(journal.encoded()).write(to: EditJournal.url(for: url))
        #expect(Platform.insertRange(descriptor, at: insertion.offset, length: insertion.length) == 0)
        if written { try FileIO.write(descriptor, insertion.bytes, at: insertion.writeOffset, url: url) }
        try FileEditor.recoverIfNeeded(at: url)
        #expect(try contents(url) == original)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test func aShiftThatIsNotWholeBlocksIsRewritten() throws {
        let (url, snapshot, directory) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let odd = FileEditPlan.rewrite([
            .original(offset: 0, length: 100), .bytes([1, 2, 3]),
            .original(offset: 100, length: Int64(original.count) - 100),
        ])
        let editor = editor
        try editor.apply(odd, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == .rewrite)
        #expect(try contents(url) == Array(original[..<100]) + [1, 2, 3] + original[100...])
    }
}
