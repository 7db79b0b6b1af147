import Foundation
import Testing

@testable import MetadataKit

#if canImport(Glibc)
    import Glibc
#endif

/// The save rule for links and folders (issue 15): a save changes the file
/// the path names. A symbolic link is followed and stays a link; a file with
/// several hard links keeps its inode (so every name sees the change); a file
/// in a folder where nothing can be created (no journal, no temporary file)
/// is refused as `readOnly` and left as it was.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg"), "needs ffmpeg"))
struct LinkAndFolderSaveTests {
    /// A small fast-start M4A: a growing title makes a rewrite of it.
    func makeSong(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("song.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                "-c:a", "aac", "-movflags", "+faststart", "-metadata", "title=original", url.path,
            ])
        return url
    }
    let longTitle = String(repeating: "a longer title ", count: 400)

    @Test func aSaveThroughASymbolicLinkChangesItsTarget() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = try makeSong(in: directory)
        let link = directory.appendingPathComponent("link.m4a")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        var item = try await MediaItem.loaded(link)
        item.metadata.title = longTitle
        try await item.save()
        #expect(item.metadata.title == longTitle)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try await MediaItem.loaded(target).metadata.title == longTitle)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["song.m4a", "link.m4a"])
    }

    @Test func aHardLinkedFileKeepsItsInode() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeSong(in: directory)
        let other = directory.appendingPathComponent("other.m4a")
        try FileManager.default.linkItem(at: url, to: other)
        let inode = try MediaChecks.inode(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = longTitle
        try await item.save()
        #expect(item.lastSavePath == .inPlace)
        #expect(try MediaChecks.inode(url) == inode)
        #expect(try await MediaItem.loaded(other).metadata.title == longTitle)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["song.m4a", "other.m4a"])
    }

    /// A read-only folder: `chattr +i` as root (who may write any folder), else mode 0555.
    @Test(.enabled(if: getuid() != 0 || Capabilities.immutableFolders, "as root: needs chattr +i"), arguments: [false, true])
    func aFileInAReadOnlyFolderIsRefused(growing: Bool) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeSong(in: directory)
        let before = try Data(contentsOf: url)
        if getuid() == 0 {
            try TestSupport.runChecked("chattr", ["+i", directory.path])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        }
        defer {
            if getuid() == 0 { _ = try? TestSupport.run("chattr", ["-i", directory.path]) }
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = growing ? longTitle : "origin" // same size fits the free space: in place
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .readOnly, "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
    }
}
