import Foundation
import MetadataKit
import MetadataKitCatalog
import Testing

/// Batches as each back end writes them (PostgreSQL: `COPY` into a staging
/// table and one upsert): text with the characters COPY's text format
/// escapes comes back as written; scans of the same tree running at once
/// neither lose nor duplicate a row or a child row.
@Suite struct CatalogBatchTests {
    @Test(arguments: TestCatalog.Backend.available)
    func escapedCharactersComeBackAsWritten(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(["a.flac": "sample.flac", "b.mp3": "sample.mp3"])
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        let title = "tab\there, line\nbreak, back\\slash \\N, cr\r, quote ' \" end"
        for name in ["a.flac", "b.mp3"] {
            var item = try await MediaItem.loaded(root.appendingPathComponent(name))
            item.metadata.title = title
            item.metadata.artist = "\\"
            try await item.save()
        }
        let summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.read == 2 && summary.errors == 0, "\(summary)")
        #expect(try catalog.rows("SELECT title, artist FROM files ORDER BY path") == [[title, "\\"], [title, "\\"]])
        #expect(try catalog.rows("SELECT value FROM fields WHERE field = 'title'") == [[title], [title]])
        // A rescan of changed files replaces the child rows (no duplicates, no leftovers).
        let before = try catalog.rows("SELECT file_id, count(*) FROM items GROUP BY file_id ORDER BY file_id")
        try await CatalogTestSupport.scan([root], into: catalog, full: true)
        #expect(try catalog.rows("SELECT file_id, count(*) FROM items GROUP BY file_id ORDER BY file_id") == before)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"), arguments: TestCatalog.Backend.available)
    func scansOfTheSameTreeAtOnceKeepOneRowPerFile(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 200, folders: 4)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<3 {
                group.addTask { try CatalogTestSupport.mdkit(["scan", "--quiet", "--full", "--db", catalog.location, root.path]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [0, 0, 0])
        #expect(try catalog.rows("SELECT count(*), count(DISTINCT path) FROM files") == [["200", "200"]])
        // Every file has its fields and items, and no child row lost its file.
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM fields)") == "0")
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM items)") == "0")
        #expect(try catalog.value("SELECT count(*) FROM fields WHERE file_id NOT IN (SELECT id FROM files)") == "0")
    }
}
