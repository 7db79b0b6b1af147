import CSQLite
import Foundation

/// A catalog in an SQLite database, the default back end: WAL mode, so
/// readers never wait for the writer and a killed writer loses at most its
/// open transaction; `synchronous=NORMAL`; statements prepared once per
/// connection. The schema version is `PRAGMA user_version`.
public final class SQLiteCatalog: SQLCatalog {
    /// The database file.
    public var path: String { location }

    /// Opens (creating it and its folder if needed) the catalog at `path`.
    public init(path: String, host: String = CatalogLocation.hostName) throws(CatalogError) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CatalogError("can't create the catalog's folder \(folder): \(error.localizedDescription)")
            }
        }
        let connection = try SQLiteConnection(path: path)
        try connection.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        try super.init(database: SQLiteDatabase(connection), location: path, host: host)
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
}
