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

/// A file being written: sequential writes, copies from other files,
/// patches, and removal on failure.
///
/// Copies pass through this process only where the kernel can't make them
/// (``copy(from:offset:count:)``, ``KernelCopier``).
final class OutputFile {
    let path: String
    private var descriptor: Int32
    private(set) var position: Int64 = 0
    /// Makes the copies it can in the kernel.
    private let kernel: KernelCopier

    /// Creates (or truncates) the file at `path`. With `kernelCopies` off,
    /// copies go through a buffer with `pread`/`pwrite` (for tests of that path).
    init(path: String, kernelCopies: Bool = true) throws {
        self.path = path
        kernel = KernelCopier(isEnabled: kernelCopies)
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot create: \(systemErrorText())", path: path)
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
        if buffer.count >= 1 << 20 { try flushBuffer() }
    }

    /// Writes everything still gathered: bytes and copies.
    func flush() throws {
        try flushCopy()
        try kernel.drain(into: descriptor, path: path)
        try flushBuffer()
    }

    private func flushBuffer() throws {
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
        try bytes.withUnsafeBytes { try writeFully(descriptor, $0, at: offset, path: path) }
    }

    /// A copy from a source file not yet done: consecutive ranges are merged.
    /// (The source is held so its descriptor stays open until the copy is done.)
    private var pendingCopy: (source: SampleDataSource, offset: Int64, count: Int64)?

    /// Appends `count` bytes of `source` from `offset`, merged with the
    /// previous copy when the ranges follow each other. The ``KernelCopier``
    /// copies what it can without the bytes passing through this process.
    func copy(from source: SampleDataSource, offset: Int64, count: Int64) throws {
        guard offset >= 0, count >= 0, offset <= source.fileSize, count <= source.fileSize - offset else {
            throw MediaError(.truncated, "sample of \(count) bytes runs past the end of the file", offset: offset, path: source.path)
        }
        if let pending = pendingCopy, pending.source === source, pending.offset + pending.count == offset {
            pendingCopy?.count += count
        } else {
            try flushCopy()
            try flushBuffer()
            pendingCopy = (source, offset, count)
        }
        position += count
    }

    /// Hands the pending copy on (to the pipe, or done now).
    private func flushCopy() throws {
        guard let copy = pendingCopy else { return }
        pendingCopy = nil
        try copyRange(
            from: copy.source.descriptor, path: copy.source.path, offset: copy.offset, count: copy.count,
            to: position - copy.count)
    }

    /// Copies `count` bytes at `offset` of `input` to `target` of this file:
    /// in the kernel where it can, else through a 1 MiB buffer.
    private func copyRange(from input: Int32, path source: String, offset: Int64, count: Int64, to target: Int64) throws {
        var copied = try kernel.copy(from: input, offset: offset, count: count, to: descriptor, at: target, path: path)
        var buffer = [UInt8](repeating: 0, count: Int(min(count - copied, 1 << 20)))
        while copied < count {
            let length = Int(min(Int64(buffer.count), count - copied))
            let got = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, length, off_t(offset + copied)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw MediaError(.io, "read failed: \(systemErrorText())", path: source) }
            try rawWrite(Array(buffer[0..<got]), at: target + copied)
            copied += Int64(got)
        }
    }

    /// Appends `count` bytes of the file at `source` (from its start).
    func append(contentsOfFile source: String, count: Int64) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK) // a FIFO at the path: no wait for a writer
        guard input >= 0 else { throw MediaError(.io, "cannot open: \(systemErrorText())", path: source) }
        defer { closeDescriptor(input) }
        try flush()
        try copyRange(from: input, path: source, offset: 0, count: count, to: position)
        position += count
    }

    func close() throws {
        guard descriptor >= 0 else { return }
        try flush()
        kernel.close()
        let result = closeDescriptor(descriptor)
        descriptor = -1
        guard result == 0 else { throw MediaError(.io, "close failed: \(systemErrorText())", path: path) }
    }

    func closeAndRemove() {
        kernel.close()
        pendingCopy = nil
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
        unlink(path)
    }
}
