import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

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
        // A rescan of changed files replaces the lists (no duplicates, no leftovers).
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
        // Every file has its fields and items.
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM fields)") == "0")
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM items)") == "0")
    }

    /// The lists of many files stored in one batch (SQLite: a statement per
    /// file; PostgreSQL: `COPY` and one upsert) are each file's, all of them,
    /// as its record holds them, through the views.
    @Test(arguments: TestCatalog.Backend.available)
    func aLargeBatchKeepsEveryListOfEveryFile(backend: TestCatalog.Backend) async throws {
        let count = 157 // not a multiple of the rows per INSERT of any table
        let root = try CatalogTestSupport.makeLibrary(count: count, folders: 3)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        let summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.read == count && summary.errors == 0, "\(summary)")
        var expected: [String: CatalogRecord] = [:]
        for name in CatalogTestSupport.mediaFixtures {
            let url = TestSupport.fixtures.appendingPathComponent("valid/" + name)
            let status = try #require(FileStatus(path: url.path, followingLinks: false))
            let item = try await MediaItem.loaded(url)
            expected[(name as NSString).pathExtension] = CatalogRecord(path: url.path, status: status, result: .success(item))
        }
        var fields: [String: Set<[String]>] = [:]
        for row in try catalog.rows("SELECT f.path, c.field, c.value FROM fields c JOIN files f ON f.id = c.file_id") {
            fields[row[0] ?? "", default: []].insert([row[1] ?? "", row[2] ?? ""])
        }
        var items: [String: [[String?]]] = [:]
        for row in try catalog.rows(
            "SELECT f.path, c.key_space, c.key, c.value FROM items c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.position, c.value_index"
        ) {
            items[row[0] ?? "", default: []].append(Array(row[1...]))
        }
        let counts = try catalog.rows(
            """
            SELECT path, (SELECT count(*) FROM artwork WHERE file_id = f.id), (SELECT count(*) FROM streams WHERE file_id = f.id)
            FROM files f
            """)
        #expect(counts.count == count)
        for row in counts {
            let path = try #require(row[0])
            let record = try #require(expected[(path as NSString).pathExtension], "\(path)")
            #expect(fields[path] == Set(record.fields.map { [$0.field, $0.value] }), "\(path)")
            var recordItems: [[String?]] = []
            for item in record.items {
                for value in item.values { recordItems.append([item.keySpace, item.key, value]) }
            }
            #expect(items[path] ?? [] == recordItems, "\(path)")
            #expect(row[1] == String(record.pictures.count) && row[2] == String(record.properties.streams.count), "\(path)")
        }
    }

    /// A row deleted from outside (the `sqlite3` shell) takes its lists with
    /// it: a new file that gets the deleted row's id (SQLite reuses the
    /// largest id) shows its own items only.
    @Test func aDeletedRowsIDReusedShowsOnlyTheNewFilesItems() async throws {
        let root = try CatalogTestSupport.makeLibrary(["a.mp3": "sample.mp3", "b.m4a": "sample.m4a"])
        let catalog = try TestCatalog(.sqlite)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        try await CatalogTestSupport.scan([root], into: catalog)
        // The file stored last has the largest id (the workers may finish in
        // either order): that row is deleted, and its id is reused.
        var stored: [(name: String, id: String)] = []
        for name in ["a.mp3", "b.m4a"] { stored.append((name, try #require(try catalog.id(root.appendingPathComponent(name))))) }
        let (lastName, last) = try #require(stored.max { Int($0.id) ?? 0 < Int($1.id) ?? 0 })
        let itemsBefore = try #require(try catalog.value("SELECT count(*) FROM items WHERE file_id = \(last)").flatMap { Int($0) })
        #expect(itemsBefore > 0)
        let connection = try SQLiteConnection(path: catalog.location)
        try connection.exec("PRAGMA foreign_keys = OFF; DELETE FROM files WHERE id = \(last)")
        try FileManager.default.removeItem(at: root.appendingPathComponent(lastName))
        try FileManager.default.copyItem(
            at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: root.appendingPathComponent("c.flac"))
        let summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.read == 1 && summary.errors == 0, "\(summary)")
        let flac = try #require(try catalog.id(root.appendingPathComponent("c.flac")))
        #expect(flac == last, "SQLite gave the new row the deleted row's id")
        let item = try await MediaItem.loaded(root.appendingPathComponent("c.flac"))
        let values = item.metadata.items.reduce(0) { count, item in
            if case .strings(let texts) = item.value { return count + max(1, texts.count) }
            return count + 1
        }
        #expect(try catalog.value("SELECT count(*) FROM items WHERE file_id = \(flac)") == String(values))
        // None of the deleted file's items (ID3 or iTunes) is left under the reused id.
        let spaces = try catalog.value("SELECT group_concat(DISTINCT key_space) FROM items WHERE file_id = \(flac)") ?? ""
        #expect(Set(spaces.split(separator: ",").map(String.init)) == Set(item.metadata.items.map(\.keySpace.rawValue)), "\(spaces)")
    }

    /// A new catalog's first batch drops the indexes whose keys are spread
    /// over the whole index (SQLite); the end of the scan makes them again as
    /// the migration defined them, and a catalog whose first scan never
    /// finished gets them back when it is next opened.
    @Test func indexesDroppedForAFirstScanAreMadeAgain() async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 12, folders: 2)
        let catalog = try TestCatalog(.sqlite)
        let interrupted = try TestCatalog(.sqlite)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
            interrupted.remove()
        }
        /// The indexes' definitions, read without opening a catalog (which makes missing ones).
        func indexes(_ catalog: TestCatalog) throws -> [String: String] {
            let statement = try SQLiteConnection(path: catalog.location, readOnly: true).prepare(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            var found: [String: String] = [:]
            while try statement.step() { found[statement.text(0) ?? ""] = statement.text(1) }
            return found
        }
        _ = try catalog.open() // migrated
        let migrated = try indexes(catalog)
        for index in CatalogSchema.bulkLoadIndexes { #expect(migrated[index.name] == index.definition) }
        try await CatalogTestSupport.scan([root], into: catalog)
        #expect(try indexes(catalog) == migrated)
        #expect(try catalog.value("SELECT count(*) FROM files") == "12")

        let url = root.appendingPathComponent("d0/f0.flac")
        let status = try #require(FileStatus(path: url.path, followingLinks: false))
        let record = CatalogRecord(path: url.path, status: status, result: .success(try await MediaItem.loaded(url)))
        let writer = try #require(try interrupted.open() as? SQLiteCatalog)
        try writer.apply([.store(id: nil, record: record)])
        #expect(writer.droppedIndexes)
        let left = try indexes(interrupted)
        #expect(CatalogSchema.bulkLoadIndexes.allSatisfy { left[$0.name] == nil })
        #expect(left["files_entries"] == migrated["files_entries"]) // kept up to date, not dropped
        _ = try interrupted.open()
        #expect(try indexes(interrupted) == migrated)
        // A second batch into a catalog with rows drops nothing.
        let second = try #require(try interrupted.open() as? SQLiteCatalog)
        try second.apply([.store(id: nil, record: record)])
        #expect(!second.droppedIndexes)
        #expect(try indexes(interrupted) == migrated)
        // An earlier version's interrupted first scan also left out files_entries: opening makes it.
        try SQLiteConnection(path: interrupted.location).exec("DROP INDEX files_entries")
        #expect(try indexes(interrupted)["files_entries"] == nil)
        _ = try interrupted.open()
        #expect(try indexes(interrupted) == migrated)
    }
}
