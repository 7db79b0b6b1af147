import MetadataKitBytes

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

/// Locking: two saves of one file never interleave, and a file that changed
/// since it was loaded is refused.
extension FileEditor {
    /// Takes the advisory lock (`flock`, exclusive for a save, shared to read
    /// it for a copy), held until `descriptor` is closed, then checks that the
    /// file is still the one loaded (`snapshot`: size, modification time,
    /// device and inode) and that `url` still names it — after waiting for
    /// another saver, the path may name a new file. Throws `fileChanged`, or
    /// `locked` when another saver held the lock for all of ``lockWaitLimit``.
    func lockAndCheck(_ descriptor: Int32, url: URL, snapshot: FileSnapshot, exclusive: Bool = true) throws {
        let path = url.path
        try Self.lock(descriptor, exclusive: exclusive, waitingAtMost: lockWaitLimit, path: path)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw MediaError(.io, "cannot stat: \(systemErrorText())", path: path) }
        var current = stat()
        let samePath = stat(path, &current) == 0 && current.st_ino == info.st_ino
        guard FileSnapshot(info) == snapshot, samePath else {
            throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again", path: path)
        }
    }

    /// `duration` in whole milliseconds, for messages.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Takes the `flock` lock of the file at `path` open as `descriptor`,
    /// waiting at most `limit` (``Platform/lock(_:exclusive:waitingAtMost:)``);
    /// throws `locked` naming the file when the wait ran out, `io` when
    /// `flock` failed.
    static func lock(_ descriptor: Int32, exclusive: Bool, waitingAtMost limit: Duration, path: String) throws(MediaError) {
        switch Platform.lock(descriptor, exclusive: exclusive, waitingAtMost: limit) {
        case .locked:
            return
        case .timedOut:
            throw MediaError(
                .locked, "another save holds the file's lock (waited \(Self.milliseconds(limit)) ms); try again later",
                path: path)
        case .failed(let code):
            throw MediaError(.io, "cannot lock the file: \(String(cString: strerror(code)))", path: path)
        }
    }
}
