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
    /// The window: bytes `windowStart ..< windowStart + windowCount` of the file.
    private var window: [UInt8]
    private var windowStart: Int64 = 0
    private var windowCount = 0
    /// Small on purpose: most reads are box, frame and chunk headers close to
    /// each other, and a bigger window only copies bytes nobody asked for.
    static let windowSize = 4 * 1024

    /// Opens `url` for reading.
    public convenience init(url: URL) throws {
        try self.init(path: url.path)
    }

    /// Opens the file at `path` for reading.
    public init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot open: \(String(cString: strerror(errno)))", path: path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw MediaError(.io, "cannot stat: \(reason)", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw MediaError(.io, "not a regular file", path: path)
        }
        size = Int64(info.st_size)
        snapshot = FileSnapshot(info)
        window = [UInt8](repeating: 0, count: Self.windowSize)
    }

    deinit { close(descriptor) }

    /// Throws `truncated` unless `count` bytes exist at `offset`.
    public func require(_ offset: Int64, _ count: Int64, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw MediaError(.truncated, "\(what()) needs \(count) bytes but the file ends at byte \(size)", offset: offset)
        }
    }

    /// Reads exactly `count` bytes at `offset`; throws `truncated` past the end.
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try require(offset, Int64(count), "read")
        if count == 0 { return [] }
        if offset >= windowStart, offset + Int64(count) <= windowStart + Int64(windowCount) {
            let start = Int(offset - windowStart)
            return Array(window[start..<start + count])
        }
        if count > Self.windowSize / 2 {
            return try readDirect(at: offset, count: count)
        }
        let length = Int(min(Int64(Self.windowSize), size - offset))
        try window.withUnsafeMutableBytes { raw in
            try fill(raw.baseAddress!, count: length, at: offset)
        }
        windowStart = offset
        windowCount = length
        return Array(window[0..<count])
    }

    /// Reads up to `count` bytes at `offset`, fewer at the end of the file.
    public func readAvailable(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset < size else { return [] }
        return try read(at: offset, count: Int(min(Int64(count), size - offset)))
    }

    /// A ``ByteReader`` over `count` bytes at `offset`.
    public func reader(at offset: Int64, count: Int) throws -> ByteReader {
        ByteReader(try read(at: offset, count: count), fileOffset: offset)
    }

    private func readDirect(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(buffer.baseAddress!, count: count, at: offset)
            initialized = count
        }
    }

    /// Reads exactly `count` bytes at `offset` into `destination`.
    private func fill(_ destination: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws {
        var done = 0
        while done < count {
            let got = pread(descriptor, destination + done, count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                throw MediaError(.io, "read failed: \(String(cString: strerror(errno)))", offset: offset + Int64(done), path: path)
            }
            if got == 0 {
                throw MediaError(.truncated, "file ended while reading (it may have shrunk)", offset: offset + Int64(done), path: path)
            }
            done += got
        }
    }
}
