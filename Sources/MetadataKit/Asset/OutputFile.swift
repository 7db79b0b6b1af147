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
        try flushCopy()
        if buffer.isEmpty { bufferStart = position }
        buffer += bytes
        position += Int64(bytes.count)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        try flushCopy()
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

    /// A copy from a source file not yet done: consecutive ranges are merged.
    /// (The source is held so its descriptor stays open until the copy is done.)
    private var pendingCopy: (source: SampleDataSource, offset: Int64, count: Int64)?

    /// Appends `count` bytes of `source` from `offset`. The copy is done in the
    /// kernel (`copy_file_range`) and merged with the previous one when the
    /// ranges follow each other, so passthrough data never passes through
    /// this process's memory.
    func copy(from source: SampleDataSource, offset: Int64, count: Int64) throws {
        guard offset >= 0, count >= 0, offset <= source.fileSize, count <= source.fileSize - offset else {
            throw MediaError(.truncated, "sample of \(count) bytes runs past the end of the file", offset: offset, path: source.path)
        }
        if let pending = pendingCopy, pending.source === source, pending.offset + pending.count == offset {
            pendingCopy?.count += count
        } else {
            try flushCopy()
            try flush()
            pendingCopy = (source, offset, count)
        }
        position += count
    }

    /// Performs the pending copy.
    private func flushCopy() throws {
        guard let copy = pendingCopy else { return }
        pendingCopy = nil
        try copyRange(from: copy.source.descriptor, path: copy.source.path, offset: copy.offset, count: copy.count,
                      to: position - copy.count)
    }

    /// Copies `count` bytes at `offset` of `input` to `target` of this file:
    /// in the kernel where it can, else through a 1 MiB buffer.
    private func copyRange(from input: Int32, path source: String, offset: Int64, count: Int64, to target: Int64) throws {
        var copied: Int64 = 0
        #if os(Linux)
        while let copyFileRange = Self.copyFileRange, copied < count {
            var from = Int64(offset + copied), to = Int64(target + copied)
            let done = copyFileRange(input, &from, descriptor, &to, Int(min(count - copied, 1 << 30)), 0)
            if done < 0, errno == EINTR { continue }
            if done <= 0 { break }                       // not supported here (EXDEV, ENOSYS, …): copy below
            copied += Int64(done)
        }
        #endif
        var buffer = [UInt8](repeating: 0, count: Int(min(count - copied, 1 << 20)))
        while copied < count {
            let length = Int(min(Int64(buffer.count), count - copied))
            let got = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, length, off_t(offset + copied)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw MediaError(.io, "read failed: \(String(cString: strerror(errno)))", path: source) }
            try rawWrite(Array(buffer[0..<got]), at: target + copied)
            copied += Int64(got)
        }
    }

    #if os(Linux)
    /// `copy_file_range(2)` (glibc 2.27+), looked up at run time: Swift's Glibc
    /// module doesn't declare it.
    typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
    static let copyFileRange = cLibraryFunction("copy_file_range", as: CopyFileRange.self)
    #endif

    /// Appends `count` bytes of the file at `source` (from its start).
    func append(contentsOfFile source: String, count: Int64) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw MediaError(.io, "cannot open: \(String(cString: strerror(errno)))", path: source) }
        defer { closeDescriptor(input) }
        try flush()
        try copyRange(from: input, path: source, offset: 0, count: count, to: position)
        position += count
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
