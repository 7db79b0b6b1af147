import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

/// The clone fallback (``SavePath/cloneRewrite``): a save that can't insert
/// blocks writes the temporary file by sharing the original's blocks
/// (`FICLONERANGE`) where the file system can. ext4 and tmpfs can't: there
/// the clone attempt must fail cleanly and the save copy the bytes instead.
/// On a loop-mounted btrfs or XFS (``Capabilities/loopBtrfs``,
/// ``Capabilities/loopXFS``: root and mkfs) the clone is really taken.
@Suite struct CloneFallbackTests {
    let plan = InsertionEditorTests().plan
    let original = InsertionEditorTests().original
    let expected = InsertionEditorTests().expected

    func makeFile(in directory: URL) throws -> (URL, FileSnapshot) {
        let url = directory.appendingPathComponent("file.bin")
        try Data(original).write(to: url)
        return (url, try FileSource(url: url).snapshot)
    }

    func strayFiles(beside url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0 != url.lastPathComponent }
    }

    /// Whether `FICLONERANGE` works between two files of `directory`, and the errno when it doesn't.
    static func cloneProbe(in directory: URL) throws -> (works: Bool, error: Int32) {
        let source = directory.appendingPathComponent("probe-source").path, target = directory.appendingPathComponent("probe-target").path
        try Data(repeating: 7, count: 2 * 4096).write(to: URL(fileURLWithPath: source))
        let input = open(source, O_RDONLY), output = open(target, O_RDWR | O_CREAT, 0o600)
        defer {
            close(input)
            close(output)
            unlink(source)
            unlink(target)
        }
        let result = Platform.cloneRange(from: input, at: 0, length: 2 * 4096, to: output, at: 0)
        return (result == 0, result == 0 ? 0 : errno)
    }

    /// The test hook forbids insertion; the editor tries a clone. On the
    /// temporary folder's file system (ext4 here: it can't clone) the attempt
    /// fails with an errno that means "not here", nothing is left half-made,
    /// and the save copies the bytes (``SavePath/rewrite``).
    @Test func whereTheFileSystemCantCloneTheAttemptFailsCleanlyAndTheSaveCopies() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = try Self.cloneProbe(in: directory)
        if !probe.works {
            #expect([EOPNOTSUPP, EXDEV, EINVAL, ENOTTY, ENOSYS].contains(probe.error), "errno \(probe.error)")
        }
        let (url, snapshot) = try makeFile(in: directory)
        var editor = FileEditor()
        editor.insertionMinimumTail = 0
        editor.allowsInsertion = false
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == (probe.works ? .cloneRewrite : .rewrite))
        #expect(try [UInt8](Data(contentsOf: url)) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    /// On btrfs (no insertion) and XFS (insertion forbidden by the hook) the
    /// temporary file shares the payload's blocks; a shift that is not whole
    /// blocks can't share them and is copied.
    @Test(.enabled(if: Capabilities.loopBtrfs, "needs a loop-mounted btrfs (root, mkfs.btrfs)"))
    func onBtrfsTheTemporaryFileSharesThePayload() throws {
        try savesByCloning(on: "btrfs")
    }

    @Test(.enabled(if: Capabilities.loopXFS, "needs a loop-mounted XFS (root, mkfs.xfs)"))
    func onXFSTheTemporaryFileSharesThePayload() throws {
        try savesByCloning(on: "xfs")
    }

    func savesByCloning(on type: String) throws {
        let mount = try LoopMount(type: type)
        defer { mount.remove() }
        let probe = try Self.cloneProbe(in: mount.mountPoint)
        #expect(probe.works, "FICLONERANGE on \(type): errno \(probe.error)")
        let (url, snapshot) = try makeFile(in: mount.mountPoint)
        var editor = FileEditor()
        editor.insertionMinimumTail = 0
        editor.allowsInsertion = type == "btrfs" // btrfs can't insert: the attempt falls through by itself
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == .cloneRewrite)
        #expect(try [UInt8](Data(contentsOf: url)) == expected)
        #expect(try strayFiles(beside: url).isEmpty)

        let odd = FileEditPlan.rewrite([
            .original(offset: 0, length: 100), .bytes([1, 2, 3]),
            .original(offset: 100, length: Int64(expected.count) - 100),
        ])
        let snapshot2 = try FileSource(url: url).snapshot
        try editor.apply(odd, to: url, expecting: snapshot2) { _ in }
        #expect(editor.recorder.path == .rewrite)
        #expect(try [UInt8](Data(contentsOf: url)) == Array(expected[..<100]) + [1, 2, 3] + expected[100...])
        #expect(try strayFiles(beside: url).isEmpty)
    }

    /// XFS inserts blocks like ext4.
    @Test(.enabled(if: Capabilities.loopXFS, "needs a loop-mounted XFS (root, mkfs.xfs)"))
    func onXFSTheSaveInsertsBlocks() throws {
        let mount = try LoopMount(type: "xfs")
        defer { mount.remove() }
        let (url, snapshot) = try makeFile(in: mount.mountPoint)
        var editor = FileEditor()
        editor.insertionMinimumTail = 0
        try editor.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(editor.recorder.path == .insertion)
        #expect(try [UInt8](Data(contentsOf: url)) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }
}
