import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitBytes
@testable import MetadataKitSaving

/// The portable logic of the platform layer, checked on Linux.
@Suite struct PlatformTests {
    @Test func aFullSyncFallsBackInOrderAndFailsOnlyWhenAllFail() {
        var tried: [Platform.SyncPrimitive] = []
        let fullFails = Platform.sync(7, trying: [.fullFileSync, .fileSync]) { primitive, descriptor in
            #expect(descriptor == 7)
            tried.append(primitive)
            if primitive == .fullFileSync { errno = ENOTSUP }
            return primitive == .fullFileSync ? -1 : 0
        }
        #expect(fullFails == 0 && tried == [.fullFileSync, .fileSync])
        tried = []
        #expect(
            Platform.sync(7, trying: [.fullFileSync, .fileSync]) {
                tried.append($0)
                _ = $1
                return 0
            } == 0)
        #expect(tried == [.fullFileSync], "a successful full sync needs no fsync")
        #expect(
            Platform.sync(7, trying: [.fullFileSync, .fileSync]) { _, _ in
                errno = EINVAL
                return -1
            } == -1)
        #expect(Platform.sync(7, trying: []) { _, _ in 0 } == -1, "nothing tried is no sync")
        #if canImport(Darwin)
            #expect(Platform.syncPrimitives == [.fullFileSync, .fileSync], "F_FULLFSYNC first, fsync where it is refused")
        #else
            #expect(Platform.syncPrimitives == [.fileSync])
        #endif
    }

    /// Only "not supported here" moves on to plain fsync: an `EIO` from
    /// `F_FULLFSYNC` (the bytes did not reach the disk) is the answer, with
    /// its errno, not hidden by an fsync that succeeds.
    @Test func aFullSyncFallsBackOnlyWhereItIsUnsupported() {
        for unsupported in [ENOTSUP, EOPNOTSUPP, EINVAL, ENOTTY] {
            var tried: [Platform.SyncPrimitive] = []
            let result = Platform.sync(3, trying: [.fullFileSync, .fileSync]) { primitive, _ in
                tried.append(primitive)
                if primitive == .fileSync { return 0 }
                errno = unsupported
                return -1
            }
            #expect(result == 0 && tried == [.fullFileSync, .fileSync], "errno \(unsupported) falls back")
        }
        for failure in [EIO, ENOSPC, EBADF] {
            var tried: [Platform.SyncPrimitive] = []
            let result = Platform.sync(3, trying: [.fullFileSync, .fileSync]) { primitive, _ in
                tried.append(primitive)
                if primitive == .fileSync { return 0 }
                errno = failure
                return -1
            }
            let reported = errno
            #expect(result == -1 && tried == [.fullFileSync], "errno \(failure) is the answer")
            #expect(reported == failure, "errno stays the full sync's")
        }
    }

    /// A C string in a buffer (Darwin's `confstr`) ends at its first NUL;
    /// bytes past it, and non-ASCII names, decode as they should.
    @Test func cStringBuffersDecodeUpToTheirFirstNul() {
        let bytes = Array("/var/folders/x/Müsik/".utf8).map { CChar(bitPattern: $0) }
        #expect(Platform.decodeCString(bytes + [0, 65, 66, 0]) == "/var/folders/x/Müsik/")
        #expect(Platform.decodeCString(bytes) == "/var/folders/x/Müsik/", "no NUL: the whole buffer")
        #expect(Platform.decodeCString([0, 65]) == "")
        #expect(Platform.decodeCString([]) == "")
    }

    @Test func realSyncsSucceedOnAFileAndFailOnABadDescriptor() throws {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("f")
        try Data([1, 2, 3]).write(to: url)
        let descriptor = open(url.path, O_RDWR)
        defer { close(descriptor) }
        #expect(Platform.sync(descriptor) == 0)
        #expect(Platform.sync(-1) == -1)
    }

    @Test func deviceNumbersConvertThroughTheirBitPattern() {
        #expect(Platform.deviceNumber(Int32(-1)) == 0xFFFF_FFFF, "Darwin's dev_t is Int32")
        #expect(Platform.deviceNumber(Int32(0x0100_0004)) == 0x0100_0004)
        #expect(Platform.deviceNumber(UInt64.max) == UInt64.max, "Linux's dev_t is UInt64")
        #expect(Platform.deviceNumber(UInt(2049)) == 2049)
        #expect(Platform.deviceNumber(Int32.min) == 0x8000_0000 && Platform.deviceNumber(Int32.max) == 0x7FFF_FFFF)
        #expect(Platform.deviceNumber(UInt32.max) == 0xFFFF_FFFF)
        var info = stat()
        #expect(stat("/", &info) == 0)
        #if canImport(Darwin)
            #expect(Platform.deviceNumber(info.st_dev) == UInt64(UInt32(bitPattern: info.st_dev)), "Darwin's own dev_t (Int32)")
        #else
            #expect(Platform.deviceNumber(info.st_dev) == UInt64(info.st_dev), "Linux's own dev_t (UInt64)")
        #endif
    }

    @Test func symbolsAreFoundThroughTheDefaultHandle() {
        #expect(cLibraryFunction("getpid", as: (@convention(c) () -> Int32).self)?() == getpid())
        #expect(cLibraryFunction("no_such_function_mdkit", as: (@convention(c) () -> Int32).self) == nil)
        #if os(Linux)
            #expect(Platform.syncFileSystem != nil, "syncfs is in glibc")
        #else
            #expect(Platform.syncFileSystem == nil, "Darwin's sync(2) returns before the data is written: no syncfs")
        #endif
    }

    @Test(
        .enabled(
            if: Capabilities.journalStoreElsewhere, "needs the journal folder elsewhere (/dev/shm; Darwin: the per-user temporary folder)"))
    func theJournalFolderElsewhereIsTheSystemsRAMOrTemporaryFolder() throws {
        let folder = try #require(Platform.journalFolderElsewhere)
        #if os(Linux)
            #expect(folder == "/dev/shm")
        #else
            #expect(folder != "/dev/shm" && !folder.hasSuffix("/"), "the per-user temporary folder, without its trailing slash")
        #endif
        #expect(access(folder, W_OK) == 0)
    }

    /// A layout change goes through a temporary file renamed over the
    /// original: the original's extended attributes must come along.
    @Test func aRewriteKeepsExtendedAttributes() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.bin")
        try Data((0..<4096).map { UInt8($0 % 251) }).write(to: url)
        let value: [UInt8] = Array("green, work".utf8)
        try #require(
            Self.setAttribute(url.path, "user.mdkit.tags", value) == 0,
            "the test folder's file system must take user xattrs (\(systemErrorText()))")
        let snapshot = try FileSource(url: url).snapshot
        var editor = FileEditor()
        editor.inPlaceTailLimit = 0
        try editor.apply(.rewrite([.bytes([9]), .original(offset: 0, length: 4096)]), to: url, expecting: snapshot) { _ in }
        #expect(try FileSource(url: url).snapshot.inode != snapshot.inode, "the save went through a temporary file")
        #expect(Self.attribute(url.path, "user.mdkit.tags") == value)
    }

    /// Every attribute comes along: several, an empty one, a large one; a
    /// file without any gives none and reports no failure.
    @Test func extendedAttributesAreCopiedBetweenDescriptors() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source").path, target = directory.appendingPathComponent("target").path
        try Data([1]).write(to: URL(fileURLWithPath: source))
        try Data([2]).write(to: URL(fileURLWithPath: target))
        let attributes: [(String, [UInt8])] = [
            ("user.mdkit.a", Array("first".utf8)), ("user.mdkit.empty", []),
            ("user.mdkit.large", (0..<3000).map { UInt8($0 % 256) }),
        ]
        for (name, value) in attributes {
            try #require(
                Self.setAttribute(source, name, value) == 0, "the test folder's file system must take user xattrs (\(systemErrorText()))")
        }
        let from = open(source, O_RDONLY), to = open(target, O_RDWR)
        defer {
            close(from)
            close(to)
        }
        #expect(Platform.copyExtendedAttributes(from: from, to: to) == [])
        for (name, value) in attributes {
            #expect(Self.attribute(target, name) == value, "\(name)")
        }
        // Nothing to copy back the other way but what is there; a bare file gives nothing.
        let bare = directory.appendingPathComponent("bare").path, other = directory.appendingPathComponent("other").path
        try Data([3]).write(to: URL(fileURLWithPath: bare))
        try Data([4]).write(to: URL(fileURLWithPath: other))
        let bareDescriptor = open(bare, O_RDONLY), otherDescriptor = open(other, O_RDWR)
        defer {
            close(bareDescriptor)
            close(otherDescriptor)
        }
        #expect(Platform.copyExtendedAttributes(from: bareDescriptor, to: otherDescriptor) == [])
        #expect(Self.attribute(other, "user.mdkit.a") == nil)
    }

    /// Sets the extended attribute `name` of the file at `path`; 0 on success.
    /// (Darwin's calls take a position and options; glibc's are looked up at
    /// run time, since Swift's Glibc module doesn't declare `sys/xattr.h`.)
    static func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) -> Int32 {
        #if canImport(Darwin)
            return setxattr(path, name, value, value.count, 0, 0)
        #else
            typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
            guard let set = cLibraryFunction("setxattr", as: Set.self) else { return -1 }
            return set(path, name, value, value.count, 0)
        #endif
    }

    /// The extended attribute `name` of the file at `path`; nil when it has none.
    static func attribute(_ path: String, _ name: String) -> [UInt8]? {
        var value = [UInt8](repeating: 0, count: 65536)
        #if canImport(Darwin)
            let length = getxattr(path, name, &value, value.count, 0, 0)
        #else
            typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
            guard let get = cLibraryFunction("getxattr", as: Get.self) else { return nil }
            let length = get(path, name, &value, value.count)
        #endif
        return length < 0 ? nil : Array(value.prefix(length))
    }

    /// Same-file detection by device and inode: what a path comparison
    /// misses (hard links here; case-insensitive names on APFS).
    @Test func sameFilesAreToldByInode() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("Song.m4a").path
        let other = directory.appendingPathComponent("other.m4a").path
        try Data([1]).write(to: URL(fileURLWithPath: file))
        try Data([1]).write(to: URL(fileURLWithPath: other))
        let hardLink = directory.appendingPathComponent("hard.m4a").path
        let symlink = directory.appendingPathComponent("soft.m4a").path
        #expect(link(file, hardLink) == 0 && Foundation.symlink(file, symlink) == 0)
        #expect(Platform.isSameFile(file, hardLink) && Platform.isSameFile(symlink, file))
        #expect(Platform.isSameFile(file, directory.appendingPathComponent("./Song.m4a").path))
        #expect(!Platform.isSameFile(file, other), "same bytes, another file")
        #expect(!Platform.isSameFile(file, directory.appendingPathComponent("missing.m4a").path))
        // Another case: the same file on a case-insensitive volume (APFS's default), another name elsewhere.
        let otherCase = directory.appendingPathComponent("song.m4a").path
        #expect(Platform.isSameFile(file, otherCase) == FileManager.default.fileExists(atPath: otherCase))
    }

    /// An export whose output is the input under another name is refused
    /// before anything is written.
    @Test func anExportOverItsInputUnderAnotherNameIsRefused() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let input = directory.appendingPathComponent("in.m4a")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"), to: input)
        let alias = directory.appendingPathComponent("alias.m4a")
        #expect(link(input.path, alias.path) == 0)
        let before = try Data(contentsOf: input)
        let session = ExportSession(asset: try await Asset.load(url: input))
        session.outputURL = alias
        await #expect(throws: MediaError.self) { try await session.export() }
        #expect(try Data(contentsOf: input) == before)
    }
}
