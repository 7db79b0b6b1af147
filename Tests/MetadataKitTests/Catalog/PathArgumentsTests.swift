import Foundation
import Testing

/// `mdkit read` with folders, path lists (`-`, `--files-from`, `-0`) and
/// `--jsonl`: the same objects as `--json`, one a line, in walk order.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct PathArgumentsTests {
    @Test func jsonLinesAreTheJSONObjectsInWalkOrder() throws {
        let root = try CatalogTestSupport.makeLibrary(count: 23, folders: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("not media".utf8).write(to: root.appendingPathComponent("d1/broken.mp3"))
        let lines = try CatalogTestSupport.mdkit(["read", "--jsonl", "--items", root.path])
        let array = try CatalogTestSupport.mdkit(["read", "--json", "--items", root.path])
        #expect(lines.status == 1 && array.status == 1, "the broken file fails both")
        let objects = try CatalogTestSupport.jsonLines(lines.standardOutput)
        let arrayObjects = try #require(try JSONSerialization.jsonObject(with: array.standardOutput) as? [[String: Any]])
        #expect(objects.count == 24)
        #expect(NSArray(array: objects).isEqual(to: arrayObjects), "--jsonl holds the objects of --json")
        // Walk order: folders and names sorted by their bytes, each file once.
        let paths = objects.compactMap { $0["path"] as? String }
        let sorted = paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(paths == sorted)
        #expect(Set(paths).count == 24)
        #expect(objects.filter { $0["error"] != nil }.map { $0["path"] as? String } == [root.appendingPathComponent("d1/broken.mp3").path])
        // One line per object.
        #expect(lines.text.split(separator: "\n").count == 24)
    }

    @Test func pathListsFromAFileAndFromStdin() throws {
        let root = try CatalogTestSupport.makeLibrary(["a b.mp3": "sample.mp3", "dir/c.flac": "sample.flac", "dir/d.ogg": "sample.ogg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let a = root.appendingPathComponent("a b.mp3").path, dir = root.appendingPathComponent("dir").path
        let missing = root.appendingPathComponent("missing.mp3").path
        // NUL separated: a folder in the list is walked; a missing path is an error in its place.
        let list = root.appendingPathComponent("list")
        try Data((a + "\0" + missing + "\0" + dir + "\0").utf8).write(to: list)
        let output = try CatalogTestSupport.mdkit(["read", "--jsonl", "-0", "--files-from", list.path])
        let objects = try CatalogTestSupport.jsonLines(output.standardOutput)
        #expect(objects.map { $0["path"] as? String } == [a, missing, dir + "/c.flac", dir + "/d.ogg"])
        #expect(objects.count == 4 && objects[1]["error"] != nil && objects[0]["format"] as? String == "mp3")
        #expect(output.status == 1)
        // Newline separated, from stdin.
        let mdkit = try #require(TestSupport.mdkitExecutable).path
        let piped = try TestSupport.run("sh", ["-c", "printf '%s\\n' \"$1\" \"$2\" | \"$0\" read --jsonl -", mdkit, dir, a])
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(
            try CatalogTestSupport.jsonLines(piped.standardOutput).map { $0["path"] as? String } == [dir + "/c.flac", dir + "/d.ogg", a])
        // Globs apply in folders.
        let globbed = try CatalogTestSupport.mdkit(["read", "--jsonl", "--exclude", "*.ogg", root.path])
        #expect(try CatalogTestSupport.jsonLines(globbed.standardOutput).map { $0["path"] as? String } == [a, dir + "/c.flac"])
        // A missing option value is a usage error.
        #expect(try CatalogTestSupport.mdkit(["read", "--include"]).status == 2)
    }
}
