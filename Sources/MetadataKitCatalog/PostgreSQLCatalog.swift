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

/// A catalog in a PostgreSQL database, for libraries scanned from several
/// machines into one place: the same tables as ``SQLiteCatalog`` (64-bit
/// integers, `path` in byte order with `COLLATE "C"`), rows keyed by host
/// and path so concurrent scans upsert without losing or duplicating rows.
/// A batch of files goes in with `COPY` into a staging table and one upsert
/// from it, in the batch's transaction (`copyStores(_:)`).
/// The schema version is kept in the table `catalog_schema`; a migration
/// holds a transaction-scoped advisory lock, so concurrent first opens
/// migrate once. Text values lose NUL characters (PostgreSQL text can't hold them).
public final class PostgreSQLCatalog: SQLCatalog {
    /// Connects with `connection`, a libpq connection string
    /// (`postgresql://user@host:port/database` or `host=… dbname=…`).
    public init(connection: String, host: String = CatalogLocation.hostName) throws(CatalogError) {
        let database = try PostgreSQLDatabase(connection)
        self.postgres = database
        try super.init(database: database, location: connection, host: host)
    }

    /// The connection, as its own type (for `COPY`).
    let postgres: PostgreSQLDatabase

    /// Stores go in with `COPY` a run at a time (`copyStores(_:)`); moves
    /// and deletes, rare, one statement each, in their place.
    override func applyInTransaction(_ changes: [CatalogChange]) throws(CatalogError) {
        var stores: [(id: Int64?, record: CatalogRecord)] = []
        for change in changes {
            if case .store(let id, let record) = change {
                stores.append((id, record))
                continue
            }
            try copyStores(stores)
            stores.removeAll()
            try applyChange(change)
        }
        try copyStores(stores)
    }

    /// Whether `location` names a PostgreSQL database rather than an SQLite file.
    public static func isConnectionString(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }
}

/// ``SQLDatabase`` over one libpq connection: statements prepared once
/// (named `s1`, `s2`, …), parameters and results as text.
final class PostgreSQLDatabase: SQLDatabase {
    let connection: OpaquePointer
    private var prepared: [String: String] = [:]

    init(_ info: String) throws(CatalogError) {
        _ = try LibPQ.shared.get() // loaded on first use: see LibPQ
        guard let connection = PQconnectdb(info) else { throw CatalogError("PostgreSQL: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingWhitespaceAndNewlines()
            PQfinish(connection)
            throw CatalogError(.cannotOpen, "can't connect to PostgreSQL: \(message)")
        }
        self.connection = connection
        // Notices (such as "relation already exists, skipping") are not ours to print.
        _ = try? exec("SET client_min_messages = warning")
    }

    deinit { PQfinish(connection) }

    var lastError: String {
        String(cString: PQerrorMessage(connection)).trimmingWhitespaceAndNewlines()
    }

    /// Checks a result and clears it unless `keep`.
    private func check(_ result: OpaquePointer?, _ sql: String) throws(CatalogError) -> OpaquePointer {
        guard let result else { throw CatalogError("PostgreSQL: \(lastError)") }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK: return result
        default:
            let message = String(cString: PQresultErrorMessage(result)).trimmingWhitespaceAndNewlines()
            PQclear(result)
            throw CatalogError("PostgreSQL: \(message) (in: \(sql.prefix(80)))")
        }
    }

    func exec(_ sql: String) throws(CatalogError) {
        PQclear(try check(PQexec(connection, sql), sql))
    }

    /// `sql` with its `?` parameters numbered `$1`, `$2`, … (the catalog's statements have no `?` in literals).
    static func numbered(_ sql: String) -> (String, Int) {
        var text = ""
        var count = 0
        for character in sql {
            if character == "?" {
                count += 1
                text += "$\(count)"
            } else {
                text.append(character)
            }
        }
        return (text, count)
    }

    /// The name of the prepared statement for `sql`, preparing it the first time.
    private func statement(_ sql: String) throws(CatalogError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        let (text, count) = Self.numbered(sql)
        PQclear(try check(PQprepare(connection, name, text, Int32(count), nil), sql))
        prepared[sql] = name
        return name
    }

    func query(_ sql: String, _ values: [SQLValue], _ body: ([String?]) -> Void) throws(CatalogError) {
        let name = try statement(sql)
        let texts: [String?] = values.map { value in
            switch value {
            case .null: return nil
            case .integer(let number): return String(number)
            case .real(let number): return "\(number)"
            case .text(let text): return text.contains("\0") ? text.replacing("\0", with: "") : text
            }
        }
        // strdup'd C strings, freed after the call.
        let pointers: [UnsafePointer<CChar>?] = texts.map { $0.map { UnsafePointer(strdup($0)!) } }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        let result = try check(PQexecPrepared(connection, name, Int32(pointers.count), pointers, nil, nil, 0), sql)
        defer { PQclear(result) }
        let rows = PQntuples(result), columns = PQnfields(result)
        for row in 0..<rows {
            body(
                (0..<columns).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                })
        }
    }

    func cells(_ sql: String, _ body: ([SQLCell]) -> Void) throws(CatalogError) {
        // Prepared: PostgreSQL refuses more than one statement there.
        let name = try statement(sql)
        let result = try check(PQexecPrepared(connection, name, 0, nil, nil, nil, 0), sql)
        defer { PQclear(result) }
        let rows = PQntuples(result), columns = PQnfields(result)
        let types = (0..<columns).map { PQftype(result, $0) }
        for row in 0..<rows {
            body(
                (0..<columns).map { column in
                    guard PQgetisnull(result, row, column) == 0 else { return .null }
                    return Self.cell(String(cString: PQgetvalue(result, row, column)), type: types[Int(column)])
                })
        }
    }

    /// A value in PostgreSQL's text form as its type (by OID) reads:
    /// int2/int4/int8/oid as integers, float4/float8 as reals, bool as 1 or 0,
    /// bytea (`\x` and hex digits) as bytes, anything else as text.
    static func cell(_ text: String, type: UInt32) -> SQLCell {
        switch type {
        case 20, 21, 23, 26: return Int64(text).map { .integer($0) } ?? .text(text)
        case 700, 701: return Double(text).map { .real($0) } ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        case 17 where text.hasPrefix("\\x"):
            var bytes: [UInt8] = []
            var digits = text.utf8.dropFirst(2).makeIterator()
            while let high = digits.next(), let low = digits.next() {
                guard let byte = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return .text(text) }
                bytes.append(byte)
            }
            return .blob(bytes)
        default: return .text(text)
        }
    }

    func statementCount(_ sql: String) throws(CatalogError) -> Int? { nil }

    func columns(_ sql: String) throws(CatalogError) -> [String] {
        let name = try statement(sql)
        let result = try check(PQdescribePrepared(connection, name), sql)
        defer { PQclear(result) }
        return (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    }

    var beginWrite: String { "BEGIN" }

    var dialect: SQLDialect { .postgreSQL }

    func storedSchemaVersion() throws(CatalogError) -> Int {
        // Concurrent first opens wait here for the one migrating.
        try exec("SELECT pg_advisory_xact_lock(7236441); CREATE TABLE IF NOT EXISTS catalog_schema (version BIGINT NOT NULL)")
        return Int(try value("SELECT max(version) FROM catalog_schema") ?? "0") ?? 0
    }

    func peekSchemaVersion() -> Int? {
        (try? value("SELECT max(version) FROM catalog_schema")).flatMap { $0.flatMap { Int($0) } }
    }

    func storeSchemaVersion(_ version: Int) throws(CatalogError) {
        try exec("DELETE FROM catalog_schema; INSERT INTO catalog_schema (version) VALUES (\(version))")
    }

    /// SQLite's types in PostgreSQL's words: 64-bit integers, identity keys,
    /// doubles, `jsonb` for the JSON lists, and `path` compared byte by byte
    /// (the prune's range query needs it).
    func translate(_ schema: String) -> String {
        schema.replacing("JSON_TEXT", with: "JSONB").replacing(
            "INTEGER PRIMARY KEY", with: "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
        )
        .replacing(" INTEGER", with: " BIGINT")
        .replacing(" REAL", with: " DOUBLE PRECISION")
        .replacing("path TEXT NOT NULL", with: "path TEXT COLLATE \"C\" NOT NULL")
    }
}
