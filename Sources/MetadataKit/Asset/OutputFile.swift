import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file being written: sequential writes, patches, and removal on failure.
final class OutputFile {
    let path: String
    private var descriptor: Int32
    private(set) var position: Int64 = 0

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot create: \(String(cString: strerror(errno)))", path: path)
        }
    }

    deinit { if descriptor >= 0 { closeDescriptor(descriptor) } }

    /// Sequential writes are gathered here and written 1 MiB at a time.
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0

    /// Appends `bytes` at ``position``.
    func write(_ bytes: [UInt8]) throws {
        if buffer.isEmpty { bufferStart = position }
        buffer += bytes
        position += Int64(bytes.count)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try rawWrite(buffer, at: bufferStart)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` at `offset` now (pending sequential writes first).
    func write(_ bytes: [UInt8], at offset: Int64) throws {
        try flush()
        try rawWrite(bytes, at: offset)
    }

    private func rawWrite(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let wrote = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if wrote < 0, errno == EINTR { continue }
                guard wrote > 0 else {
                    throw MediaError(.io, "write failed: \(String(cString: strerror(errno)))", offset: offset + Int64(done), path: path)
                }
                done += wrote
            }
        }
    }

    /// Appends `count` bytes of the file at `source`, through a 1 MiB buffer.
    func append(contentsOfFile source: String, count: Int64) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw MediaError(.io, "cannot open: \(String(cString: strerror(errno)))", path: source) }
        defer { closeDescriptor(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var copied: Int64 = 0
        while copied < count {
            let length = Int(min(Int64(buffer.count), count - copied))
            let got = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, length, off_t(copied)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw MediaError(.io, "read failed: \(String(cString: strerror(errno)))", path: source) }
            try write(Array(buffer[0..<got]))
            try flush()
            copied += Int64(got)
        }
    }

    func close() throws {
        guard descriptor >= 0 else { return }
        try flush()
        let result = closeDescriptor(descriptor)
        descriptor = -1
        guard result == 0 else { throw MediaError(.io, "close failed: \(String(cString: strerror(errno)))", path: path) }
    }

    func closeAndRemove() {
        if descriptor >= 0 { closeDescriptor(descriptor); descriptor = -1 }
        unlink(path)
    }
}

/// `close(2)`, under a name the methods called `close` don't hide.
@discardableResult
func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
