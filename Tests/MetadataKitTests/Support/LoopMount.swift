import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small file system of a given type (`btrfs`, `xfs`) made in an image
/// file in a new temporary folder and loop-mounted there; ``remove()``
/// unmounts it and deletes that folder (nothing else).
struct LoopMount {
    let folder: URL
    /// Where the file system is mounted.
    let mountPoint: URL

    /// 320 MB: XFS needs 300 MB, btrfs about 110 MB.
    static let imageSize: off_t = 320 << 20

    init(type: String) throws {
        folder = try TestSupport.makeTemporaryDirectory()
        mountPoint = folder.appendingPathComponent("mount")
        let image = folder.appendingPathComponent("fs.img")
        do {
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
            guard FileManager.default.createFile(atPath: image.path, contents: nil), truncate(image.path, Self.imageSize) == 0 else {
                throw TestSupport.ToolFailure(description: "cannot make the image file")
            }
            try TestSupport.runChecked("mkfs.\(type)", ["-q", image.path])
            try TestSupport.runChecked("mount", ["-o", "loop", image.path, mountPoint.path])
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Unmounts the file system and deletes the folder this mount made
    /// (left as it is when the unmount fails: deleting it would reach into the mount).
    func remove() {
        guard (try? TestSupport.run("umount", [mountPoint.path]).status) == 0 else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether a file system of `type` can be made and mounted here.
    static func probe(_ type: String) -> Bool {
        #if os(Linux)
            guard getuid() == 0, TestSupport.isInstalled("mkfs.\(type)"), TestSupport.isInstalled("mount") else { return false }
            guard let mount = try? LoopMount(type: type) else { return false }
            mount.remove()
            return true
        #else
            return false
        #endif
    }
}
