#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Platform {
    /// The soft limit on open file descriptors (`RLIMIT_NOFILE`); nil when it
    /// can't be read. Unlimited reads as `Int.max`.
    package static var openFileLimit: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
            let got = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) // Glibc types the resource as an enum
        #else
            let got = getrlimit(RLIMIT_NOFILE, &limit) // Darwin: a plain Int32
        #endif
        guard got == 0 else { return nil }
        return Int(clamping: limit.rlim_cur) // RLIM_INFINITY (all ones) clamps to Int.max
    }
}
