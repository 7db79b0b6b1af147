#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every call that differs between Linux and Darwin (macOS, iOS), with both
/// branches side by side, so the rest of the library has no `#if os(...)`.
///
/// The Darwin branches have been neither compiled nor run on a Mac (the
/// project is built on Linux; `.github/workflows/macos.yml` has not run
/// yet): they follow Apple's man pages and headers (`fcntl(2)` `F_FULLFSYNC`,
/// `copyfile(3)`, `confstr(3)` `_CS_DARWIN_USER_TEMP_DIR`, `dlsym(3)`
/// `RTLD_DEFAULT`). The README's "Apple platforms" section lists them.
package enum Platform {
    // MARK: Durability

    /// The ways to make a file's written bytes durable, strongest first.
    enum SyncPrimitive: String, Sendable, CaseIterable {
        /// Darwin `fcntl(F_FULLFSYNC)`: the data reaches the drive's platters,
        /// past its cache. Plain `fsync` on Darwin doesn't flush that cache.
        case fullFileSync
        /// POSIX `fsync`: on Linux it flushes the drive's cache too.
        case fileSync
    }

    /// The primitives a durable sync tries on this system, in order.
    static var syncPrimitives: [SyncPrimitive] {
        #if canImport(Darwin)
            [.fullFileSync, .fileSync] // F_FULLFSYNC fails on some file systems (e.g. SMB): fsync then
        #else
            [.fileSync]
        #endif
    }

    /// Makes what was written to `descriptor` durable; 0 on success, else -1
    /// with `errno` set by the last primitive tried.
    package static func sync(_ descriptor: Int32) -> Int32 {
        sync(descriptor, trying: syncPrimitives, with: call)
    }

    /// Makes the written bytes of `descriptor` durable, and of its metadata
    /// only what reading them back needs (size, block map), not its times:
    /// Linux `fdatasync(2)`, which spares a journal commit when only the
    /// modification time changed (a same-size patch); Darwin as ``sync(_:)``.
    /// For files whose bytes, not their name or permissions, changed.
    package static func syncData(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            sync(descriptor)
        #else
            fdatasync(descriptor)
        #endif
    }

    /// Tries `primitives` in order until one succeeds; a primitive's failure
    /// moves on to the next only when it says the call is not supported on
    /// this file (``isUnsupported(_:)``, e.g. `F_FULLFSYNC` on SMB): any other
    /// error (`EIO`: the bytes did not reach the disk) is the answer, with
    /// `errno` as that primitive left it. The order and the fallback are the
    /// portable logic, tested with a stand-in `call` that sets `errno`.
    static func sync(
        _ descriptor: Int32, trying primitives: [SyncPrimitive],
        with call: (SyncPrimitive, Int32) -> Int32
    ) -> Int32 {
        for primitive in primitives {
            if call(primitive, descriptor) == 0 { return 0 }
            let error = errno
            guard isUnsupported(error) else { return -1 }
            errno = error
        }
        return -1
    }

    /// Whether a sync primitive's `errno` means "not supported here" (the
    /// next primitive may work), not a failure of the sync itself:
    /// `ENOTSUP`/`EOPNOTSUPP`, `EINVAL` (a file system without the call) and
    /// `ENOTTY` (a descriptor that is not a file on some network file systems).
    static func isUnsupported(_ error: Int32) -> Bool {
        error == ENOTSUP || error == EOPNOTSUPP || error == EINVAL || error == ENOTTY
    }

    private static func call(_ primitive: SyncPrimitive, _ descriptor: Int32) -> Int32 {
        switch primitive {
        case .fullFileSync:
            #if canImport(Darwin)
                return fcntl(descriptor, F_FULLFSYNC)
            #else
                errno = EINVAL
                return -1
            #endif
        case .fileSync:
            return fsync(descriptor)
        }
    }

    /// `syncfs(2)`: one call makes everything written to a file system
    /// durable. Linux only (looked up at run time: Swift's Glibc module
    /// doesn't declare it); nil on Darwin, whose `sync(2)` returns before the
    /// data is written, so batches there sync file by file instead.
    package static let syncFileSystem: (@convention(c) (Int32) -> Int32)? = {
        #if canImport(Darwin)
            nil
        #else
            cLibraryFunction("syncfs", as: (@convention(c) (Int32) -> Int32).self)
        #endif
    }()

    /// The text of a NUL-terminated C string in a buffer (`confstr`,
    /// `getcwd`), as UTF-8 up to the first NUL (the whole buffer when it has
    /// none). `String(cString:)` on an array is deprecated in Swift 6.
    static func decodeCString(_ buffer: [CChar]) -> String {
        // truncatingIfNeeded: CChar is Int8 on Darwin and x86 Linux, UInt8 on ARM Linux.
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
    }

    // MARK: File identity

    /// A `stat` device number as an unsigned 64-bit value: Darwin's `dev_t`
    /// is a signed 32-bit integer (a negative one would trap in `UInt64(_:)`),
    /// Linux's an unsigned 64-bit one. Converted through its bit pattern.
    package static func deviceNumber<Device: BinaryInteger>(_ device: Device) -> UInt64 {
        let value = UInt64(truncatingIfNeeded: device)
        return device.bitWidth >= 64 ? value : value & ((1 << UInt64(device.bitWidth)) - 1)
    }

    /// True when `a` and `b` name the same file: the same device and inode
    /// (symlinks followed). Paths can't tell: on a case-insensitive volume
    /// (APFS, HFS+ by default) `Song.m4a` and `song.m4a` are one file, and
    /// hard links are one file under two names. False when either is missing.
    package static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return deviceNumber(first.st_dev) == deviceNumber(second.st_dev) && first.st_ino == second.st_ino
    }

    /// ``isSameFile(_:_:)`` for file URLs, which are first compared as
    /// standardized paths (the same spelling is the same file, without a
    /// `stat`, also when it is gone). For "is this picture from this file".
    package static func isSameFile(_ a: URL, _ b: URL) -> Bool {
        a == b || a.standardizedFileURL.path == b.standardizedFileURL.path || isSameFile(a.path, b.path)
    }

    /// The device and inode of the file at `path` (symlinks followed); nil
    /// when it can't be `stat`ed.
    package static func identity(ofFileAt path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (deviceNumber(info.st_dev), UInt64(info.st_ino))
    }

    /// The file's last modification time.
    package static func modificationTime(_ info: stat) -> timespec {
        #if canImport(Darwin)
            info.st_mtimespec
        #else
            info.st_mtim
        #endif
    }

    /// The file's last status change time.
    static func changeTime(_ info: stat) -> timespec {
        #if canImport(Darwin)
            info.st_ctimespec
        #else
            info.st_ctim
        #endif
    }

    /// Whether this process may create files in `folder` (`access(2)`
    /// `W_OK | X_OK`: permissions, a read-only volume, and on Darwin the
    /// sandbox, which answers `access` as it answers `open`). A sandboxed app
    /// (iOS, the Mac App Store) can be handed a file — a security-scoped URL
    /// from a document picker — without its folder.
    package static func canCreateFiles(in folder: String) -> Bool {
        access(folder.isEmpty ? "." : folder, W_OK | X_OK) == 0
    }

    /// Whether ``journalFolderElsewhere`` is on disk, so that a journal
    /// synced there survives a power cut: Darwin's per-user temporary folder
    /// is; Linux's `/dev/shm` is RAM.
    package static var journalFolderElsewhereIsOnDisk: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    // MARK: Symbols, folders

    /// `dlsym`'s handle for "search every loaded image": `RTLD_DEFAULT`, which
    /// Swift doesn't import (a macro). It is 0 in glibc and -2 on Darwin.
    static var defaultSymbolHandle: UnsafeMutableRawPointer? {
        #if canImport(Darwin)
            UnsafeMutableRawPointer(bitPattern: -2)
        #else
            UnsafeMutableRawPointer(bitPattern: 0)
        #endif
    }

    /// Where journals go of saves whose own folder can't be written (a
    /// sandboxed app's file): a folder that outlives the process that writes
    /// there. Linux: the RAM file system `/dev/shm` (it does not outlive the
    /// machine, so only saves without fsync may use it). Darwin: the per-user
    /// temporary folder (`confstr(_CS_DARWIN_USER_TEMP_DIR)`, on disk; the
    /// app's own in a sandbox). Nil when the folder can't be written: such
    /// saves are then refused.
    package static let journalFolderElsewhere: String? = {
        #if canImport(Darwin)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
            guard confstr(_CS_DARWIN_USER_TEMP_DIR, &buffer, buffer.count) > 0 else { return nil }
            var folder = decodeCString(buffer)
            while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        #else
            let folder = "/dev/shm"
        #endif
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, access(folder, W_OK) == 0 else { return nil }
        return folder
    }()
}
