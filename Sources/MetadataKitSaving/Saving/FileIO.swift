import MetadataKitBytes

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

/// The system calls the save layer makes on files, each turning a failure
/// into a ``MediaError`` naming the file: opening, positioned reads and
/// writes (retried when interrupted or short), creating a file, renaming, and
/// durable syncs. The editor, the journal and the journal stores all go
/// through these.
package enum FileIO {
    /// Opens the file at `url` (`O_CLOEXEC` added); `readOnly` when the
    /// system refuses for permissions or a read-only volume, else `io`.
    package static func open(_ url: URL, flags: Int32) throws -> Int32 {
        let descriptor = posixOpen(url.path, flags | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: MediaError.Code = (errno == EACCES || errno == EROFS || errno == EPERM) ? .readOnly : .io
            throw MediaError(code, "cannot open for \(flags & O_RDWR != 0 ? "writing" : "reading"): \(systemErrorText())", path: url.path)
        }
        return descriptor
    }

    /// Exactly `count` bytes at `offset`; the file ending first is an `io` error.
    package static func read(_ descriptor: Int32, at offset: Int64, count: Int, url: URL) throws -> [UInt8] {
        guard count > 0 else { return [] }
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(into: buffer.baseAddress!, count: count, from: descriptor, at: offset, url: url)
            initialized = count
        }
    }

    /// Reads `count` bytes at `offset` into the start of `buffer`.
    package static func read(into buffer: inout [UInt8], count: Int, from descriptor: Int32, at offset: Int64, url: URL) throws {
        try buffer.withUnsafeMutableBytes { raw in
            try read(into: raw.baseAddress!, count: count, from: descriptor, at: offset, url: url)
        }
    }

    /// Reads `count` bytes at `offset` to `destination`; the URL's path (slow
    /// to make) is made only for an error.
    private static func read(
        into destination: UnsafeMutableRawPointer, count: Int, from descriptor: Int32, at offset: Int64, url: URL
    ) throws {
        try readFully(descriptor, into: destination, count: count, at: offset, path: url.path) { end in
            MediaError(.io, "the file ended early", offset: end, path: url.path)
        }
    }

    /// Writes all of `bytes` at `offset`.
    package static func write<Bytes: Collection>(_ descriptor: Int32, _ bytes: Bytes, at offset: Int64, url: URL) throws
    where Bytes.Element == UInt8 {
        let written: Void? = try bytes.withContiguousStorageIfAvailable {
            try writeFully(descriptor, UnsafeRawBufferPointer($0), at: offset, path: url.path)
        }
        if written != nil { return }
        try Array(bytes).withUnsafeBytes { try writeFully(descriptor, $0, at: offset, path: url.path) }
    }

    /// Creates (or empties) the file at `url`, mode 0600, holding `bytes`.
    static func createFile(_ url: URL, holding bytes: [UInt8]) throws {
        let descriptor = posixOpen(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(
                errno == EACCES || errno == EROFS || errno == EPERM ? .readOnly : .io,
                "cannot create \(url.lastPathComponent): \(systemErrorText())", path: url.path)
        }
        defer { close(descriptor) }
        try write(descriptor, bytes, at: 0, url: url)
    }

    /// Renames `from` over `to` (atomic within a file system).
    package static func rename(_ from: String, over to: String) throws {
        guard posixRename(from, to) == 0 else {
            throw MediaError(.io, "cannot rename the new file into place: \(systemErrorText())", path: to)
        }
    }

    /// Puts the finished file at `temporary` in place as `destination` the
    /// way a save does: syncs its bytes, renames it over `destination`, syncs
    /// the folder (the new name becomes durable); ``Platform/sync(_:)``, so
    /// `F_FULLFSYNC` on Darwin. `sync` syncs a path (tests record the calls).
    /// A failure before the rename leaves `destination` as it was (the caller
    /// removes `temporary`); a failed folder sync after it is an `io` error
    /// saying a crash may undo the new file.
    package static func replaceDurably(
        _ temporary: String, as destination: String, sync: (String) throws -> Void = { try FileIO.sync(path: $0) }
    ) throws {
        try sync(temporary)
        try rename(temporary, over: destination)
        let folder = URL(fileURLWithPath: destination, isDirectory: false).deletingLastPathComponent().path
        do {
            try sync(folder)
        } catch let error as MediaError {
            throw MediaError(
                .io, "the file was written, but a sync after it failed (\(error.reason)); a crash may undo it", path: destination)
        }
    }

    /// Makes what was written to `descriptor` durable (``Platform/sync(_:)``).
    package static func sync(_ descriptor: Int32, path: String) throws {
        guard Platform.sync(descriptor) == 0 else { throw MediaError(.io, "fsync failed: \(systemErrorText())", path: path) }
    }

    /// Makes the bytes written to `descriptor` durable, with the size and
    /// block map but not the times (``Platform/syncData(_:)``).
    static func syncData(_ descriptor: Int32, path: String) throws {
        guard Platform.syncData(descriptor) == 0 else { throw MediaError(.io, "fdatasync failed: \(systemErrorText())", path: path) }
    }

    /// Syncs the file or folder at `path`.
    package static func sync(path: String) throws {
        let descriptor = posixOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError(.io, "cannot open for sync: \(systemErrorText())", path: path) }
        defer { close(descriptor) }
        try sync(descriptor, path: path)
    }

    /// Syncs the folder holding `url` (a new, renamed or removed entry in it
    /// becomes durable).
    static func syncFolder(of url: URL) throws {
        try sync(path: url.deletingLastPathComponent().path)
    }
}

// Unambiguous names for the C functions that Foundation shadows.
@inline(__always) private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
@inline(__always) private func posixRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to)
}
