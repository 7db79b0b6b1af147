#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The platform helpers the package's other targets (the catalog, the
/// `mdkit` tool) share with the library, so that they convert `stat`
/// fields exactly as it does and keep no `#if os(...)` of their own.
package enum SharedPlatform {
    /// A `stat` device number as an unsigned 64-bit value
    /// (``Platform/deviceNumber(_:)``: Darwin's signed 32-bit `dev_t` through
    /// its bit pattern, not sign-extended).
    package static func deviceNumber<Device: BinaryInteger>(_ device: Device) -> UInt64 {
        Platform.deviceNumber(device)
    }

    /// The modification time of a `stat` result in nanoseconds since 1970
    /// (`st_mtimespec` on Darwin, `st_mtim` on Linux).
    package static func modificationTimeNanoseconds(_ info: stat) -> Int64 {
        let time = Platform.modificationTime(info)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The C library function `name`, looked up at run time in every loaded
    /// image (`RTLD_DEFAULT`, which differs between glibc and Darwin).
    package static func cLibraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        MetadataKitBytes.cLibraryFunction(name, as: type)
    }
}
