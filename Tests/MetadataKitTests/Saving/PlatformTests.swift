import Foundation
import Testing
@testable import MetadataKit

/// The portable logic of the platform layer, checked on Linux.
@Suite struct PlatformTests {
    @Test func aFullSyncFallsBackInOrderAndFailsOnlyWhenAllFail() {
        var tried: [Platform.SyncPrimitive] = []
        let fullFails = Platform.sync(7, trying: [.fullFileSync, .fileSync]) { primitive, descriptor in
            #expect(descriptor == 7)
            tried.append(primitive)
            return primitive == .fullFileSync ? -1 : 0
        }
        #expect(fullFails == 0 && tried == [.fullFileSync, .fileSync])
        tried = []
        #expect(Platform.sync(7, trying: [.fullFileSync, .fileSync]) { tried.append($0); _ = $1; return 0 } == 0)
        #expect(tried == [.fullFileSync], "a successful full sync needs no fsync")
        #expect(Platform.sync(7, trying: [.fullFileSync, .fileSync]) { _, _ in -1 } == -1)
        #if os(Linux)
        #expect(Platform.syncPrimitives == [.fileSync])
        #endif
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
    }

    @Test func symbolsAreFoundThroughTheDefaultHandle() {
        #expect(cLibraryFunction("getpid", as: (@convention(c) () -> Int32).self)?() == getpid())
        #expect(cLibraryFunction("no_such_function_mdkit", as: (@convention(c) () -> Int32).self) == nil)
        #if os(Linux)
        #expect(Platform.syncFileSystem != nil, "syncfs is in glibc")
        #expect(Platform.volatileFolder == "/dev/shm")
        #endif
    }

    /// A layout change goes through a temporary file renamed over the
    /// original: the original's extended attributes must come along.
    @Test func aRewriteKeepsExtendedAttributes() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.bin")
        try Data((0..<4096).map { UInt8($0 % 251) }).write(to: url)
        let value: [UInt8] = Array("green, work".utf8)
        let set = cLibraryFunction("setxattr", as: (@convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32).self)
        let get = cLibraryFunction("getxattr", as: (@convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int).self)
        let (setxattr, getxattr) = try (#require(set), #require(get))
        try #require(setxattr(url.path, "user.mdkit.tags", value, value.count, 0) == 0,
                     "the test folder's file system must take user xattrs (\(systemErrorText()))")
        let snapshot = try FileSource(url: url).snapshot
        var editor = FileEditor()
        editor.inPlaceTailLimit = 0
        try editor.apply(.rewrite([.bytes([9]), .original(offset: 0, length: 4096)]), to: url, expecting: snapshot) { _ in }
        #expect(try FileSource(url: url).snapshot.inode != snapshot.inode, "the save went through a temporary file")
        var back = [UInt8](repeating: 0, count: 64)
        let length = getxattr(url.path, "user.mdkit.tags", &back, back.count)
        #expect(length == value.count && Array(back.prefix(max(length, 0))) == value)
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
