import Foundation
import MetadataKit
import MetadataKitCatalog
import Testing

/// Libraries of real media files for the catalog tests, and scans of them.
enum CatalogTestSupport {
    /// The sound fixtures (made with real encoders), by name.
    static let mediaFixtures = ["sample.flac", "sample.m4a", "sample.mp3", "sample.ogg", "sample.opus"]

    /// A new temporary folder holding `files` (relative path → fixture name,
    /// or nil for a non-media text file); folders are made as needed.
    static func makeLibrary(_ files: [String: String?]) throws -> URL {
        let root = try TestSupport.makeTemporaryDirectory()
        for (path, fixture) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let fixture {
                try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/" + fixture), to: url)
            } else {
                try Data("not media\n".utf8).write(to: url)
            }
        }
        return root
    }

    /// A library of `count` copies of the fixtures in `folders` subfolders.
    static func makeLibrary(count: Int, folders: Int = 10) throws -> URL {
        var files: [String: String?] = [:]
        for index in 0..<count {
            let fixture = mediaFixtures[index % mediaFixtures.count]
            files["d\(index % folders)/f\(index).\((fixture as NSString).pathExtension)"] = fixture
        }
        return try makeLibrary(files)
    }

    /// Scans `root` into the catalog at `database` in this process.
    @discardableResult
    static func scan(
        _ roots: [URL], into database: URL?, full: Bool = false, prune: Bool = false, workers: Int = 2,
        walker: FolderWalker.Options = FolderWalker.Options(), events: @escaping @Sendable (ScanEvent) -> Void = { _ in }
    ) async throws -> ScanSummary {
        var options = LibraryScanner.Options()
        options.full = full
        options.prune = prune
        options.workers = workers
        options.walker = walker
        var open: (@Sendable () throws(CatalogError) -> any Catalog)?
        if let path = database?.path {
            open = { () throws(CatalogError) -> any Catalog in try SQLiteCatalog(path: path) }
        }
        return try await LibraryScanner(options: options, openCatalog: open).scan(roots.map(\.path), events: events)
    }

    /// The rows of `sql` in the catalog at `database` (values as text).
    static func rows(_ database: URL, _ sql: String) throws -> [[String?]] {
        let catalog = try SQLiteCatalog(path: database.path)
        var rows: [[String?]] = []
        try catalog.query(sql) { rows.append($0) }
        return rows
    }

    /// The single value of `sql`.
    static func value(_ database: URL, _ sql: String) throws -> String? {
        try rows(database, sql).first?.first ?? nil
    }

    /// The id of the row of `path`.
    static func id(_ database: URL, _ path: URL) throws -> String? {
        try value(database, "SELECT id FROM files WHERE path = '\(path.path.replacingOccurrences(of: "'", with: "''"))'")
    }

    /// Runs the built `mdkit`.
    static func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    /// The objects of JSON lines.
    static func jsonLines(_ data: Data) throws -> [[String: Any]] {
        try data.split(separator: 0x0A).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        }
    }
}
