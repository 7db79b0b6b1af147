import Foundation
import Testing

@testable import MetadataKit

/// Folders and path lists for `mdkit write` and `mdkit tracks` (the shared
/// PathArguments: walked in name order, media extensions only, each bad path
/// reported in its place), and `mdkit export` refusing them clearly.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct CLIPathArgumentsTests {
    @Test func writeWalksFoldersAndPathListsReportingBadPathsInPlace() async throws {
        let root = try CatalogTestSupport.makeLibrary([
            "a/1.mp3": "sample.mp3", "a/2.flac": "sample.flac", "a/notes.txt": nil, "b/3.ogg": "sample.ogg", "c.m4a": "sample.m4a",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a").path
        let missing = root.appendingPathComponent("missing.mp3").path
        let c = root.appendingPathComponent("c.m4a").path
        // A folder, a missing file and a file: in that order, the folder's media files in name order.
        let output = try CatalogTestSupport.mdkit(["write", a, missing, c, "--set", "title=Walked"])
        #expect(output.status == 1, "the missing file fails the run")
        let saved = output.text.split(separator: "\n").filter { $0.hasSuffix("saved (1 change)") }.map {
            String($0.split(separator: ":")[0])
        }
        #expect(saved == [a + "/1.mp3", a + "/2.flac", c], "\(output.text)")
        #expect(output.standardError.contains("\(missing): error: "), "\(output.standardError)")
        for path in [a + "/1.mp3", a + "/2.flac", c] {
            #expect(try await MediaItem.loaded(URL(fileURLWithPath: path)).metadata.title == "Walked")
        }
        #expect(try String(contentsOfFile: a + "/notes.txt", encoding: .utf8) == "not media\n", "not a media extension: untouched")
        let ogg = root.appendingPathComponent("b/3.ogg")
        #expect(try await MediaItem.loaded(ogg).metadata.title != "Walked")

        // A NUL-separated list with a folder in it, and --exclude in the folder; the batch path (no --no-sync, several files).
        let list = root.appendingPathComponent("list")
        try Data((root.appendingPathComponent("b").path + "\0" + a + "\0").utf8).write(to: list)
        let listed = try CatalogTestSupport.mdkit([
            "write", "-0", "--files-from", list.path, "--exclude", "*.flac", "--set", "artist=Listed",
        ])
        #expect(listed.status == 0, "\(listed.text)")
        #expect(
            listed.standardOutput.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
                == [ogg.path + ": saved (1 change)", a + "/1.mp3: saved (1 change)"])
        #expect(try await MediaItem.loaded(URL(fileURLWithPath: a + "/2.flac")).metadata.artist != "Listed")
        // A path list that can't be read is an error in its place; the other files are written.
        let unreadable = root.appendingPathComponent("no-such-list").path
        let bad = try CatalogTestSupport.mdkit(["write", c, "--files-from", unreadable, "--set", "album=Bad list"])
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("\(unreadable): error: io: can't read the path list"), "\(bad.standardError)")
        #expect(try await MediaItem.loaded(URL(fileURLWithPath: c)).metadata.album == "Bad list")
        // --output takes one file, not a folder.
        let refused = try CatalogTestSupport.mdkit([
            "write", a, "--output", root.appendingPathComponent("out.mp3").path, "--set", "title=x",
        ])
        #expect(refused.status == 2 && refused.standardError.contains("--output takes exactly one FILE"), "\(refused.standardError)")
    }

    /// `mdkit read` reads each given path as a file first and walks one only
    /// when that fails and it is a folder: the reports must come as a walk
    /// of every path would give them — a folder's files in its place (also
    /// through a link, also a folder named like a media file), nothing for an
    /// empty folder, errors for a missing path, a FIFO and a list that can't
    /// be read, each in its place.
    @Test func readReportsFoldersFilesAndBadPathsInArgumentOrder() throws {
        let root = try CatalogTestSupport.makeLibrary([
            "a/1.mp3": "sample.mp3", "a/sub/2.flac": "sample.flac", "a/notes.txt": nil, "album.ogg/3.ogg": "sample.ogg",
            "c.m4a": "sample.m4a",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        func path(_ name: String) -> String { root.appendingPathComponent(name).path }
        try FileManager.default.createDirectory(atPath: path("empty"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: path("a"))
        #expect(mkfifo(path("fifo"), 0o600) == 0)
        let arguments = [path("c.m4a"), path("a"), path("missing.mp3"), path("empty"), path("link"), path("fifo"), path("album.ogg")]
        let output = try CatalogTestSupport.mdkit(["read", "--json"] + arguments + ["--files-from", path("no-such-list")])
        #expect(output.status == 1, "the missing file, the FIFO and the list fail the run")
        let reports = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let expected = [
            path("c.m4a"), path("a") + "/1.mp3", path("a") + "/sub/2.flac", path("missing.mp3"), path("link") + "/1.mp3",
            path("link") + "/sub/2.flac", path("fifo"), path("album.ogg") + "/3.ogg", path("no-such-list"),
        ]
        #expect(reports.map { $0["path"] as? String } == expected)
        let failed = reports.filter { $0["error"] != nil }.map { $0["path"] as? String }
        #expect(failed == [path("missing.mp3"), path("fifo"), path("no-such-list")], "\(output.text)")
        // The same files in text mode: the reports on stdout, the errors on stderr, in order.
        let text = try CatalogTestSupport.mdkit(["read"] + arguments)
        let errors = text.standardError.split(separator: "\n").map { String($0.split(separator: ":")[0]) }
        #expect(errors == [path("missing.mp3"), path("fifo")], "\(text.standardError)")
    }

    @Test func tracksListsAFolderAndReportsAnUnreadableFolderInPlace() throws {
        let root = try CatalogTestSupport.makeLibrary(["a/1.m4a": "sample.m4a", "b/2.m4a": "sample.m4a", "c/3.m4a": "sample.m4a"])
        let locked = root.appendingPathComponent("b")
        defer {
            chmod(locked.path, 0o755)
            try? FileManager.default.removeItem(at: root)
        }
        let paths = ["a/1.m4a", "b/2.m4a", "c/3.m4a"].map { root.appendingPathComponent($0).path }
        let output = try CatalogTestSupport.mdkit(["tracks", "--json", root.path])
        #expect(output.status == 0, "\(output.standardError)")
        let objects = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        #expect(objects.map { $0["path"] as? String } == paths)
        let single = try #require(
            try JSONSerialization.jsonObject(with: try CatalogTestSupport.mdkit(["tracks", "--json", paths[0]]).standardOutput)
                as? [[String: Any]])
        #expect(NSArray(array: [objects[0]]).isEqual(to: single), "a file found in a folder is listed as when named")

        // An unreadable folder (as user nobody: root reads any folder) is an error object in its place.
        guard getuid() == 0, TestSupport.hasTool("setpriv") else { return }
        #expect(chmod(locked.path, 0) == 0)
        let mdkit = try #require(TestSupport.mdkitExecutable)
        let walked = try TestSupport.run(
            "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", mdkit.path, "tracks", "--json", root.path])
        #expect(walked.status == 1)
        let found = try #require(try JSONSerialization.jsonObject(with: walked.standardOutput) as? [[String: Any]])
        #expect(found.map { $0["path"] as? String } == [paths[0], locked.path, paths[2]])
        #expect(found.count == 3 && (found[1]["error"] as? String)?.contains("can't open the folder") == true, "\(found)")
    }

    @Test func exportRefusesFoldersAndPathLists() throws {
        let root = try CatalogTestSupport.makeLibrary(["a/1.m4a": "sample.m4a"])
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out.m4a").path
        let folder = try CatalogTestSupport.mdkit(["export", root.appendingPathComponent("a").path, out])
        #expect(folder.status == 2 && folder.standardError.contains("is a folder"), "\(folder.standardError)")
        let stdin = try CatalogTestSupport.mdkit(["export", "-", out])
        #expect(stdin.status == 2 && stdin.standardError.contains("one IN file"), "\(stdin.standardError)")
        let list = try CatalogTestSupport.mdkit(["export", "--files-from", "x", root.appendingPathComponent("a/1.m4a").path, out])
        #expect(list.status == 2 && list.standardError.contains("--files-from"), "\(list.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // One file still exports.
        let one = try CatalogTestSupport.mdkit(["export", root.appendingPathComponent("a/1.m4a").path, out])
        #expect(one.status == 0, "\(one.standardError)")
    }
}
