import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// Scans into an SQLite catalog: what a row holds (checked with ffprobe and
/// sqlite3), rescans that read only what changed (modify, add, delete with
/// --prune, rename, touch), the schema version, and hostile files.
@Suite struct CatalogScanTests {
    @Test(arguments: TestCatalog.Backend.available)
    func rowsHoldWhatTheFilesHold(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(Dictionary(uniqueKeysWithValues: CatalogTestSupport.mediaFixtures.map { ($0, $0) }))
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        let summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.seen == 5 && summary.read == 5 && summary.errors == 0)
        for name in CatalogTestSupport.mediaFixtures {
            let url = root.appendingPathComponent(name)
            let item = try await MediaItem.loaded(url)
            let row = try #require(
                try catalog.rows(
                    "SELECT path, size, format, mime_type, title, artist, album, duration, error FROM files WHERE path = '\(url.path)'"
                ).first)
            let size = try #require(FileStatus(path: url.path, followingLinks: false)).size
            #expect(row[0] == url.path && row[1] == String(size))
            #expect(row[2] == item.fileType?.identifier && row[3] == item.fileType?.mimeType)
            #expect(row[4] == item.metadata.title && row[5] == item.metadata.artist && row[6] == item.metadata.album)
            #expect(row[8] == nil)
            let duration = try #require(row[7].flatMap(Double.init))
            #expect(abs(duration - (item.properties.duration ?? -1)) < 1e-9)
            // Every raw item is a row (one per value); every normalized field too.
            let items = try catalog.value(
                "SELECT count(DISTINCT position) FROM items JOIN files ON id = file_id WHERE path = '\(url.path)'")
            #expect(items == String(item.metadata.items.count))
            let fields = try catalog.rows("SELECT field, value FROM fields JOIN files ON id = file_id WHERE path = '\(url.path)'")
            for row in fields {
                let field = try #require(MetadataField(rawValue: row[0] ?? ""))
                #expect(item.metadata[field]?.text == row[1], "\(name) \(field)")
            }
            // Independent check: ffprobe's title and duration.
            if TestSupport.hasTool("ffprobe") {
                let probe = try TestSupport.runChecked(
                    "ffprobe",
                    ["-v", "error", "-show_entries", "format=duration:format_tags=title:stream_tags=title", "-of", "json", url.path])
                let json = try #require(try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])
                let format = try #require(json["format"] as? [String: Any])
                // Ogg keeps its comments on the stream, the others on the file.
                let streamTags = ((json["streams"] as? [[String: Any]])?.first?["tags"] as? [String: Any]) ?? [:]
                let tags = (format["tags"] as? [String: Any]) ?? streamTags
                let title = tags.first { $0.key.lowercased() == "title" }?.value as? String
                #expect(title == row[4], "\(name): ffprobe's title")
                let probed = Double(format["duration"] as? String ?? "") ?? -1
                #expect(abs(probed - duration) < 0.06, "\(name): ffprobe says \(probed) s")
            }
        }
        // Artwork: the hash of the picture's bytes, as sha256sum gives it.
        let art = try catalog.rows(
            "SELECT f.path, a.mime_type, a.byte_count, a.width, a.height, a.sha256 FROM artwork a JOIN files f ON f.id = a.file_id ORDER BY f.path"
        )
        #expect(!art.isEmpty)
        for row in art {
            let item = try await MediaItem.loaded(URL(fileURLWithPath: row[0] ?? ""))
            let picture = try #require(item.metadata.artwork.first)
            #expect(row[1] == picture.mimeType && row[2] == String(picture.byteCount))
            #expect(row[3] == picture.width.map(String.init) && row[4] == picture.height.map(String.init))
            if Capabilities.sha256Tool { // sha256sum or shasum: on every CI system
                let file = root.appendingPathComponent("picture")
                try await picture.data().write(to: file)
                #expect(row[5] == (try TestSupport.sha256Hex(ofFileAt: file.path)))
            }
        }
        // The sqlite3 and psql shells read the catalog as users expect.
        if backend == .sqlite, TestSupport.hasTool("sqlite3") {
            let count = try TestSupport.runChecked("sqlite3", [catalog.location, "select count(*) from files"])
            #expect(count.text == "5\n")
            let version = try TestSupport.runChecked("sqlite3", [catalog.location, "pragma user_version; pragma journal_mode"])
            #expect(version.text == "\(CatalogSchema.currentVersion)\nwal\n")
        }
        if backend == .postgreSQL, TestSupport.hasTool("psql") {
            let count = try TestSupport.runChecked("psql", ["-XAtc", "select count(*) from files", catalog.location])
            #expect(count.text == "5\n")
        }
    }

    @Test(arguments: TestCatalog.Backend.available)
    func rescansReadOnlyWhatChanged(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 40, folders: 4)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        var summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.seen == 40 && summary.read == 40 && summary.unchanged == 0)
        summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.seen == 40 && summary.read == 0 && summary.unchanged == 40)

        // Modify (through the library's writer), touch, add, rename, delete.
        let modified = root.appendingPathComponent("d0/f0.flac")
        var item = try await MediaItem.loaded(modified)
        item.metadata.title = "Changed title"
        try await item.save()
        let modifiedID = try catalog.id(modified)
        let touched = root.appendingPathComponent("d1/f1.m4a")
        let touchedID = try catalog.id(touched)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 5), timespec(tv_sec: 1_000_000_000, tv_nsec: 5)]
        #expect(utimensat(AT_FDCWD, touched.path, &times, 0) == 0)
        try FileManager.default.copyItem(
            at: TestSupport.fixtures.appendingPathComponent("valid/sample.ogg"), to: root.appendingPathComponent("d2/new.ogg"))
        let renamedFrom = root.appendingPathComponent("d2/f2.mp3"), renamedTo = root.appendingPathComponent("moved/renamed.mp3")
        let renamedID = try catalog.id(renamedFrom)
        try FileManager.default.createDirectory(at: renamedTo.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: renamedFrom, to: renamedTo)
        let deleted = root.appendingPathComponent("d3/f3.ogg")
        try FileManager.default.removeItem(at: deleted)

        summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.seen == 40 && summary.read == 3 && summary.moved == 1 && summary.unchanged == 36, "\(summary)")
        #expect(try catalog.value("SELECT title FROM files WHERE path = '\(modified.path)'") == "Changed title")
        #expect(try catalog.id(modified) == modifiedID, "a reread keeps the row")
        #expect(try catalog.id(touched) == touchedID)
        #expect(
            try catalog.value("SELECT mtime_ns FROM files WHERE id = \(touchedID ?? "0")") == "1000000000000000005")
        #expect(try catalog.id(renamedTo) == renamedID, "a rename keeps the row")
        #expect(try catalog.id(renamedFrom) == nil)
        #expect(try catalog.id(deleted) != nil, "without --prune the row stays")
        #expect(try catalog.value("SELECT count(*) FROM files") == "41")

        summary = try await CatalogTestSupport.scan([root], into: catalog, prune: true)
        #expect(summary.read == 0 && summary.pruned == 1 && summary.unchanged == 40)
        #expect(try catalog.id(deleted) == nil)
        #expect(try catalog.value("SELECT count(*) FROM files") == "40")

        // --full rereads everything and keeps every row.
        let before = try catalog.rows("SELECT id, path FROM files ORDER BY id")
        summary = try await CatalogTestSupport.scan([root], into: catalog, full: true)
        #expect(summary.read == 40 && summary.unchanged == 0)
        #expect(
            try catalog.rows("SELECT id, path FROM files ORDER BY id").map { $0.map { $0 ?? "" } }
                == before.map { $0.map { $0 ?? "" } })
        // Five scans, each recorded as finished.
        #expect(try catalog.value("SELECT count(*) FROM scans WHERE finished_at IS NOT NULL") == "5")
    }

    @Test(arguments: TestCatalog.Backend.available)
    func hostileFolderScansWithEveryErrorRecorded(backend: TestCatalog.Backend) async throws {
        let hostile = TestSupport.fixtures.appendingPathComponent("hostile")
        let catalog = try TestCatalog(backend)
        defer { catalog.remove() }
        var walker = FolderWalker.Options()
        walker.extensions = nil // every fixture, whatever its name
        let summary = try await CatalogTestSupport.scan([hostile], into: catalog, walker: walker)
        let names = try FileManager.default.contentsOfDirectory(atPath: hostile.path)
        #expect(summary.seen == names.count && summary.read == names.count)
        #expect(try catalog.value("SELECT count(*) FROM files") == String(names.count))
        for name in names {
            let url = hostile.appendingPathComponent(name)
            var item = MediaItem(url: url)
            let row = try #require(
                try catalog.rows("SELECT error, error_code, warning_count FROM files WHERE path = '\(url.path)'").first
            )
            do {
                try await item.load()
                #expect(row[0] == nil, "\(name) reads")
                #expect(row[2] == String(item.warnings.count))
            } catch {
                #expect(row[0] == error.message && row[1] == error.code.rawValue, "\(name)")
            }
        }
        #expect(summary.errors == Int(try catalog.value("SELECT count(*) FROM files WHERE error IS NOT NULL") ?? ""))
    }

    @Test(arguments: TestCatalog.Backend.available)
    func fileVanishingBeforeItIsReadIsNotStored(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 12, folders: 1)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        // One reading worker: when the first file is read, the last one goes
        // (already walked and waiting, or not yet reached: either way it is reported, not stored).
        let last = root.appendingPathComponent("d0/f9.opus") // last in name order
        let removed = NSLock()
        nonisolated(unsafe) var done = false
        let summary = try await CatalogTestSupport.scan([root], into: catalog, workers: 1) { event in
            removed.lock()
            defer { removed.unlock() }
            if case .read = event, !done {
                done = true
                try? FileManager.default.removeItem(at: last)
            }
        }
        #expect(summary.vanished + summary.problems == 1, "\(summary)")
        #expect(summary.errors == 0)
        #expect(try catalog.id(last) == nil)
        #expect(try catalog.value("SELECT count(*) FROM files") == "11")
    }

    @Test(arguments: TestCatalog.Backend.available)
    func schemaIsVersionedAndANewerCatalogIsRefused(backend: TestCatalog.Backend) throws {
        let catalog = try TestCatalog(backend)
        defer { catalog.remove() }
        let opened = try catalog.open()
        #expect(opened.schemaVersion == CatalogSchema.currentVersion)
        // Opening again migrates nothing and keeps the rows.
        try opened.query("INSERT INTO scans (host, roots, started_at) VALUES ('h', '/', 0)")
        #expect(try catalog.open().schemaVersion == CatalogSchema.currentVersion)
        #expect(try catalog.value("SELECT count(*) FROM scans") == "1")
        try opened.query(backend == .sqlite ? "PRAGMA user_version = 99" : "UPDATE catalog_schema SET version = 99")
        #expect(throws: CatalogError.self) { try catalog.open() }
    }

    /// Two scans of different folders into one catalog at once (two
    /// processes): every file once.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"), arguments: TestCatalog.Backend.available)
    func concurrentScansIntoOneCatalog(backend: TestCatalog.Backend) async throws {
        let first = try CatalogTestSupport.makeLibrary(count: 150, folders: 5)
        let second = try CatalogTestSupport.makeLibrary(count: 150, folders: 5)
        let catalog = try TestCatalog(backend)
        defer {
            for url in [first, second] { try? FileManager.default.removeItem(at: url) }
            catalog.remove()
        }
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for root in [first, second] {
                group.addTask { try CatalogTestSupport.mdkit(["scan", "--quiet", "--db", catalog.location, root.path]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [0, 0])
        #expect(try catalog.rows("SELECT count(*), count(DISTINCT path) FROM files") == [["300", "300"]])
    }
}
