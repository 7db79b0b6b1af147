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

/// Standard output, buffered in one reused array and written with `write(2)`:
/// long outputs (`read --json` of a library) are written as they are
/// assembled, without joining the pieces into one array or copying them into
/// a `Data` first.
struct StandardOutput {
    private var buffer: [UInt8] = []
    /// Bytes gathered before a write.
    static let chunkSize = 64 * 1024
    /// False once a write failed (a closed pipe, a full disk): later bytes are dropped.
    private(set) var isWritable = true

    init() { buffer.reserveCapacity(Self.chunkSize) }

    /// Appends `bytes`, writing out what was gathered when the buffer is full.
    mutating func append(_ bytes: [UInt8]) {
        if buffer.count + bytes.count > Self.chunkSize { flush() }
        if bytes.count >= Self.chunkSize {
            Self.writeAll(bytes, &isWritable)
        } else {
            buffer += bytes
        }
    }

    /// Appends the UTF-8 bytes of `text`.
    mutating func append(_ text: String) { append(Array(text.utf8)) }

    /// Writes out what was gathered.
    mutating func flush() {
        Self.writeAll(buffer, &isWritable)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes all of `bytes` to standard output; clears `isWritable` when a write fails.
    private static func writeAll(_ bytes: [UInt8], _ isWritable: inout Bool) {
        guard isWritable else { return }
        isWritable = bytes.withUnsafeBytes { StandardStream.output.write($0) }
    }
}

/// Standard output and standard error written with `write(2)`, in place of
/// Foundation's `FileHandle` (on Linux it is in swift-corelibs-foundation's
/// `Foundation` module, which mdkit doesn't link). A failed write (a
/// closed descriptor, a full disk) drops the rest of those bytes.
enum StandardStream {
    case output
    case error

    private var descriptor: Int32 { self == .output ? 1 : 2 }

    /// Writes all of `data`, retrying short and interrupted writes.
    func write(_ data: Data) { data.withUnsafeBytes { _ = write($0) } }

    /// Writes all of `bytes`, retrying short and interrupted writes; false
    /// when a write failed (the rest is dropped).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// Everything on standard input, to its end.
    static func readInput() -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: chunk[..<count])
        }
    }
}

/// `write(2)` (a name of its own: ``StandardStream/write(_:)`` hides it there).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, bytes, count) }
