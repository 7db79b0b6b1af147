import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A catalog in an SQL database, whatever the back end (``SQLiteCatalog``,
/// ``PostgreSQLCatalog``): the same tables (``CatalogSchema``), the same
/// statements; a transaction per batch of changes, so an interrupted scan
/// leaves every batch whole or absent. Rows are keyed by host and path:
/// scans on several machines may write into one database at once.
///
/// Opening migrates the schema to ``CatalogSchema/currentVersion`` and
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
                    "the catalog \(location) has schema version \(version); this mdkit knows versions up to \(CatalogSchema.currentVersion)"
                )
            }
            guard version < CatalogSchema.currentVersion else { return }
            for step in version..<CatalogSchema.currentVersion {
                try database.exec(database.translate(CatalogSchema.migrations[step]))
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

    static let fileColumns = [
        "path", "size", "mtime", "mtime_ns", "device", "inode", "format", "mime_type", "editable", "title", "artist", "album",
        "album_artist", "genre", "year", "track_number", "disc_number", "duration", "bitrate", "sample_rate", "channels",
        "bits_per_sample", "codec", "width", "height", "artwork_count", "warning_count", "error", "error_code", "error_offset",
        "scanned_at",
    ]

    static func fileValues(_ record: CatalogRecord) -> [SQLValue] {
        let p = record.properties
        return [.text(record.path)] + statusValues(record.status) + [
            .string(record.format), .string(record.mimeType), .int(record.editable.map { $0 ? 1 : 0 }),
            .string(record.field(.title)), .string(record.field(.artist)), .string(record.field(.album)),
            .string(record.field(.albumArtist)), .string(record.field(.genre)), .string(record.field(.year)),
            .int(record.field(.trackNumber).flatMap { Int($0) }), .int(record.field(.discNumber).flatMap { Int($0) }),
            .double(p.duration), .int(p.bitrate), .int(p.sampleRate), .int(p.channels), .int(p.bitsPerSample), .string(p.codec),
            .int(p.width), .int(p.height), .int(record.pictures.count), .int(record.warnings.count),
            .string(record.error?.message), .string(record.error?.code.rawValue), record.error?.offset.map(SQLValue.integer) ?? .null,
            .real(record.scannedAt),
        ]
    }

    func store(_ record: CatalogRecord, id existing: Int64?) throws(CatalogError) {
        let values = Self.fileValues(record)
        var id: Int64
        if let existing {
            // Another row at this path (a file replaced by a renamed one) gives way.
            try database.run(
                "DELETE FROM files WHERE host = ? AND path = ? AND id <> ?", [.text(host), .text(record.path), .integer(existing)])
            let assignments = Self.fileColumns.map { "\($0) = ?" }.joined(separator: ", ")
            let updated = try database.value("UPDATE files SET \(assignments) WHERE id = ? RETURNING id", values + [.integer(existing)])
            id = existing
            if updated == nil { id = try upsert(values) } // deleted meanwhile (a concurrent prune)
        } else {
            id = try upsert(values)
        }
        for table in CatalogSchema.childTables {
            try database.run("DELETE FROM \(table) WHERE file_id = ?", [.integer(id)])
        }
        for (table, rows) in Self.childRows(record, id: id) {
            let columns = Self.childColumns[table] ?? []
            let insert =
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
            for row in rows { try database.run(insert, row) }
        }
    }

    /// The columns of each table of ``CatalogSchema/childTables`` that a store writes.
    static let childColumns: [String: [String]] = [
        "fields": ["file_id", "field", "value"],
        "items": ["file_id", "position", "value_index", "key_space", "key", "value", "byte_count", "type", "language"],
        "streams": ["file_id", "position", "kind", "track_id", "codec", "bitrate", "sample_rate", "channels", "width", "height"],
        "artwork": ["file_id", "position", "picture_type", "mime_type", "description", "byte_count", "width", "height", "sha256"],
        "warnings": ["file_id", "position", "code", "byte_offset", "message"],
    ]

    /// The rows of the child tables for `record`, stored as the file `id`
    /// (values in ``childColumns`` order), table by table in ``CatalogSchema/childTables`` order.
    static func childRows(_ record: CatalogRecord, id: Int64) -> [(table: String, rows: [[SQLValue]])] {
        let fields: [[SQLValue]] = record.fields.map { field, value in [.integer(id), .text(field), .text(value)] }
        var items: [[SQLValue]] = []
        for (position, item) in record.items.enumerated() {
            for (index, value) in item.values.enumerated() {
                items.append([
                    .integer(id), .int(position), .int(index), .text(item.keySpace), .text(item.key), .string(value), .int(item.byteCount),
                    .text(item.type), .string(item.language),
                ])
            }
        }
        let streams: [[SQLValue]] = record.properties.streams.enumerated().map { position, stream in
            [
                .integer(id), .int(position), .text(stream.kind.rawValue), .int(stream.trackID), .string(stream.codec),
                .int(stream.bitrate),
                .int(stream.sampleRate), .int(stream.channels), .int(stream.width), .int(stream.height),
            ]
        }
        let artwork: [[SQLValue]] = record.pictures.enumerated().map { position, picture in
            [
                .integer(id), .int(position), .text(picture.pictureType), .text(picture.mimeType), .text(picture.description),
                .int(picture.byteCount), .int(picture.width), .int(picture.height), .string(picture.sha256),
            ]
        }
        let warnings: [[SQLValue]] = record.warnings.enumerated().map { position, warning in
            [
                .integer(id), .int(position), .text(warning.code.rawValue), warning.offset.map(SQLValue.integer) ?? .null,
                .text(warning.message),
            ]
        }
        return [("fields", fields), ("items", items), ("streams", streams), ("artwork", artwork), ("warnings", warnings)]
    }

    /// Inserts the row of `values` (``fileColumns`` order) or updates the
    /// row of its host and path; returns the row's id.
    private func upsert(_ values: [SQLValue]) throws(CatalogError) -> Int64 {
        let columns = Self.fileColumns
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let id = try database.value(
            "INSERT INTO files (host, \(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (host, path) DO UPDATE SET \(updates) RETURNING id",
            [.text(host)] + values)
        guard let id = id.flatMap({ Int64($0) }) else { throw CatalogError("the upsert of a file returned no id") }
        return id
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
