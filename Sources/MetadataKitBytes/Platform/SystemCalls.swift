#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library function `name`, looked up at run time, as a `Function`
/// (a `@convention(c)` function type); nil when the C library lacks it.
/// For calls Swift's Glibc module doesn't declare (`copy_file_range`, `syncfs`).
package func cLibraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let symbol = dlsym(Platform.defaultSymbolHandle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}

/// The text of the C library's last error (`strerror(errno)`).
package func systemErrorText() -> String { String(cString: strerror(errno)) }

/// Reads exactly `count` bytes at `offset` of `descriptor` into
/// `destination`, retrying interrupted and short reads. A read error throws
/// `io`; the file ending first throws `endOfFile`'s error for the offset
/// where it ended. `path` (for the error) is made only when one is thrown.
package func readFully(
    _ descriptor: Int32, into destination: UnsafeMutableRawPointer, count: Int, at offset: Int64, path: @autoclosure () -> String,
    endOfFile: (Int64) -> MediaError
) throws {
    var done = 0
    while done < count {
        let got = pread(descriptor, destination + done, count - done, off_t(offset + Int64(done)))
        if got < 0 && errno == EINTR { continue }
        if got == 0 { throw endOfFile(offset + Int64(done)) }
        guard got > 0 else {
            throw MediaError(.io, "read failed: \(systemErrorText())", offset: offset + Int64(done), path: path())
        }
        done += got
    }
}

/// Writes all of `bytes` at `offset` of `descriptor`, retrying interrupted
/// and short writes; throws `io` ("the disk is full" for `ENOSPC`).
package func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: @autoclosure () -> String) throws {
    var done = 0
    while done < bytes.count {
        let wrote = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
        if wrote < 0 && errno == EINTR { continue }
        guard wrote > 0 else {
            let reason = errno == ENOSPC ? "the disk is full" : "write failed: \(systemErrorText())"
            throw MediaError(.io, reason, offset: offset + Int64(done), path: path())
        }
        done += wrote
    }
}
