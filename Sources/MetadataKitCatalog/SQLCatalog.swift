import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A catalog in an SQL database, whatever the back end (``SQLiteCatalog``,
/// ``PostgreSQLCatalog``): the same tables (`CatalogSchema`), the same
/// statements; a transaction per batch of changes, so an interrupted scan
/// leaves every batch whole or absent. Rows are keyed by host and path:
/// scans on several machines may write into one database at once.
///
/// Opening migrates the schema to `CatalogSchema.currentVersion` and
/// refuses a catalog of a newer version.
public class SQLCatalog: Catalog {
    public let host: String
    /// The database (for messages): a path or a connection string.
    public let location: String
    let database: any SQLDatabase

    init(database: any SQLDatabase, location: String, host: String) throws(CatalogError) {
        self.database = database
        self.location = location
        self.host = host
        try migrate()
    }

    /// The schema version of the catalog as opened (after migration).
    public var schemaVersion: Int { database.peekSchemaVersion() ?? 0 }

    private func migrate() throws(CatalogError) {
        // Current already (the usual case): no write lock, which a running scan holds most of the time.
        if database.peekSchemaVersion() == CatalogSchema.currentVersion { return }
        // In one write transaction: two scans opening a new catalog at once migrate it once.
        try database.transaction { () throws(CatalogError) in
            let version = try database.storedSchemaVersion()
            guard version <= CatalogSchema.currentVersion else {
                throw CatalogError(
                    .schema,
                    "the catalog \(location) has schema version \(version); this mdkit knows versions up to \(CatalogSchema.currentVersion)"
                )
            }
            guard version < CatalogSchema.currentVersion else { return }
            for step in version..<CatalogSchema.currentVersion {
                try CatalogSchema.migrate(database, from: step)
            }
            try database.storeSchemaVersion(CatalogSchema.currentVersion)
        }
    }

    // MARK: Looking up

    private static let entryColumns = "id, path, size, mtime_ns, device, inode"

    /// Calls `body` with the entry of each row of `sql` (selecting ``entryColumns``).
    private func entries(_ sql: String, _ values: [SQLValue], _ body: (CatalogEntry) -> Void) throws(CatalogError) {
        if let sqlite = database as? SQLiteDatabase {
            // The integers as integers (a rescan looks up every file: no text made and parsed per column).
            return try sqlite.rows(sql, values) { statement in
                let status = FileStatus(
                    size: statement.integer(2) ?? 0, modificationTimeNanoseconds: statement.integer(3) ?? 0,
                    device: UInt64(bitPattern: statement.integer(4) ?? 0), inode: UInt64(bitPattern: statement.integer(5) ?? 0))
                body(CatalogEntry(id: statement.integer(0) ?? 0, path: statement.text(1) ?? "", status: status))
            }
        }
        try database.query(sql, values) { row in
            func integer(_ index: Int) -> Int64 { row[index].flatMap { Int64($0) } ?? 0 }
            let status = FileStatus(
                size: integer(2), modificationTimeNanoseconds: integer(3), device: UInt64(bitPattern: integer(4)),
                inode: UInt64(bitPattern: integer(5)))
            body(CatalogEntry(id: integer(0), path: row[1] ?? "", status: status))
        }
    }

    public func entry(path: String) throws(CatalogError) -> CatalogEntry? {
        var found: CatalogEntry?
        try entries("SELECT \(Self.entryColumns) FROM files WHERE host = ? AND path = ?", [.text(host), .text(path)]) { found = $0 }
        return found
    }

    public func entries(from path: String, limit: Int) throws(CatalogError) -> [CatalogEntry] {
        var found: [CatalogEntry] = []
        try entries(
            "SELECT \(Self.entryColumns) FROM files WHERE host = ? AND path >= ? ORDER BY path LIMIT ?",
            [.text(host), .text(path), .int(limit)]
        ) { found.append($0) }
        return found
    }

    public func entries(identity: FileStatus.Identity) throws(CatalogError) -> [CatalogEntry] {
        var found: [CatalogEntry] = []
        try entries(
            "SELECT \(Self.entryColumns) FROM files WHERE device = ? AND inode = ? AND host = ?",
            [.integer(Int64(bitPattern: identity.device)), .integer(Int64(bitPattern: identity.inode)), .text(host)]
        ) { found.append($0) }
        return found
    }

    public func forEachEntry(under root: String, _ body: (CatalogEntry) -> Void) throws(CatalogError) {
        // The rows at root and in the range root + "/" ..< root + "0" ("0" follows "/" in byte order): an index range, no LIKE escaping.
        let base = root == "/" ? "" : root
        try entries(
            "SELECT \(Self.entryColumns) FROM files WHERE host = ? AND (path = ? OR (path >= ? AND path < ?)) ORDER BY path",
            [.text(host), .text(root), .text(base + "/"), .text(base + "0")], body)
    }

    // MARK: Writing

    public func apply(_ changes: [CatalogChange]) throws(CatalogError) {
        guard !changes.isEmpty else { return }
        try database.transaction { () throws(CatalogError) in try applyInTransaction(changes) }
    }

    /// Applies `changes` in the open transaction, one statement per row; a
    /// back end may batch them its own way (``PostgreSQLCatalog``: `COPY`).
    func applyInTransaction(_ changes: [CatalogChange]) throws(CatalogError) {
        for change in changes {
            switch change {
            case .store(let id, let record): try store(record, id: id)
            case .move, .delete: try applyChange(change)
            }
        }
    }

    /// Applies a move or a delete (a store: ``store(_:id:)``).
    func applyChange(_ change: CatalogChange) throws(CatalogError) {
        switch change {
        case .store(let id, let record): try store(record, id: id)
        case .move(let id, let path, let status):
            try database.run("DELETE FROM files WHERE host = ? AND path = ? AND id <> ?", [.text(host), .text(path), .integer(id)])
            try database.run(
                "UPDATE files SET path = ?, size = ?, mtime = ?, mtime_ns = ?, device = ?, inode = ? WHERE id = ?",
                [.text(path)] + Self.statusValues(status) + [.integer(id)])
        case .delete(let id):
            try database.run("DELETE FROM files WHERE id = ?", [.integer(id)])
        }
    }

    static func statusValues(_ status: FileStatus) -> [SQLValue] {
        [
            .integer(status.size), .real(status.modificationTime), .integer(status.modificationTimeNanoseconds),
            .integer(Int64(bitPattern: status.device)), .integer(Int64(bitPattern: status.inode)),
        ]
    }

    static let fileColumns =
        [
            "path", "size", "mtime", "mtime_ns", "device", "inode", "format", "mime_type", "editable", "title", "artist", "album",
            "album_artist", "genre", "year", "track_number", "disc_number", "duration", "bitrate", "sample_rate", "channels",
            "bits_per_sample", "codec", "width", "height", "artwork_count", "warning_count", "error", "error_code", "error_offset",
            "scanned_at", "fields_json", "items_json", "streams_json", "artwork_json", "warnings_json", "artwork_sha256",
        ] + fieldColumns.map(\.column) + ["findings_json"]

    /// The normalized fields that also have a column of their own (schema version 2), by column.
    static let fieldColumns: [(column: String, field: MetadataField)] = [
        ("musicbrainz_recording_id", .musicBrainzRecordingID), ("musicbrainz_release_id", .musicBrainzReleaseID),
        ("musicbrainz_release_group_id", .musicBrainzReleaseGroupID), ("musicbrainz_artist_id", .musicBrainzArtistID),
    ]

    /// The values of ``fileColumns`` for `record` (as its reading worker made
    /// them: ``CatalogRecord/fileValues``).
    static func fileValues(_ record: CatalogRecord) -> [SQLValue] {
        if let values = record.fileValues { return values }
        let p = record.properties
        let lists = CatalogLists(record)
        return [.text(record.path)] + statusValues(record.status) + [
            .string(record.format), .string(record.mimeType), .int(record.editable.map { $0 ? 1 : 0 }),
            .string(record.field(.title)), .string(record.field(.artist)), .string(record.field(.album)),
            .string(record.field(.albumArtist)), .string(record.field(.genre)), .string(record.field(.date)),
            .int(record.field(.trackNumber).flatMap { Int($0) }), .int(record.field(.discNumber).flatMap { Int($0) }),
            .double(p.duration), .int(p.bitrate), .int(p.sampleRate), .int(p.channels), .int(p.bitsPerSample), .string(p.codec),
            .int(p.width), .int(p.height), .int(record.pictures.count), .int(record.warnings.count),
            .string(record.error?.message), .string(record.error?.code.rawValue), record.error?.offset.map(SQLValue.integer) ?? .null,
            .real(record.scannedAt), .string(lists.fields), .string(lists.items), .string(lists.streams), .string(lists.artwork),
            .string(lists.warnings), .string(record.pictures.first?.sha256),
        ] + fieldColumns.map { .string(record.field($0.field)) } + [.string(lists.findings)]
    }

    /// Stores `record` in its one row: the row `existing` (which takes its
    /// path) when given and still there, else the row of its host and path, made if needed.
    func store(_ record: CatalogRecord, id existing: Int64?) throws(CatalogError) {
        let values = Self.fileValues(record)
        if let existing {
            // Another row at this path (a file replaced by a renamed one) gives way.
            try database.run(
                "DELETE FROM files WHERE host = ? AND path = ? AND id <> ?", [.text(host), .text(record.path), .integer(existing)])
            let assignments = Self.fileColumns.map { "\($0) = ?" }.joined(separator: ", ")
            let updated = try database.value("UPDATE files SET \(assignments) WHERE id = ? RETURNING id", values + [.integer(existing)])
            if updated != nil { return }
            // Deleted meanwhile (a concurrent prune): stored at its path.
        }
        try upsert(values)
    }

    /// Inserts the row of `values` (``fileColumns`` order) or updates the
    /// row of its host and path.
    private func upsert(_ values: [SQLValue]) throws(CatalogError) {
        let columns = Self.fileColumns
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try database.run(
            "INSERT INTO files (host, \(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (host, path) DO UPDATE SET \(updates)",
            [.text(host)] + values)
    }

    // MARK: Queries

    /// Runs one SQL statement: returns its column names, and calls `body`
    /// with each row (each value as text, nil for NULL).
    @discardableResult
    public func query(_ sql: String, _ body: ([String?]) -> Void = { _ in }) throws(CatalogError) -> [String] {
        try database.query(sql, [], body)
        return try database.columns(sql)
    }

    /// The column names of `sql`'s result.
    public func columns(_ sql: String) throws(CatalogError) -> [String] {
        try database.columns(sql)
    }

    /// Runs one SQL statement and calls `body` with each row, each value as
    /// the database typed it (SQLite's storage class; PostgreSQL's integer,
    /// floating-point, boolean and `bytea` types; anything else as text).
    public func rows(_ sql: String, _ body: ([SQLCell]) -> Void) throws(CatalogError) {
        try database.cells(sql, body)
    }

    /// How many statements `sql` holds (separated by `;`; comments and
    /// white space alone are none); nil when the back end can't tell
    /// without running them (PostgreSQL, which refuses more than one itself).
    public func statementCount(_ sql: String) throws(CatalogError) -> Int? {
        try database.statementCount(sql)
    }

    // MARK: Scans

    public func beginScan(roots: [String]) throws(CatalogError) -> Int64 {
        let id = try database.transaction { () throws(CatalogError) in
            try database.value(
                "INSERT INTO scans (host, roots, started_at) VALUES (?, ?, ?) RETURNING id",
                [.text(host), .text(roots.joined(separator: "\n")), .real(Date().timeIntervalSince1970)])
        }
        guard let id = id.flatMap({ Int64($0) }) else { throw CatalogError("the new scan's row returned no id") }
        return id
    }

    public func finishScan(_ id: Int64, summary: ScanSummary) throws(CatalogError) {
        try database.run(
            "UPDATE scans SET finished_at = ?, files_seen = ?, files_read = ?, files_moved = ?, errors = ?, pruned = ? WHERE id = ?",
            [
                .real(Date().timeIntervalSince1970), .int(summary.seen), .int(summary.read), .int(summary.moved), .int(summary.errors),
                .int(summary.pruned), .integer(id),
            ])
    }
}
