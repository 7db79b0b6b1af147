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

/// An error from SQLite, PostgreSQL or a catalog: what kind of failure
/// (``code``) and the message, with the database's own where it has one.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The catalog could not be opened or created (no such folder, no
        /// permission, PostgreSQL refused the connection).
        public static let cannotOpen = Code(rawValue: "cannotOpen")
        /// What the catalog needs is missing: libpq, or a libpq too old.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The catalog's schema is newer than this version knows, or has no migration.
        public static let schema = Code(rawValue: "schema")
        /// A statement failed in the database (its message says why).
        public static let database = Code(rawValue: "database")
        /// The catalog holds what it should not (a row a store expected is gone).
        public static let inconsistent = Code(rawValue: "inconsistent")
        /// The task running the scan was cancelled; what was committed stays.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, for people.
    public var message: String
    /// An error of `code` with `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// A ``Code/database`` error with `message`.
    public init(_ message: String) { self.init(.database, message) }
    public var description: String { message }
}

/// One SQLite connection (not shared between threads: each thread of a scan
/// opens its own). A thin layer over the C API: `exec`, prepared statements.
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (creating) the database at `path`, waiting up to `busyTimeout`
    /// milliseconds for another writer's lock.
    init(path: String, readOnly: Bool = false, busyTimeout: Int32 = 60_000) throws(CatalogError) {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw CatalogError(.cannotOpen, "can't open the catalog \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyTimeout)
    }

    deinit { sqlite3_close_v2(handle) }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs one or more statements that return no rows.
    func exec(_ sql: String) throws(CatalogError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw CatalogError("SQLite: \(text) (in: \(sql.prefix(80)))")
        }
    }

    /// Runs `sql` as ``exec(_:)`` does, again while SQLite answers `SQLITE_BUSY`
    /// at once (for up to `timeout` seconds). SQLite skips the busy handler when
    /// waiting could deadlock: two connections switching a new database to WAL
    /// at the same moment each hold a read lock the other's write waits for,
    /// and one of them gets `SQLITE_BUSY` immediately; its statement rolled
    /// back, it can run again once the other is done.
    func execRetryingWhileBusy(_ sql: String, timeout: Double = 60) throws(CatalogError) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let status = sqlite3_exec(handle, sql, nil, nil, nil)
            if status == SQLITE_OK { return }
            guard status & 0xff == SQLITE_BUSY, Date() < deadline else {
                throw CatalogError("SQLite: \(lastError) (in: \(sql.prefix(80)))")
            }
            usleep(5_000)
        }
    }

    func prepare(_ sql: String) throws(CatalogError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw CatalogError("SQLite: \(lastError) (in: \(sql.prefix(80)))") }
        return SQLiteStatement(statement, connection: self)
    }

    /// How many statements `sql` holds: each prepared in turn from where the
    /// last ended (comments and white space alone make no statement).
    func statementCount(_ sql: String) throws(CatalogError) -> Int {
        var count = 0
        var utf8 = Array(sql.utf8)
        utf8.append(0)
        try utf8.withUnsafeBufferPointer { (buffer) throws(CatalogError) in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var rest: UnsafePointer<CChar>? = base
            while let start = rest, start.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                guard sqlite3_prepare_v2(handle, start, -1, &statement, &tail) == SQLITE_OK else {
                    throw CatalogError("SQLite: \(lastError)")
                }
                if let statement {
                    count += 1
                    sqlite3_finalize(statement)
                }
                guard let tail, tail != start else { break }
                rest = tail
            }
        }
        return count
    }

    /// The first column of the first row of `sql`, as an integer (nil when no row or NULL).
    func integer(_ sql: String) throws(CatalogError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.integer(0)
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement: bind by position (1-based), step, read columns (0-based).
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// SQLite copies bound text and blobs at once (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: String?) {
        guard let value else { return bindNull(index) }
        // The byte count, not -1: a value may hold NUL characters.
        var text = value
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else {
                sqlite3_bind_text(statement, index, "", 0, Self.transient)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { pointer in
                _ = sqlite3_bind_text(statement, index, pointer, Int32(bytes.count), Self.transient)
            }
        }
    }
    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else { return bindNull(index) }
        sqlite3_bind_int64(statement, index, value)
    }
    func bind(_ index: Int32, _ value: Int?) { bind(index, value.map(Int64.init)) }
    func bind(_ index: Int32, _ value: Double?) {
        guard let value, value.isFinite else { return bindNull(index) }
        sqlite3_bind_double(statement, index, value)
    }
    func bindNull(_ index: Int32) { sqlite3_bind_null(statement, index) }

    /// Binds `values` to the parameters 1, 2, … in order.
    func bind(_ values: [SQLValue]) { bind(values, from: 1) }

    /// Binds `values` to the parameters `first`, `first + 1`, … in order
    /// (a multi-row `INSERT` binds its rows one after another).
    func bind(_ values: [SQLValue], from first: Int32) {
        for (offset, value) in values.enumerated() {
            let index = first + Int32(offset)
            switch value {
            case .null: bindNull(index)
            case .integer(let number): bind(index, number)
            case .real(let number): bind(index, number)
            case .text(let text): bind(index, text)
            }
        }
    }

    /// Steps once: true when a row is ready, false when done.
    @discardableResult
    func step() throws(CatalogError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw CatalogError("SQLite: \(connection.lastError)")
        }
    }

    /// Binds `values`, runs to the end and resets.
    func run(_ values: [SQLValue]) throws(CatalogError) {
        defer { reset() }
        bind(values)
        try step()
    }

    /// Binds `values` (and `more` after them), runs the statement (an
    /// `INSERT`, `UPDATE` or `DELETE`) to the end, resets it, and returns how
    /// many rows it inserted, changed or deleted (`sqlite3_changes`). Cheaper
    /// than a `RETURNING` clause, whose rows SQLite gathers in a table of
    /// their own before handing out the first.
    func changedRows(_ values: [SQLValue], then more: [SQLValue] = []) throws(CatalogError) -> Int {
        defer { reset() }
        bind(values)
        bind(more, from: Int32(values.count) + 1)
        while try step() {}
        return connection.changes
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    var columnCount: Int32 { sqlite3_column_count(statement) }
    func columnName(_ column: Int32) -> String { sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "" }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func integer(_ column: Int32) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(statement, column) }
    func real(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, column) }
    /// The column as its storage class holds it.
    func cell(_ column: Int32) -> SQLCell {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer = sqlite3_column_blob(statement, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        case SQLITE_NULL: return .null
        default: return text(column).map { .text($0) } ?? .null
        }
    }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
