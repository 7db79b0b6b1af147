#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension String {
    /// `format` with `arguments` filled in by the C library's `vsnprintf`
    /// (`%d`, `%02X`, `%.3f`, `%+.2f`…), in place of Foundation's
    /// `String(format:)`: on Linux that one is in swift-corelibs-foundation's
    /// `Foundation` module, which the library doesn't link. The output is
    /// the same for these numeric conversions (CoreFoundation formats
    /// numbers with `snprintf` too), in the C locale. No `%@`; `%s` takes a
    /// C string, not a Swift `String`.
    package init(cFormat format: String, _ arguments: any CVarArg...) {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        precondition(length >= 0, "vsnprintf failed for the format \(format)")
        if Int(length) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(length) + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        self = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
