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
    /// another saver, the path may name a new file. Throws `fileChanged`.
    func lockAndCheck(_ descriptor: Int32, url: URL, snapshot: FileSnapshot, exclusive: Bool = true) throws {
        guard flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) == 0 else {
            throw MediaError(.io, "cannot lock the file: \(systemErrorText())", path: url.path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw MediaError(.io, "cannot stat: \(systemErrorText())", path: url.path) }
        var current = stat()
        let samePath = stat(url.path, &current) == 0 && current.st_ino == info.st_ino
        guard FileSnapshot(info) == snapshot, samePath else {
            throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again", path: url.path)
        }
    }
}
