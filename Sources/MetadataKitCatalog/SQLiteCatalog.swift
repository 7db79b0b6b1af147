import CSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A catalog in an SQLite database, the default back end: WAL mode, so
/// readers never wait for the writer and a killed writer loses at most its
/// open transaction; `synchronous=NORMAL`; statements prepared once per
/// connection; a batch's child rows go in with multi-row `INSERT`s
/// (`applyBatched(_:)`). The schema version is `PRAGMA user_version`.
public final class SQLiteCatalog: SQLCatalog {
    /// The database file.
    public var path: String { location }

    /// Opens (creating it and its folder if needed) the catalog at `path`.
    public init(path: String, host: String = CatalogLocation.hostName) throws(CatalogError) {
        let folder = Self.folder(of: path)
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CatalogError(.cannotOpen, "can't create the catalog's folder \(folder): \(Self.reason(error))")
            }
        }
        let connection = try SQLiteConnection(path: path)
        // Two scans opening a new catalog at once both switch it to WAL: one may be told BUSY at once.
        try connection.execRetryingWhileBusy("PRAGMA journal_mode=WAL")
        try connection.exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        let database = SQLiteDatabase(connection)
        sqlite = database
        try super.init(database: database, location: path, host: host)
        try restoreBulkLoadIndexes()
    }

    /// Whether this connection dropped `CatalogSchema.bulkLoadIndexes` (the
    /// first batch into a new catalog): ``finishScan(_:summary:)`` makes them again.
    var droppedIndexes = false

    /// Makes the indexes of `CatalogSchema.restoredIndexes` that are
    /// missing: a first scan that was interrupted (or is running in another
    /// process, whose later batches then update them) left them out. Reads
    /// only (no write lock) when none is missing.
    func restoreBulkLoadIndexes() throws(CatalogError) {
        var present: Set<String> = []
        try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'index'", []) { row in
            if let name = row[0] { present.insert(name) }
        }
        let missing = CatalogSchema.restoredIndexes.filter { !present.contains($0.name) }
        guard !missing.isEmpty else { return }
        try sqlite.transaction { () throws(CatalogError) in
            for index in missing {
                try sqlite.exec(index.definition.replacing("CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS "))
            }
        }
    }

    /// Records the end of a scan, after making the indexes its first batch
    /// dropped (a new catalog's: `applyBatched(_:)`).
    public override func finishScan(_ id: Int64, summary: ScanSummary) throws(CatalogError) {
        if droppedIndexes {
            try restoreBulkLoadIndexes()
            droppedIndexes = false
        }
        try super.finishScan(id, summary: summary)
    }

    /// The connection, as its own type (for the batched store).
    let sqlite: SQLiteDatabase
    /// The statements of the batched store, prepared on the first batch.
    var batchStatements: SQLiteBatchStatements?

    /// Stores a batch with a few statements per file (`applyBatched(_:)`).
    override func applyInTransaction(_ changes: [CatalogChange]) throws(CatalogError) {
        try applyBatched(changes)
    }
}

/// ``SQLDatabase`` over one SQLite connection.
final class SQLiteDatabase: SQLDatabase {
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]

    init(_ connection: SQLiteConnection) { self.connection = connection }

    func exec(_ sql: String) throws(CatalogError) { try connection.exec(sql) }

    /// The statement for `sql`, prepared once per connection.
    private func statement(_ sql: String) throws(CatalogError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func query(_ sql: String, _ values: [SQLValue], _ body: ([String?]) -> Void) throws(CatalogError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        statement.bind(values)
        while try statement.step() {
            body((0..<statement.columnCount).map { statement.text($0) })
        }
    }

    /// Runs `sql` (prepared once) with `values` and calls `body` with the
    /// statement at each row, to read its columns as they are typed.
    func rows(_ sql: String, _ values: [SQLValue], _ body: (SQLiteStatement) -> Void) throws(CatalogError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        statement.bind(values)
        while try statement.step() { body(statement) }
    }

    func cells(_ sql: String, _ body: ([SQLCell]) -> Void) throws(CatalogError) {
        let statement = try connection.prepare(sql)
        while try statement.step() {
            body((0..<statement.columnCount).map { statement.cell($0) })
        }
    }

    func statementCount(_ sql: String) throws(CatalogError) -> Int? {
        try connection.statementCount(sql)
    }

    func columns(_ sql: String) throws(CatalogError) -> [String] {
        let statement = try statement(sql)
        return (0..<statement.columnCount).map { statement.columnName($0) }
    }

    var beginWrite: String { "BEGIN IMMEDIATE" }

    func storedSchemaVersion() throws(CatalogError) -> Int {
        Int(try connection.integer("PRAGMA user_version") ?? 0)
    }

    func peekSchemaVersion() -> Int? {
        (try? connection.integer("PRAGMA user_version")).flatMap { $0.map { Int($0) } }
    }

    func storeSchemaVersion(_ version: Int) throws(CatalogError) {
        try connection.exec("PRAGMA user_version = \(version)")
    }

    func translate(_ schema: String) -> String { schema }

    var dialect: SQLDialect { .sqlite }
}

extension SQLiteCatalog {
    /// The folder part of `path`, as `NSString.deletingLastPathComponent`
    /// gives it (trailing slashes dropped first: "/a/b/" → "/a", "/c" → "/",
    /// "c" → ""); Foundation-proper is not linked.
    static func folder(of path: String) -> String {
        if path == "/" { return "/" }
        var rest = Substring(path)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        var folder = rest[..<slash]
        while folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// Why creating a folder failed: the system's text for the underlying
    /// error ("Not a directory"), else the error's description. (Foundation's
    /// `localizedDescription`, which this was, is not linked.)
    private static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }
}
