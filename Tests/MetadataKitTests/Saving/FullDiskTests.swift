import Foundation
import Testing

@testable import MetadataKit

#if canImport(Glibc)
    import Glibc
#endif

/// A save on a full disk fails cleanly. Needs to mount a small tmpfs
/// (``Capabilities/tmpfsMount``: Linux, root, a sandbox that allows it).
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && Capabilities.tmpfsMount, "needs ffmpeg and a tmpfs mount (Linux, root)"))
struct FullDiskTests {
    @Test func aSaveOnAFullDiskLeavesTheFileAndNoLitter() async throws {
        let mountPoint = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        guard try TestSupport.run("mount", ["-t", "tmpfs", "-o", "size=192k", "tmpfs", mountPoint.path]).status == 0 else {
            Issue.record("mounting the tmpfs failed although the probe succeeded")
            return
        }
        defer { _ = try? TestSupport.run("umount", [mountPoint.path]) }
        let made = try TestSupport.makeTemporaryDirectory().appendingPathComponent("big.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=10",
                "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", made.path,
            ])
        let url = mountPoint.appendingPathComponent("big.m4a")
        try FileManager.default.copyItem(at: made, to: url)
        let original = try Data(contentsOf: url)
        #expect(original.count > 100_000, "the file must be more than half the disk so a rewrite can't fit")
        var item = MediaItem(url: url)
        try await item.load()
        item.metadata.title = String(repeating: "a title that does not fit in place ", count: 100)
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .io)
        #expect(error?.reason.contains("full") == true, "\(error?.reason ?? "")")
        #expect(try Data(contentsOf: url) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path) == ["big.m4a"])
    }
}
