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

/// A file's bytes, read at any position: what ``MediaItem/init(source:filename:)``
/// reads an item from when the file is not a path on disk (an archive
/// member, a download, a document provider's stream with random access).
///
/// The reader asks only for ranges inside `0..<size`, mostly small ones (box,
/// frame and chunk headers) through a few reused windows; a source need not
/// be fast at one-byte reads. Implementations: ``DataByteSource`` (bytes in
/// memory) and ``FileByteSource`` (a file on disk).
public protocol ByteSource: Sendable {
    /// The number of bytes.
    var size: Int64 { get }

    /// Exactly `count` bytes starting at `offset`; the reader asks only for
    /// `offset >= 0`, `count > 0` and `offset + count <= size`. Throws when the
    /// bytes can't be read (a ``MediaError`` or any other error, which the
    /// load reports as an `io` error).
    func read(at offset: Int64, count: Int) throws -> Data
}

/// Bytes in memory as a ``ByteSource``.
public struct DataByteSource: ByteSource {
    /// The bytes.
    public let data: Data

    /// A source reading `data`.
    public init(_ data: Data) {
        self.data = data
    }

    /// `data.count`.
    public var size: Int64 { Int64(data.count) }

    /// The `count` bytes at `offset`.
    public func read(at offset: Int64, count: Int) throws -> Data {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw MediaError(.truncated, "read of \(count) bytes past the end of \(size) bytes", offset: offset)
        }
        let start = data.startIndex + Int(offset)
        return data[start..<start + count]
    }
}

/// A file on disk as a ``ByteSource``: positioned reads (`pread`) of the file
/// opened at ``init(url:)``, which stays open until the source is released.
public final class FileByteSource: ByteSource {
    /// The file's path.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64
    private let descriptor: Int32

    /// Opens the file at `url` for reading; throws an `io` ``MediaError`` when
    /// it can't be opened or is not a regular file.
    public init(url: URL) throws {
        path = url.path
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw MediaError(.io, "cannot open: \(systemErrorText())", path: url.path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw MediaError(.io, "not a regular file", path: url.path)
        }
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// The `count` bytes at `offset`; throws `truncated` when the file ends
    /// before them (it shrank since it was opened).
    public func read(at offset: Int64, count: Int) throws -> Data {
        guard offset >= 0, count >= 0 else {
            throw MediaError(.truncated, "read of \(count) bytes at a negative offset", offset: offset, path: path)
        }
        var bytes = Data(count: count)
        try bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress, count > 0 else { return }
            try readFully(descriptor, into: base, count: count, at: offset, path: path) { [path] end in
                MediaError(.truncated, "file ended while reading (it may have shrunk)", offset: end, path: path)
            }
        }
        return bytes
    }
}
