#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(CommonCrypto)
    import CommonCrypto
#endif

/// What the catalog does differently on Linux and Darwin, side by side, so
/// its other files have no `#if os(...)`: where libpq is looked for, and the
/// system's SHA-256.
enum CatalogPlatform {
    /// Where libpq is looked for: the run-time linker's search first, then
    /// (Darwin) Homebrew's prefixes on Apple silicon and Intel Macs.
    static var libpqNames: [String] {
        #if canImport(Darwin)
            ["libpq.5.dylib", "/opt/homebrew/opt/libpq/lib/libpq.5.dylib", "/usr/local/opt/libpq/lib/libpq.5.dylib"]
        #else
            ["libpq.so.5", "libpq.so"]
        #endif
    }

    /// Writes the SHA-256 digest (32 bytes) of `count` bytes at `bytes` to
    /// `digest`; false when it could not.
    typealias Digest = @Sendable (_ bytes: UnsafeRawPointer, _ count: Int, _ digest: UnsafeMutablePointer<UInt8>) -> Bool

    /// The system's SHA-256: CommonCrypto's `CC_SHA256_*` on Darwin (always
    /// there), libcrypto's `SHA256` on Linux when libssl3 is installed
    /// (loaded at run time); nil without one.
    static let systemSHA256: Digest? = {
        #if canImport(CommonCrypto)
            return { bytes, count, digest in
                var context = CC_SHA256_CTX()
                CC_SHA256_Init(&context)
                var done = 0
                while done < count { // CC_LONG is 32 bits: long inputs in pieces
                    let piece = min(count - done, Int(Int32.max))
                    CC_SHA256_Update(&context, bytes + done, CC_LONG(piece))
                    done += piece
                }
                CC_SHA256_Final(digest, &context)
                return true
            }
        #else
            typealias Function = @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
            for name in ["libcrypto.so.3", "libcrypto.so"] {
                guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
                if let symbol = dlsym(library, "SHA256") {
                    let function = unsafeBitCast(symbol, to: Function.self)
                    return { bytes, count, digest in function(bytes.assumingMemoryBound(to: UInt8.self), count, digest) != nil }
                }
                dlclose(library)
            }
            return nil
        #endif
    }()
}
