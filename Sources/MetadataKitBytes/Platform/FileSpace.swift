#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Changing a file's extent map instead of its bytes: inserting and removing
/// whole blocks in the middle of a file (Linux `fallocate(2)`
/// `FALLOC_FL_INSERT_RANGE`/`FALLOC_FL_COLLAPSE_RANGE`, ext4 and XFS), and
/// sharing blocks between two files (`ioctl(FICLONERANGE)`, btrfs and XFS).
/// Each returns 0, or -1 with `errno` set (`EOPNOTSUPP`, `EINVAL`, … where the
/// file system can't: the caller falls back).
extension Platform {
    /// `fallocate(2)`, looked up at run time: Swift's Glibc module doesn't declare it.
    private typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32
    #if os(Linux)
        private static let fallocateCall = cLibraryFunction("fallocate", as: Fallocate.self)
    #endif

    /// Whether this system has a call that inserts blocks in the middle of a
    /// file (Linux `fallocate(2)`; whether a given file system takes it is
    /// found out by trying). False on Darwin: a save there never pads to the
    /// block size nor journals an insertion that can only fail.
    package static var canInsertBlocks: Bool {
        #if os(Linux)
            fallocateCall != nil
        #else
            false
        #endif
    }

    /// Makes a new file at `path` (which must not exist) that shares every
    /// block of the open file `source` (copy on write): Darwin
    /// `fclonefileat(2)` on APFS — a whole file, where Linux clones ranges
    /// (``cloneRange(from:at:length:to:at:)``). 0, or -1 with `errno` set
    /// (`ENOTSUP` elsewhere: HFS+, SMB, and on Linux, whose rewrites clone ranges).
    package static func cloneFile(_ source: Int32, to path: String) -> Int32 {
        #if canImport(Darwin)
            return fclonefileat(source, AT_FDCWD, path, 0)
        #else
            errno = ENOTSUP
            return -1
        #endif
    }

    /// Inserts `length` zero bytes at `offset` of `descriptor`, moving the rest
    /// of the file up by `length`; both must be multiples of the file
    /// system's block size and `offset` inside the file.
    package static func insertRange(_ descriptor: Int32, at offset: Int64, length: Int64) -> Int32 {
        fileSpace(descriptor, mode: 0x20, offset: offset, length: length) // FALLOC_FL_INSERT_RANGE
    }

    /// Removes `length` bytes at `offset` of `descriptor`, moving the rest of
    /// the file down; block-aligned, and the range must end before the file does.
    package static func collapseRange(_ descriptor: Int32, at offset: Int64, length: Int64) -> Int32 {
        fileSpace(descriptor, mode: 0x08, offset: offset, length: length) // FALLOC_FL_COLLAPSE_RANGE
    }

    private static func fileSpace(_ descriptor: Int32, mode: Int32, offset: Int64, length: Int64) -> Int32 {
        #if os(Linux)
            guard let fallocateCall else {
                errno = EOPNOTSUPP
                return -1
            }
            while true {
                let result = fallocateCall(descriptor, mode, offset, length)
                if result != 0, errno == EINTR { continue }
                return result
            }
        #else
            // Darwin has no way to insert or remove blocks in the middle of a file.
            errno = EOPNOTSUPP
            return -1
        #endif
    }

    /// Makes `length` bytes at `targetOffset` of `target` share the blocks of
    /// `length` bytes at `sourceOffset` of `source` (copy on write). Offsets
    /// and length block-aligned (the length may run to the source's end).
    package static func cloneRange(from source: Int32, at sourceOffset: Int64, length: Int64, to target: Int32, at targetOffset: Int64)
        -> Int32
    {
        #if os(Linux)
            // struct file_clone_range { s64 src_fd; u64 src_offset, src_length, dest_offset; }
            var range: (Int64, UInt64, UInt64, UInt64) = (Int64(source), UInt64(sourceOffset), UInt64(length), UInt64(targetOffset))
            let ficloneRange: UInt = 0x4020_940D // _IOW(0x94, 13, struct file_clone_range)
            return withUnsafeMutablePointer(to: &range) { ioctl(target, ficloneRange, $0) }
        #else
            // Darwin clones whole files only (clonefile(2), fclonefileat(2)), not ranges at an offset.
            errno = EOPNOTSUPP
            return -1
        #endif
    }

    /// The block size insertions and clones of the file at `path` must be
    /// aligned to (`st_blksize`, which is the file system block on ext4,
    /// XFS and btrfs); nil when it can't be read.
    package static func blockSize(path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_blksize > 0 else { return nil }
        return Int64(info.st_blksize)
    }

    /// ``blockSize(path:)`` for an open file.
    package static func blockSize(_ descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_blksize > 0 else { return nil }
        return Int64(info.st_blksize)
    }
}
