import MetadataKit

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

/// What a scan compares to tell whether a file changed: its size, its
/// modification time (nanoseconds since 1970) and its identity on disk.
public struct FileStatus: Sendable, Hashable {
    /// A file's identity: its device and inode (kept by a rename within one file system).
    public struct Identity: Sendable, Hashable {
        /// The device the file is on.
        public var device: UInt64
        /// The file's inode number on its device.
        public var inode: UInt64
    }

    /// The size in bytes.
    public var size: Int64
    /// Modification time in nanoseconds since 1970-01-01 UTC.
    public var modificationTimeNanoseconds: Int64
    /// The device the file is on.
    public var device: UInt64
    /// The file's inode number on its device.
    public var inode: UInt64
    /// The `st_mode` file type bits.
    var type: UInt32

    /// The device and inode, which a rename within one file system keeps.
    public var identity: Identity { Identity(device: device, inode: inode) }
    /// Modification time in seconds since 1970-01-01 UTC.
    public var modificationTime: Double { Double(modificationTimeNanoseconds) / 1e9 }
    /// Whether the path is a folder.
    public var isDirectory: Bool { type == UInt32(S_IFDIR) }
    /// Whether the path is a regular file.
    public var isRegularFile: Bool { type == UInt32(S_IFREG) }
    /// Whether the path is a symbolic link (not followed).
    public var isSymbolicLink: Bool { type == UInt32(S_IFLNK) }

    /// The status of a regular file of `size` bytes, modified at `modificationTimeNanoseconds`, with its device and inode.
    public init(size: Int64, modificationTimeNanoseconds: Int64, device: UInt64, inode: UInt64) {
        self.size = size
        self.modificationTimeNanoseconds = modificationTimeNanoseconds
        self.device = device
        self.inode = inode
        self.type = UInt32(S_IFREG)
    }

    /// The status of `path` (`stat`, or `lstat` when not `followingLinks`);
    /// nil with `errno` set when it fails.
    public init?(path: String, followingLinks: Bool) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        self.init(info)
    }

    /// The `lstat` status of the entry `name` of the open folder `folder`
    /// (`fstatat` with `AT_SYMLINK_NOFOLLOW`); nil with `errno` set when it fails.
    init?(in folder: Int32, name: String) {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        size = Int64(info.st_size)
        modificationTimeNanoseconds = SharedPlatform.modificationTimeNanoseconds(info)
        device = Self.deviceNumber(info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        type = UInt32(info.st_mode) & UInt32(S_IFMT)
    }

    /// A `dev_t` as the library converts it (``SharedPlatform/deviceNumber(_:)``):
    /// Darwin's signed 32-bit value through its bit pattern, so the catalog
    /// and the library agree on a device.
    static func deviceNumber<Device: BinaryInteger>(_ device: Device) -> UInt64 {
        SharedPlatform.deviceNumber(device)
    }

    /// Whether a scan must read the file again: its size, modification time or identity changed.
    public func differs(from other: FileStatus) -> Bool {
        size != other.size || modificationTimeNanoseconds != other.modificationTimeNanoseconds || identity != other.identity
    }
}
