#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library function `name`, looked up at run time, as a `Function`
/// (a `@convention(c)` function type); nil when the C library lacks it.
/// For calls Swift's Glibc module doesn't declare (`copy_file_range`, `syncfs`).
func cLibraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}
