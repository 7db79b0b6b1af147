import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Positioned, bounds-checked reads from an open file.
///
/// Reads go through one reused window buffer, so walking the headers of
/// neighbouring boxes, frames or chunks costs one `pread` per window, not one
/// per structure, and no `Data` is made per box. The file is never read as a
/// whole. A `FileSource` is used by one task at a time (it is not `Sendable`).
public final class FileSource {
    /// The file's path, for error messages.
    public let path: String
    /// The file's size in bytes when it was opened.
    public let size: Int64
    /// Size, modification time and inode when the file was opened.
    let snapshot: FileSnapshot

    private let descriptor: Int32
    /// Two windows, each holding bytes `start ..< start + count` of the file:
    /// parsers often alternate between two regions (the frames before and
    /// after a picture, the two ends of a movie box), and two windows keep
    /// both without reading either again.
    private var windows: [UInt8]
    private var windowStarts: (Int64, Int64) = (0, 0)
    private var windowCounts: (Int, Int) = (0, 0)
    /// The window to refill next (the least recently used).
    private var nextWindow = 0
    /// Small on purpose: most reads are box, frame and chunk headers close to
    /// each other, and a bigger window only copies bytes nobody asked for.
    static let windowSize = 4 * 1024
    /// Bytes before a missed read that a refilled window also holds.
    static let lookBehind = windowSize / 2

    /// Opens `url` for reading.
    public convenience init(url: URL) throws {
        try self.init(path: url.path)
    }

    /// Opens the file at `path` for reading.
    public convenience init(path: String) throws {
        try self.init(path: path, followingSymbolicLink: true)
    }

    /// Thrown by ``init(path:followingSymbolicLink:)`` when the path's last
    /// component is a symbolic link it was told not to follow.
    struct SymbolicLinkFound: Error {}

    /// Opens the file at `path`; without `followingSymbolicLink`, a symbolic
    /// link as the last component throws ``SymbolicLinkFound`` (`O_NOFOLLOW`:
    /// telling a link apart costs no extra system call).
    init(path: String, followingSymbolicLink: Bool) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC | (followingSymbolicLink ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if !followingSymbolicLink && errno == ELOOP { throw SymbolicLinkFound() }
            throw MediaError(.io, "cannot open: \(systemErrorText())", path: path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = systemErrorText()
            close(descriptor)
            throw MediaError(.io, "cannot stat: \(reason)", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw MediaError(.io, "not a regular file", path: path)
        }
        size = Int64(info.st_size)
        snapshot = FileSnapshot(info)
        // Not zeroed: a window's bytes are only read after a read filled them.
        windows = [UInt8](unsafeUninitializedCapacity: 2 * Self.windowSize) { _, count in count = 2 * Self.windowSize }
    }

    deinit { close(descriptor) }

    /// Throws `truncated` unless `count` bytes exist at `offset`.
    public func require(_ offset: Int64, _ count: Int64, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw MediaError(.truncated, "\(what()) needs \(count) bytes but the file ends at byte \(size)", offset: offset)
        }
    }

    /// Reads exactly `count` bytes at `offset`; throws `truncated` past the end.
    public func getBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        try require(offset, Int64(count), "read")
        if count == 0 { return [] }
        if count > Self.windowSize / 2, windowIndex(of: offset, count: count) == nil {
            return try getDirect(at: offset, count: count)
        }
        let start = try windowed(offset, count)
        return Array(windows[start..<start + count])
    }

    /// Calls `body` with the `count` bytes at `offset` (at most half a window)
    /// straight from the window buffer: no array is made. The bytes are only
    /// valid inside `body`.
    func withBytes<Result>(at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try require(offset, Int64(count), "read")
        precondition(count <= Self.windowSize / 2, "withBytes reads at most half a window")
        let start = try windowed(offset, count)
        return try windows.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[start..<start + count]))
        }
    }

    /// Where bytes `offset..<offset+count` start in `windows` if a window holds them.
    private func windowIndex(of offset: Int64, count: Int) -> Int? {
        let end = offset + Int64(count)
        if offset >= windowStarts.0, end <= windowStarts.0 + Int64(windowCounts.0) {
            nextWindow = 1
            return Int(offset - windowStarts.0)
        }
        if offset >= windowStarts.1, end <= windowStarts.1 + Int64(windowCounts.1) {
            nextWindow = 0
            return Self.windowSize + Int(offset - windowStarts.1)
        }
        return nil
    }

    /// The index in `windows` of the byte at `offset`, filling the least
    /// recently used window from `offset` when neither holds the `count`
    /// bytes (`count` ≤ one window, and known to be in the file).
    private func windowed(_ offset: Int64, _ count: Int) throws -> Int {
        if let start = windowIndex(of: offset, count: count) { return start }
        // The window starts a little before `offset` (parsers often step back
        // a little: the frame after a picture, just before the audio they
        // looked at first) and never wastes room past the end of the file.
        let start = max(0, min(offset - min(offset, Int64(Self.lookBehind)), size - Int64(Self.windowSize)))
        let length = Int(min(Int64(Self.windowSize), size - start))
        let base = nextWindow * Self.windowSize
        try windows.withUnsafeMutableBytes { raw in
            try fill(raw.baseAddress! + base, count: length, at: start)
        }
        if nextWindow == 0 {
            windowStarts.0 = start
            windowCounts.0 = length
        } else {
            windowStarts.1 = start
            windowCounts.1 = length
        }
        nextWindow = 1 - nextWindow
        return base + Int(offset - start)
    }

    /// Reads up to `count` bytes at `offset`, fewer at the end of the file.
    public func getAvailableBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset < size else { return [] }
        return try getBytes(at: offset, count: Int(min(Int64(count), size - offset)))
    }

    /// A ``ByteReader`` over `count` bytes at `offset`.
    public func reader(at offset: Int64, count: Int) throws -> ByteReader {
        ByteReader(try getBytes(at: offset, count: count), fileOffset: offset)
    }

    private func getDirect(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(buffer.baseAddress!, count: count, at: offset)
            initialized = count
        }
    }

    /// Reads exactly `count` bytes at `offset` into `destination`.
    private func fill(_ destination: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws {
        try readFully(descriptor, into: destination, count: count, at: offset, path: path) { [path] end in
            MediaError(.truncated, "file ended while reading (it may have shrunk)", offset: end, path: path)
        }
    }
}
