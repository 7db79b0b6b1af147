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

    /// Grows the calling thread's heap by 1 MiB in one step. glibc grows the
    /// heap of a thread other than the main one a page at a time, each an
    /// `mprotect` that makes the kernel flush the other cores' address
    /// translations (about 40 per core in a read of 200 small files); the
    /// block is freed at once and stays the heap's free top (trimmed only
    /// past `M_TRIM_THRESHOLD`), its pages untouched until used.
    static func reserveThreadHeap() {
        #if canImport(Glibc)
            // Through the looked-up function: the optimizer drops a plain
            // malloc whose block is only freed.
            guard let allocate = allocateFunction else { return }
            free(allocate(1 << 20))
        #endif
    }

    #if canImport(Glibc)
        private static let allocateFunction = SharedPlatform.cLibraryFunction(
            "malloc", as: (@convention(c) (Int) -> UnsafeMutableRawPointer?).self)
    #endif
}
