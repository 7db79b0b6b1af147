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

/// Positioned reads of sample data through one reused read-ahead buffer.
///
/// Consecutive samples of a chunk are served from the buffer; a sample
/// outside it refills the buffer with at most ``readAhead`` bytes starting at
/// that sample (more only when the sample itself is larger). Memory use is
/// this buffer, whatever the size of the file. Thread-safe.
final class SampleDataSource: @unchecked Sendable {
    static let readAhead = 128 * 1024
    let path: String
    let descriptor: Int32
    let fileSize: Int64
    private let lock = Lock()
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0
    private var bufferCount = 0
    private var counter: Int64 = 0

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) // a FIFO at the path: no wait for a writer
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot open: \(systemErrorText())", path: path)
        }
        var info = stat()
        fstat(descriptor, &info)
        fileSize = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Bytes read from the file so far (for tests and statistics).
    var bytesRead: Int64 { lock.withLock { counter } }

    /// Bytes the read-ahead buffer holds room for: all the memory this
    /// source keeps, whatever the size of the file (for tests).
    var bufferCapacity: Int { lock.withLock { buffer.count } }

    func getBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= fileSize, Int64(count) <= fileSize - offset else {
            throw MediaError(
                .truncated, "sample of \(count) bytes runs past the end of the file (\(fileSize) bytes)", offset: offset, path: path)
        }
        if count == 0 { return [] }
        return try lock.withLock {
            if offset < bufferStart || offset + Int64(count) > bufferStart + Int64(bufferCount) {
                let length = Int(min(Int64(max(count, Self.readAhead)), fileSize - offset))
                if buffer.count < length { buffer = [UInt8](repeating: 0, count: length) }
                try buffer.withUnsafeMutableBytes { raw in
                    try readFully(descriptor, into: raw.baseAddress!, count: length, at: offset, path: path) { [path] end in
                        MediaError(.io, "read failed: the file ended early", offset: end, path: path)
                    }
                }
                counter += Int64(length)
                bufferStart = offset
                bufferCount = length
            }
            let start = Int(offset - bufferStart)
            return Array(buffer[start..<start + count])
        }
    }
}
