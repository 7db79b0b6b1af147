// Linux only: Darwin has no splice(2), and KernelCopier copies nothing there.
#if os(Linux)
    import Glibc

    /// Gathers ranges of input files in a pipe and writes them to an output
    /// file in large writes, without passing the bytes through this process
    /// (`splice(2)`).
    ///
    /// Splicing a file range into a pipe adds references to the input's page
    /// cache pages (no copy); splicing the pipe into the output copies them
    /// once, up to the pipe's size (1 MiB when the system allows) per write.
    /// An export gathers every sample this way: samples are re-interleaved, so
    /// the ranges are short and follow each other in the output but not in the
    /// input. One `copy_file_range(2)` per range costs far more in the kernel:
    /// thousands of small writes at unaligned offsets (a new page-cache folio
    /// for every few pages) against a few large ones.
    ///
    /// The pipe holds one contiguous run of the output: `count` bytes going to
    /// `target`. Reading the pipe back (when the output can't be spliced into)
    /// keeps every byte going to the right place.
    final class SplicePipe {
        private let readEnd: Int32
        private let writeEnd: Int32
        /// Bytes in the pipe.
        private(set) var count: Int64 = 0
        /// The output offset of the first byte in the pipe.
        private(set) var target: Int64 = 0
        /// The output offset just after the last byte in the pipe.
        package var end: Int64 { target + count }

        /// The size asked for; a smaller default (64 KiB) when the system refuses it.
        static let preferredSize: Int32 = 1 << 20
        private static let setPipeSize: Int32 = 1031 // F_SETPIPE_SZ
        private static let move: UInt32 = 1, nonBlocking: UInt32 = 2 // SPLICE_F_MOVE, SPLICE_F_NONBLOCK

        typealias Splice = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
        /// `splice(2)`, looked up at run time: Swift's Glibc module doesn't declare it.
        package static let splice = cLibraryFunction("splice", as: Splice.self)
        /// `pipe2(2)`, for the same reason.
        static let pipe2 = cLibraryFunction("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

        /// A new pipe; nil when the system has no `splice` or no pipe to spare.
        init?() {
            guard Self.splice != nil, let pipe2 = Self.pipe2 else { return nil }
            var ends: [Int32] = [0, 0]
            guard pipe2(&ends, O_CLOEXEC) == 0 else { return nil }
            (readEnd, writeEnd) = (ends[0], ends[1])
            _ = fcntl(writeEnd, Self.setPipeSize, Self.preferredSize)
        }

        deinit {
            closeDescriptor(readEnd)
            closeDescriptor(writeEnd)
        }

        /// Adds up to `length` bytes of `input` from `offset`, to be written at
        /// `destination` of `output` (just after the bytes already in the pipe,
        /// when there are any); writes the pipe out whenever it is full.
        ///
        /// - Returns: the bytes added: fewer than `length` when the input can't
        ///   be spliced (its file system doesn't support it, or it ended early);
        ///   the caller copies the rest another way, at `destination` plus the
        ///   bytes added, after ``drain(into:path:)``.
        package func add(
            from input: Int32, offset: Int64, length: Int64, to destination: Int64,
            output: Int32, path: String
        ) throws -> Int64 {
            guard let splice = Self.splice else { return 0 }
            if count > 0, end != destination { try drain(into: output, path: path) }
            if count == 0 { target = destination }
            var from = offset
            var added: Int64 = 0
            while added < length {
                let done = splice(input, &from, writeEnd, nil, Int(min(length - added, 1 << 30)), Self.move | Self.nonBlocking)
                if done > 0 {
                    added += Int64(done)
                    count += Int64(done)
                } else if done < 0, errno == EINTR {
                    continue
                } else if done < 0, errno == EAGAIN, count > 0 {
                    try drain(into: output, path: path) // full
                } else {
                    break // unsupported, or the input ended
                }
            }
            return added
        }

        /// Writes everything in the pipe to `output` at ``target``.
        package func drain(into output: Int32, path: String) throws {
            guard let splice = Self.splice else { return }
            while count > 0 {
                var to = target
                let done = splice(readEnd, nil, output, &to, Int(count), Self.move)
                if done > 0 {
                    count -= Int64(done)
                    target += Int64(done)
                } else if done < 0, errno == EINTR {
                    continue
                } else if done < 0, [EINVAL, ENOSYS, EOPNOTSUPP, EXDEV].contains(errno) {
                    try readOut(into: output, path: path) // the output can't be spliced into
                } else {
                    let reason = done < 0 ? systemErrorText() : "no progress"
                    throw MediaError(.io, "write failed: \(reason)", offset: target, path: path)
                }
            }
        }

        /// Reads the pipe and writes what it holds with `pwrite`.
        private func readOut(into output: Int32, path: String) throws {
            var buffer = [UInt8](repeating: 0, count: Int(min(count, 1 << 20)))
            while count > 0 {
                let got = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, Int(min(Int64($0.count), count))) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { throw MediaError(.io, "read failed: \(systemErrorText())", path: path) }
                try buffer.withUnsafeBytes { try writeFully(output, UnsafeRawBufferPointer(rebasing: $0[..<got]), at: target, path: path) }
                count -= Int64(got)
                target += Int64(got)
            }
        }
    }
#endif
