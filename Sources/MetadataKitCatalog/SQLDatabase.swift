#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One connection to a database a ``SQLCatalog`` keeps its tables in: the
/// few operations the catalog needs, each back end in its own dialect.
/// Statements are written with `?` parameters; values come back as text.
protocol SQLDatabase: AnyObject {
    /// Runs statements (separated by `;`) that take no parameters.
    func exec(_ sql: String) throws(CatalogError)
    /// Runs one statement (prepared once per connection) with `values` for
    /// its `?` parameters and calls `body` with each row, values as text (nil for NULL).
    func query(_ sql: String, _ values: [SQLValue], _ body: ([String?]) -> Void) throws(CatalogError)
    /// The column names of `sql`'s result.
    func columns(_ sql: String) throws(CatalogError) -> [String]
    /// Runs one statement given by a user (prepared each time, not kept)
    /// and calls `body` with each row, values as they are typed.
    func cells(_ sql: String, _ body: ([SQLCell]) -> Void) throws(CatalogError)
    /// How many statements `sql` holds; nil when the back end can't tell
    /// without running them (PostgreSQL refuses more than one itself).
    func statementCount(_ sql: String) throws(CatalogError) -> Int?
    /// Starts a transaction that writes (SQLite: takes the write lock at once).
    var beginWrite: String { get }
    /// The schema version stored in the database (0 for a new one); called in a write transaction.
    func storedSchemaVersion() throws(CatalogError) -> Int
    /// The schema version, read without taking a write lock (nil when it
    /// can't be read: a new database); a migration then checks again under the lock.
    func peekSchemaVersion() -> Int?
    /// Records `version`; called in the write transaction of the migration.
    func storeSchemaVersion(_ version: Int) throws(CatalogError)
    /// A migration of `CatalogSchema` (written for SQLite) in this dialect.
    func translate(_ schema: String) -> String
    /// Where the back end's SQL differs (`CatalogSchema.listViews(_:)`).
    var dialect: SQLDialect { get }
}

extension SQLDatabase {
    /// Runs one statement for its effect.
    func run(_ sql: String, _ values: [SQLValue]) throws(CatalogError) {
        try query(sql, values) { _ in }
    }

    /// The first value of the first row.
    func value(_ sql: String, _ values: [SQLValue] = []) throws(CatalogError) -> String? {
        var found: String??
        try query(sql, values) { row in if found == nil { found = row.first ?? nil } }
        return found ?? nil
    }

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(CatalogError) -> T) throws(CatalogError) -> T {
        try exec(beginWrite)
        do throws(CatalogError) {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }
}

/// A value bound to a statement's parameter.
enum SQLValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    static func int(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    static func string(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    static func double(_ value: Double?) -> SQLValue { value.flatMap { $0.isFinite ? .real($0) : nil } ?? .null }
}

/// A value of a query's result as the database typed it.
public enum SQLCell: Sendable, Equatable {
    /// SQL `NULL`.
    case null
    /// An integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A text.
    case text(String)
    /// Bytes.
    case blob([UInt8])
}
