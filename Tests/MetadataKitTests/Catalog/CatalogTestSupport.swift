import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// A catalog for one test, in one of the back ends: a new SQLite file in a
/// temporary folder, or a new database on the PostgreSQL server of
/// `MDKIT_TEST_POSTGRES_URL` (dropped by ``remove()``).
struct TestCatalog: Sendable {
    enum Backend: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgreSQL
        var testDescription: String { rawValue }

        /// SQLite always; PostgreSQL where a server is given (CI starts one).
        static var available: [Backend] { Capabilities.postgreSQL ? [.sqlite, .postgreSQL] : [.sqlite] }
    }

    let backend: Backend
    /// The file path or the connection string (what `mdkit scan --db` takes).
    let location: String
    private let folder: URL?
    private let databaseName: String?

    init(_ backend: Backend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let folder = try TestSupport.makeTemporaryDirectory()
            self.folder = folder
            location = folder.appendingPathComponent("library.sqlite").path
            databaseName = nil
        case .postgreSQL:
            let server = try #require(Capabilities.postgreSQLURL, "MDKIT_TEST_POSTGRES_URL names the test server")
            let name = "mdkit_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgreSQLDatabase(server).exec("CREATE DATABASE \(name)")
            var components = try #require(URLComponents(string: server))
            components.path = "/" + name
            location = try #require(components.string)
            folder = nil
            databaseName = name
        }
    }

    /// A new connection (its own catalog object).
    func open() throws -> SQLCatalog {
        switch backend {
        case .sqlite: return try SQLiteCatalog(path: location)
        case .postgreSQL: return try PostgreSQLCatalog(connection: location)
        }
    }

    /// What ``LibraryScanner`` opens per stage.
    var opener: @Sendable () throws(CatalogError) -> any Catalog {
        let backend = backend, location = location
        return { () throws(CatalogError) -> any Catalog in
            switch backend {
            case .sqlite: return try SQLiteCatalog(path: location)
            case .postgreSQL: return try PostgreSQLCatalog(connection: location)
            }
        }
    }

    /// The rows of `sql` (values as text).
    func rows(_ sql: String) throws -> [[String?]] {
        var rows: [[String?]] = []
        try open().query(sql) { rows.append($0) }
        return rows
    }

    /// The single value of `sql`.
    func value(_ sql: String) throws -> String? {
        try rows(sql).first?.first ?? nil
    }

    /// The number of files, read without opening a catalog (which migrates
    /// the schema); 0 while the tables are not made.
    func peekFileCount() -> Int {
        var count: Int64?
        switch backend {
        case .sqlite:
            count = try? SQLiteConnection(path: location, readOnly: true).integer("SELECT count(*) FROM files")
        case .postgreSQL:
            count = (try? PostgreSQLDatabase(location).value("SELECT count(*) FROM files")).flatMap { $0.flatMap { Int64($0) } }
        }
        return Int(count ?? 0)
    }

    /// The id of the row of `path`.
    func id(_ path: URL) throws -> String? {
        try value("SELECT id FROM files WHERE path = '\(path.path.replacingOccurrences(of: "'", with: "''"))'")
    }

    func remove() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        if let databaseName, let server = Capabilities.postgreSQLURL {
            try? PostgreSQLDatabase(server).exec("DROP DATABASE IF EXISTS \(databaseName) WITH (FORCE)")
        }
    }
}

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

    /// Scans `roots` into `catalog` (nil: none) in this process.
    @discardableResult
    static func scan(
        _ roots: [URL], into catalog: TestCatalog?, full: Bool = false, prune: Bool = false, workers: Int = 2,
        walker: FolderWalker.Options = FolderWalker.Options(), events: @escaping @Sendable (ScanEvent) -> Void = { _ in }
    ) async throws -> ScanSummary {
        var options = LibraryScanner.Options()
        options.full = full
        options.prune = prune
        options.workers = workers
        options.walker = walker
        return try await LibraryScanner(options: options, openCatalog: catalog?.opener).scan(roots.map(\.path), events: events)
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
