import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file being written: sequential writes, copies from other files,
/// patches, and removal on failure.
///
/// Copies never pass through this process on Linux (``copy(from:offset:count:)``).
final class OutputFile {
    let path: String
    private var descriptor: Int32
    private(set) var position: Int64 = 0
    /// Whether copies may use the kernel's file-to-file calls; off, they go
    /// through a buffer with `pread`/`pwrite` (for tests of that path).
    let kernelCopies: Bool

    init(path: String, kernelCopies: Bool = true) throws {
        self.path = path
        self.kernelCopies = kernelCopies
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
        #if os(Linux)
        try splicePipe?.drain(into: descriptor, path: path)
        #endif
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
    /// previous copy when the ranges follow each other. On Linux the bytes
    /// never pass through this process: runs shorter than
    /// ``directCopySize`` are gathered in a ``SplicePipe`` and written about
    /// 1 MiB at a time; longer ones are copied by `copy_file_range(2)`.
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

    /// Copies of at least this many bytes are made by one `copy_file_range`
    /// call (a clone on file systems that share blocks), not through the pipe.
    static let directCopySize: Int64 = 1 << 20

    /// Hands the pending copy on (to the pipe, or done now).
    private func flushCopy() throws {
        guard let copy = pendingCopy else { return }
        pendingCopy = nil
        try copyRange(from: copy.source.descriptor, path: copy.source.path, offset: copy.offset, count: copy.count,
                      to: position - copy.count)
    }

    #if os(Linux)
    /// Created at the first short copy; nil where pipes can't be spliced.
    private lazy var splicePipe: SplicePipe? = kernelCopies ? SplicePipe() : nil
    #endif

    /// Copies `count` bytes at `offset` of `input` to `target` of this file:
    /// in the kernel where it can, else through a 1 MiB buffer.
    private func copyRange(from input: Int32, path source: String, offset: Int64, count: Int64, to target: Int64) throws {
        var copied: Int64 = 0
        #if os(Linux)
        if kernelCopies, count < Self.directCopySize, let pipe = splicePipe {
            copied = try pipe.add(from: input, offset: offset, length: count, to: target, output: descriptor, path: path)
            if copied == count { return }
            try pipe.drain(into: descriptor, path: path)        // then the rest below
        }
        while kernelCopies, let copyFileRange = Self.copyFileRange, copied < count {
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
            guard got > 0 else { throw MediaError(.io, "read failed: \(systemErrorText())", path: source) }
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
        guard input >= 0 else { throw MediaError(.io, "cannot open: \(systemErrorText())", path: source) }
        defer { closeDescriptor(input) }
        try flush()
        try copyRange(from: input, path: source, offset: 0, count: count, to: position)
        position += count
    }

    func close() throws {
        guard descriptor >= 0 else { return }
        try flush()
        #if os(Linux)
        splicePipe = nil
        #endif
        let result = closeDescriptor(descriptor)
        descriptor = -1
        guard result == 0 else { throw MediaError(.io, "close failed: \(systemErrorText())", path: path) }
    }

    func closeAndRemove() {
        #if os(Linux)
        splicePipe = nil
        #endif
        pendingCopy = nil
        if descriptor >= 0 { closeDescriptor(descriptor); descriptor = -1 }
        unlink(path)
    }
}

/// `close(2)`, under a name the methods called `close` don't hide.
@discardableResult
func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
