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
}
