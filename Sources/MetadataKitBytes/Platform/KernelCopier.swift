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

/// Copies between files inside the kernel, so the bytes never pass through
/// this process, where the system can; the bytes it doesn't copy are left
/// to the caller (``OutputFile`` copies them through a buffer).
///
/// Linux: runs shorter than ``directCopySize`` are gathered in a
/// ``SplicePipe`` and written about 1 MiB at a time; longer ones are copied
/// by `copy_file_range(2)` (a clone on file systems that share blocks).
/// Darwin has neither call: nothing is copied there.
package final class KernelCopier {
    /// Off, nothing is copied (the caller's buffered path, for tests of it).
    package let isEnabled: Bool

    /// Copies of at least this many bytes are made by one `copy_file_range`
    /// call, not through the pipe.
    static let directCopySize: Int64 = 1 << 20

    package init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    #if os(Linux)
        /// Created at first use; nil where pipes can't be spliced, and after ``close()``.
        private lazy var splicePipe: SplicePipe? = isEnabled ? SplicePipe() : nil

        /// `copy_file_range(2)` (glibc 2.27+), looked up at run time: Swift's Glibc
        /// module doesn't declare it.
        typealias CopyFileRange =
            @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
        static let copyFileRange = cLibraryFunction("copy_file_range", as: CopyFileRange.self)
    #endif

    /// Copies up to `count` bytes at `offset` of `input` to `target` of
    /// `output` (a file at `path`).
    ///
    /// - Returns: the bytes copied (or gathered in the pipe, written by
    ///   ``drain(into:path:)``): fewer than `count` when the rest must be
    ///   copied another way, at `target` plus the bytes copied.
    package func copy(from input: Int32, offset: Int64, count: Int64, to output: Int32, at target: Int64, path: String) throws -> Int64 {
        #if os(Linux)
            var copied: Int64 = 0
            if isEnabled, count < Self.directCopySize, let pipe = splicePipe {
                copied = try pipe.add(from: input, offset: offset, length: count, to: target, output: output, path: path)
                if copied == count { return copied }
                try pipe.drain(into: output, path: path) // then the rest below
            }
            guard isEnabled, copied < count else { return copied }
            return copied + Self.copyRange(from: input, at: offset + copied, count: count - copied, to: output, at: target + copied)
        #else
            // Darwin: no splice(2) or copy_file_range(2); the caller copies every byte through its buffer.
            return 0
        #endif
    }

    /// Copies up to `count` bytes at `offset` of `input` to `target` of
    /// `output` with `copy_file_range(2)` in calls of up to 1 GiB (a clone on
    /// file systems that share blocks); returns how many bytes from the start
    /// were copied — fewer (0 on Darwin, which has no such call) where the
    /// system can't (`EXDEV`, `ENOSYS`, …): the caller copies the rest.
    package static func copyRange(from input: Int32, at offset: Int64, count: Int64, to output: Int32, at target: Int64) -> Int64 {
        #if os(Linux)
            guard let copyFileRange else { return 0 }
            var copied: Int64 = 0
            while copied < count {
                var from = offset + copied, to = target + copied
                let done = copyFileRange(input, &from, output, &to, Int(min(count - copied, 1 << 30)), 0)
                if done < 0, errno == EINTR { continue }
                if done <= 0 { break } // not supported here (EXDEV, ENOSYS, …): the caller copies
                copied += Int64(done)
            }
            return copied
        #else
            // Darwin: no copy_file_range(2); the caller copies through its buffer.
            return 0
        #endif
    }

    /// Writes what the pipe gathered to `output` (a file at `path`).
    package func drain(into output: Int32, path: String) throws {
        #if os(Linux)
            try splicePipe?.drain(into: output, path: path)
        #else
            // Darwin: nothing is gathered, so nothing is written.
        #endif
    }

    /// Releases the pipe; nothing is copied in the kernel afterwards.
    package func close() {
        #if os(Linux)
            splicePipe = nil
        #else
            // Darwin: no pipe to release.
        #endif
    }
}

/// `close(2)`, under a name the methods called `close` don't hide.
@discardableResult
package func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
