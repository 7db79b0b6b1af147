import Foundation
import MetadataKit
import MetadataKitCatalog
import Testing

/// The folder walk: name order, the extension filter, globs, symbolic links
/// (not followed by default; loops walked once when followed), folders that
/// can't be opened and entries that vanish, each reported in its place.
@Suite struct FolderWalkerTests {
    static func walk(_ root: URL, _ options: FolderWalker.Options = FolderWalker.Options()) -> [FolderWalker.Entry] {
        var entries: [FolderWalker.Entry] = []
        FolderWalker(options: options).walk(root.path) { entries.append($0) }
        return entries
    }

    static func files(_ entries: [FolderWalker.Entry], below root: URL) -> [String] {
        entries.compactMap { entry in
            guard case .file(let path, _) = entry else { return nil }
            return String(path.dropFirst(root.path.count + 1))
        }
    }

    @Test func walksInNameOrderAndFiltersByExtension() throws {
        let root = try CatalogTestSupport.makeLibrary([
            "b/2.mp3": "sample.mp3", "b/1.FLAC": "sample.flac", "a.m4a": "sample.m4a", "notes.txt": nil, "c/d/e.ogg": "sample.ogg",
            "noextension": nil,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let walked = Self.files(Self.walk(root), below: root)
        #expect(walked == ["a.m4a", "b/1.FLAC", "b/2.mp3", "c/d/e.ogg"])
        var every = FolderWalker.Options()
        every.extensions = nil
        #expect(
            Self.files(Self.walk(root, every), below: root) == ["a.m4a", "b/1.FLAC", "b/2.mp3", "c/d/e.ogg", "noextension", "notes.txt"])
        // Every extension of the registry is walked, in any case.
        for format in MediaFormat.all {
            for ext in format.extensions { #expect(FolderWalker.mediaExtensions.contains(ext.lowercased())) }
        }
        // A file given as the root is handed out as it is, unfiltered.
        let note = root.appendingPathComponent("notes.txt")
        #expect(Self.walk(note).count == 1)
    }

    @Test func includeAndExcludeGlobs() throws {
        let root = try CatalogTestSupport.makeLibrary([
            "Live/1.mp3": "sample.mp3", "Live/2.flac": "sample.flac", "Studio/1.mp3": "sample.mp3", "Studio/x/3.ogg": "sample.ogg",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var options = FolderWalker.Options()
        options.include = ["*.mp3"]
        #expect(Self.files(Self.walk(root, options), below: root) == ["Live/1.mp3", "Studio/1.mp3"])
        options = FolderWalker.Options()
        options.exclude = ["Live"]
        #expect(Self.files(Self.walk(root, options), below: root) == ["Studio/1.mp3", "Studio/x/3.ogg"])
        options = FolderWalker.Options()
        options.include = ["Studio/*"] // a pattern with / matches the path below the root; * crosses folders
        options.exclude = ["*.ogg"]
        #expect(Self.files(Self.walk(root, options), below: root) == ["Studio/1.mp3"])
    }

    @Test func symbolicLinksAndLoops() throws {
        let root = try CatalogTestSupport.makeLibrary(["music/a.mp3": "sample.mp3", "other/b.flac": "sample.flac"])
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        // A loop back to the root, a link to a sibling folder, a link to a file, a dangling link.
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("music/loop").path, withDestinationPath: root.path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("music/other").path, withDestinationPath: "../other")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("music/link.mp3").path, withDestinationPath: "a.mp3")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("music/gone.mp3").path, withDestinationPath: "nothing.mp3")
        // Not followed by default: only the real files.
        let plain = Self.walk(root)
        #expect(Self.files(plain, below: root) == ["music/a.mp3", "other/b.flac"])
        #expect(plain.count == 2)
        var options = FolderWalker.Options()
        options.followSymbolicLinks = true
        let followed = Self.walk(root, options)
        // Each folder once: "music/other" is walked (reached first), "other" is then passed over as seen, the loop too.
        #expect(Self.files(followed, below: root) == ["music/a.mp3", "music/link.mp3", "music/other/b.flac"])
        let problems = followed.compactMap { entry -> String? in
            guard case .problem(let path, let message) = entry else { return nil }
            return String(path.dropFirst(root.path.count + 1)) + ": " + message
        }
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("music/gone.mp3: dangling") })
        #expect(problems.contains { $0.hasPrefix("music/loop: folder already walked") })
    }

    @Test func entryVanishingDuringTheWalkIsReportedInPlace() throws {
        let root = try CatalogTestSupport.makeLibrary(["1.mp3": "sample.mp3", "2.mp3": "sample.mp3", "3.mp3": "sample.mp3"])
        defer { try? FileManager.default.removeItem(at: root) }
        var entries: [FolderWalker.Entry] = []
        FolderWalker().walk(root.path) { entry in
            entries.append(entry)
            // The folder was listed; 2.mp3 goes before the walker gets to it.
            if entries.count == 1 { try? FileManager.default.removeItem(at: root.appendingPathComponent("2.mp3")) }
        }
        #expect(entries.count == 3)
        guard entries.count == 3 else { return }
        #expect(
            entries[1]
                == .problem(path: root.appendingPathComponent("2.mp3").path, message: "vanished during the walk: No such file or directory")
        )
        #expect(Self.files([entries[0], entries[2]], below: root) == ["1.mp3", "3.mp3"])
    }

    /// A folder that can't be opened: as root (the tests' usual user) a mode
    /// of 000 does not stop anyone, so the walk runs in `mdkit` as user
    /// `nobody` (setpriv); as another user, in this process.
    @Test(
        .enabled(if: getuid() != 0 || (TestSupport.hasTool("setpriv") && Capabilities.mdkit), "as root: needs setpriv and the mdkit binary")
    )
    func unreadableFolderIsReportedInPlace() throws {
        let root = try CatalogTestSupport.makeLibrary(["a/1.mp3": "sample.mp3", "b/2.mp3": "sample.mp3", "c/3.mp3": "sample.mp3"])
        let locked = root.appendingPathComponent("b")
        defer {
            chmod(locked.path, 0o755)
            try? FileManager.default.removeItem(at: root)
        }
        #expect(chmod(locked.path, 0) == 0)
        if getuid() != 0 {
            let entries = Self.walk(root)
            #expect(entries.count == 3)
            #expect(entries[1] == .problem(path: locked.path, message: "can't open the folder: Permission denied"))
            return
        }
        let mdkit = try #require(TestSupport.mdkitExecutable)
        // The temporary folder and the binary must be reachable by nobody (mode 755 folders).
        let output = try TestSupport.run(
            "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", mdkit.path, "read", "--jsonl", root.path])
        let objects = try CatalogTestSupport.jsonLines(output.standardOutput)
        #expect(output.status == 1, "a path that could not be walked fails the run")
        #expect(objects.map { $0["path"] as? String } == ["a/1.mp3", "b", "c/3.mp3"].map { root.appendingPathComponent($0).path })
        #expect(objects.count == 3 && (objects[1]["error"] as? String) == "io: can't open the folder: Permission denied")
        #expect(objects.count == 3 && objects[0]["format"] as? String == "mp3" && objects[2]["error"] == nil)
    }
}
