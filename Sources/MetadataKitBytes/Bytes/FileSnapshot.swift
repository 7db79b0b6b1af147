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

/// Identity of a file's contents at load time, to detect changes made by others.
package struct FileSnapshot: Sendable, Hashable {
    package var size: Int64
    var modificationSeconds: Int
    var modificationNanoseconds: Int
    package var inode: UInt64
    package var device: UInt64 = 0

    package init(size: Int64, modificationSeconds: Int, modificationNanoseconds: Int, inode: UInt64) {
        self.size = size
        self.modificationSeconds = modificationSeconds
        self.modificationNanoseconds = modificationNanoseconds
        self.inode = inode
    }

    package init(_ info: stat) {
        let time = info.modificationTime
        self.init(
            size: Int64(info.st_size), modificationSeconds: Int(time.tv_sec),
            modificationNanoseconds: Int(time.tv_nsec), inode: UInt64(info.st_ino))
        device = Platform.deviceNumber(info.st_dev)
    }
}

extension stat {
    package var modificationTime: timespec { Platform.modificationTime(self) }
    var changeTime: timespec { Platform.changeTime(self) }
}
