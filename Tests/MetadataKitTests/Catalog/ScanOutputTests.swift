import Foundation
import Testing

/// What `mdkit scan` prints: `--jsonl` in walk order (as `read --jsonl`)
/// however many workers finish in whatever order, and the progress line
/// (files done/total, files/s, MB/s, errors, ETA) through the shared drawer.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct ScanOutputTests {
    @Test func jsonLinesComeInWalkOrder() throws {
        let root = try CatalogTestSupport.makeLibrary(count: 300, folders: 7)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("not media".utf8).write(to: root.appendingPathComponent("d3/broken.mp3"))
        let read = try CatalogTestSupport.mdkit(["read", "--jsonl", "--items", root.path])
        let readObjects = try CatalogTestSupport.jsonLines(read.standardOutput)
        #expect(readObjects.count == 301)
        for workers in ["1", "3", "8"] {
            let scan = try CatalogTestSupport.mdkit(["scan", "--jsonl", "--quiet", "--workers", workers, root.path])
            #expect(scan.status == 1, "the broken file fails the scan")
            let objects = try CatalogTestSupport.jsonLines(scan.standardOutput)
            #expect(objects.map { $0["path"] as? String } == readObjects.map { $0["path"] as? String }, "--workers \(workers)")
            #expect(NSArray(array: objects).isEqual(to: readObjects), "the objects of read --jsonl --items")
        }
        // With a catalog: a rescan prints only the files read again, still in walk order.
        let database = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: database) }
        let db = database.appendingPathComponent("library.sqlite").path
        #expect(try CatalogTestSupport.mdkit(["scan", "--quiet", "--db", db, root.path]).status == 1)
        let changed = ["d6/f13.ogg", "d0/f7.mp3", "d2/f2.mp3"].map { root.appendingPathComponent($0) }
        for url in changed { try Data(try Data(contentsOf: url)).write(to: url) } // same bytes, new mtime (and maybe inode)
        let later = Date(timeIntervalSinceNow: 5)
        for url in changed { try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: url.path) }
        let rescan = try CatalogTestSupport.mdkit(["scan", "--jsonl", "--quiet", "--workers", "4", "--db", db, root.path])
        #expect(
            try CatalogTestSupport.jsonLines(rescan.standardOutput).map { $0["path"] as? String }
                == [changed[1], changed[2], changed[0]].map(\.path))
    }

    @Test func progressLineOnAForcedTerminalAndNoneWhenQuiet() throws {
        let root = try CatalogTestSupport.makeLibrary(count: 40, folders: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("not media".utf8).write(to: root.appendingPathComponent("d1/broken.mp3"))
        let mdkit = try #require(TestSupport.mdkitExecutable).path
        // MDKIT_PROGRESS=1 draws as on a terminal (the check Progress.shouldShow makes).
        let shown = try TestSupport.run("sh", ["-c", "MDKIT_PROGRESS=1 \"$0\" scan --jsonl \"$1\" > /dev/null", mdkit, root.path])
        #expect(shown.status == 1)
        let text = shown.standardError
        #expect(text.contains("\r41/41 files  "), "the final line: all done of the total found\n\(text)")
        #expect(text.contains(" files/s  ") && text.contains(" MB/s") && text.contains("  1 error"), "\(text)")
        #expect(text.contains("ETA 0:00"), "\(text)")
        // The error line clears the progress line, and the summary follows the final line on a line of its own.
        #expect(text.contains("\u{1B}[K" + root.appendingPathComponent("d1/broken.mp3").path + ": error: "), "\(text)")
        #expect(text.contains("\u{1B}[K\nscanned 41 files: 41 read"), "\(text)")
        let quiet = try TestSupport.run("sh", ["-c", "MDKIT_PROGRESS=1 \"$0\" scan --quiet --jsonl \"$1\" > /dev/null", mdkit, root.path])
        #expect(quiet.standardError.isEmpty, "\(quiet.standardError)")
        // Through a pipe (no terminal): errors and the summary, no progress.
        let piped = try CatalogTestSupport.mdkit(["scan", "--jsonl", root.path])
        #expect(!piped.standardError.contains("files/s") && !piped.standardError.contains("\r"), "\(piped.standardError)")
        #expect(piped.standardError.contains("scanned 41 files"))
    }
}
