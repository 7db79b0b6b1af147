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

extension Platform {
    /// Copies the extended attributes of `source` to `destination` — what a
    /// rewrite through a temporary file would otherwise lose on rename.
    ///
    /// Darwin: `fcopyfile` with `COPYFILE_XATTR | COPYFILE_ACL` (Finder tags,
    /// quarantine, Spotlight comments and the ACL). Linux: every attribute
    /// `flistxattr` names is copied with `fgetxattr`/`fsetxattr`; one the
    /// process may not set (`trusted.*`, `security.*` without privilege) is
    /// passed over, since the original is replaced by a file of its owner
    /// either way. Returns the names that could not be copied.
    @discardableResult
    package static func copyExtendedAttributes(from source: Int32, to destination: Int32) -> [String] {
        #if canImport(Darwin)
            let flags = copyfile_flags_t(COPYFILE_XATTR | COPYFILE_ACL)
            return fcopyfile(source, destination, nil, flags) == 0 ? [] : ["(fcopyfile: \(systemErrorText()))"]
        #else
            guard let list = XattrCalls.list, let get = XattrCalls.get, let set = XattrCalls.set else { return [] }
            let size = list(source, nil, 0)
            guard size > 0 else { return [] }
            var names = [CChar](repeating: 0, count: size)
            let got = list(source, &names, names.count)
            guard got > 0 else { return [] }
            var failed: [String] = []
            for name in names[..<got].split(separator: 0).map({ String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }) {
                let length = get(source, name, nil, 0)
                guard length >= 0 else {
                    failed.append(name)
                    continue
                }
                var value = [UInt8](repeating: 0, count: max(length, 1))
                let read = get(source, name, &value, length)
                guard read >= 0, set(destination, name, value, read, 0) == 0 else {
                    failed.append(name)
                    continue
                }
            }
            return failed
        #endif
    }
}

#if !canImport(Darwin)
    /// The Linux xattr calls, looked up at run time (Swift's Glibc module doesn't
    /// declare `sys/xattr.h`).
    private enum XattrCalls {
        static let list = cLibraryFunction("flistxattr", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int).self)
        static let get = cLibraryFunction(
            "fgetxattr",
            as: (@convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int).self)
        static let set = cLibraryFunction(
            "fsetxattr",
            as: (@convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32).self)
    }
#endif
