import MetadataKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the tool tunes the C library's allocator, where it can.
enum Allocator {
    /// Keeps buffers of up to 32 MiB in the heap instead of mapping each
    /// anew (glibc `mallopt(3)`: `M_MMAP_THRESHOLD`, `M_TRIM_THRESHOLD`).
    /// Comment packets with pictures (Ogg, FLAC) make buffers of a few hundred
    /// KiB per file; glibc maps each one past 128 KiB, so every file paid page
    /// faults for them. Darwin's allocator has no such threshold: nothing to do.
    static func keepLargeBuffersInTheHeap() {
        #if canImport(Glibc)
            // Looked up at run time: Swift's Glibc module doesn't declare mallopt.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let mallopt = SharedPlatform.cLibraryFunction("mallopt", as: Mallopt.self) else { return }
            _ = mallopt(-3, 32 << 20) // M_MMAP_THRESHOLD
            _ = mallopt(-1, 64 << 20) // M_TRIM_THRESHOLD
        #endif
    }

    /// Grows the calling thread's heap by 1 MiB in one step, and has the
    /// kernel fill in its first `populating` bytes at once. glibc grows the
    /// heap of a thread other than the main one a page at a time, each an
    /// `mprotect` that makes the kernel flush the other cores' address
    /// translations (about 40 per core in a read of 200 small files), and
    /// each new page then costs a page fault when first written (a read
    /// keeps about 3 KiB per file for the report); one
    /// `madvise(MADV_POPULATE_WRITE)` (Linux 5.14) makes those pages in one
    /// call. The block is freed at once and stays the heap's free top
    /// (trimmed only past `M_TRIM_THRESHOLD`).
    static func reserveThreadHeap(populating: Int = 0) {
        #if canImport(Glibc)
            // Through the looked-up function: the optimizer drops a plain
            // malloc whose block is only freed.
            guard let allocate = allocateFunction, let block = allocate(1 << 20) else { return }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: block) + page - 1) / page * page
            let length = min(populating, (1 << 20) - page) / page * page
            if length > 0 {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), length, 23) // MADV_POPULATE_WRITE
            }
            free(block)
        #endif
    }

    #if canImport(Glibc)
        private static let allocateFunction = SharedPlatform.cLibraryFunction(
            "malloc", as: (@convention(c) (Int) -> UnsafeMutableRawPointer?).self)
    #endif
}
