import CSQLite
import Foundation
import MetadataKit

/// A catalog in an SQLite database (the default back end): WAL mode, so
/// readers never wait for the writer; prepared statements; a transaction per
/// batch of changes, so a killed scan leaves every batch whole or absent.
///
/// Opening migrates the schema to ``CatalogSchema/currentVersion`` (recorded
/// in `PRAGMA user_version`) and refuses a catalog of a newer version.
public final class SQLiteCatalog: Catalog {
    public let host: String
    public let path: String
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating it and its folder if needed) the catalog at `path`.
    public init(path: String, host: String = CatalogLocation.hostName) throws(CatalogError) {
        self.host = host
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CatalogError("can't create the catalog's folder \(folder): \(error.localizedDescription)")
            }
        }
        connection = try SQLiteConnection(path: path)
        try connection.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        try migrate()
    }

    /// The schema version of the catalog as opened (after migration).
    public var schemaVersion: Int { Int((try? connection.integer("PRAGMA user_version")) ?? 0) }

    private func migrate() throws(CatalogError) {
        // BEGIN IMMEDIATE: two scans opening a new catalog at once migrate it once.
        try connection.exec("BEGIN IMMEDIATE")
        do throws(CatalogError) {
            let version = Int(try connection.integer("PRAGMA user_version") ?? 0)
            guard version <= CatalogSchema.currentVersion else {
                throw CatalogError(
                    "the catalog \(path) has schema version \(version); this mdkit knows versions up to \(CatalogSchema.currentVersion)")
            }
            for step in version..<CatalogSchema.currentVersion {
                try connection.exec(CatalogSchema.migrations[step])
            }
            try connection.exec("PRAGMA user_version = \(CatalogSchema.currentVersion); COMMIT")
        } catch {
            try? connection.exec("ROLLBACK")
            throw error
        }
    }

    /// The statement for `sql`, prepared once per connection.
    private func statement(_ sql: String) throws(CatalogError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    // MARK: Looking up

    private static let entryColumns = "id, path, size, mtime_ns, device, inode"

    private func entries(_ statement: SQLiteStatement, _ body: (CatalogEntry) throws(CatalogError) -> Void) throws(CatalogError) {
        defer { statement.reset() }
        while try statement.step() {
            let status = FileStatus(
                size: statement.integer(2) ?? 0, modificationTimeNanoseconds: statement.integer(3) ?? 0,
                device: UInt64(bitPattern: statement.integer(4) ?? 0), inode: UInt64(bitPattern: statement.integer(5) ?? 0))
            try body(CatalogEntry(id: statement.integer(0) ?? 0, path: statement.text(1) ?? "", status: status))
        }
    }

    public func entry(path: String) throws(CatalogError) -> CatalogEntry? {
        let query = try statement("SELECT \(Self.entryColumns) FROM files WHERE host = ? AND path = ?")
        query.bind([.text(host), .text(path)])
        var found: CatalogEntry?
        try entries(query) { found = $0 }
        return found
    }

    public func entries(identity: FileStatus.Identity) throws(CatalogError) -> [CatalogEntry] {
        let query = try statement("SELECT \(Self.entryColumns) FROM files WHERE device = ? AND inode = ? AND host = ?")
        query.bind([.integer(Int64(bitPattern: identity.device)), .integer(Int64(bitPattern: identity.inode)), .text(host)])
        var found: [CatalogEntry] = []
        try entries(query) { found.append($0) }
        return found
    }

    public func forEachEntry(under root: String, _ body: (CatalogEntry) throws(CatalogError) -> Void) throws(CatalogError) {
        // The rows at root and in the range root + "/" ..< root + "0" ("0" follows "/"): an index range, no LIKE escaping.
        let base = root == "/" ? "" : root
        let query = try connection.prepare(
            "SELECT \(Self.entryColumns) FROM files WHERE host = ? AND (path = ? OR (path >= ? AND path < ?)) ORDER BY path")
        query.bind([.text(host), .text(root), .text(base + "/"), .text(base + "0")])
        try entries(query, body)
    }

    // MARK: Writing

    public func apply(_ changes: [CatalogChange]) throws(CatalogError) {
        guard !changes.isEmpty else { return }
        try connection.exec("BEGIN IMMEDIATE")
        do throws(CatalogError) {
            for change in changes {
                switch change {
                case .store(let id, let record): try store(record, id: id)
                case .move(let id, let path, let status):
                    try statement("DELETE FROM files WHERE host = ? AND path = ? AND id <> ?").run([.text(host), .text(path), .integer(id)])
                    try statement("UPDATE files SET path = ?, size = ?, mtime = ?, mtime_ns = ?, device = ?, inode = ? WHERE id = ?")
                        .run([.text(path)] + Self.statusValues(status) + [.integer(id)])
                case .delete(let id):
                    try statement("DELETE FROM files WHERE id = ?").run([.integer(id)])
                }
            }
            try connection.exec("COMMIT")
        } catch {
            try? connection.exec("ROLLBACK")
            throw error
        }
    }

    private static func statusValues(_ status: FileStatus) -> [SQLValue] {
        [
            .integer(status.size), .real(status.modificationTime), .integer(status.modificationTimeNanoseconds),
            .integer(Int64(bitPattern: status.device)), .integer(Int64(bitPattern: status.inode)),
        ]
    }

    private static let fileColumns = [
        "path", "size", "mtime", "mtime_ns", "device", "inode", "format", "mime_type", "editable", "title", "artist", "album",
        "album_artist", "genre", "year", "track_number", "disc_number", "duration", "bitrate", "sample_rate", "channels",
        "bits_per_sample", "codec", "width", "height", "artwork_count", "warning_count", "error", "error_code", "error_offset",
        "scanned_at",
    ]

    private static func fileValues(_ record: CatalogRecord) -> [SQLValue] {
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

    private func store(_ record: CatalogRecord, id existing: Int64?) throws(CatalogError) {
        let values = Self.fileValues(record)
        var id: Int64
        if let existing {
            // Another row at this path (a file replaced by a renamed one) gives way.
            try statement("DELETE FROM files WHERE host = ? AND path = ? AND id <> ?").run([
                .text(host), .text(record.path), .integer(existing),
            ])
            let assignments = Self.fileColumns.map { "\($0) = ?" }.joined(separator: ", ")
            try statement("UPDATE files SET \(assignments) WHERE id = ?").run(values + [.integer(existing)])
            id = existing
            if connection.changes == 0 { id = try upsert(values) } // deleted meanwhile (a concurrent prune)
        } else {
            id = try upsert(values)
        }
        for table in CatalogSchema.childTables {
            try statement("DELETE FROM \(table) WHERE file_id = ?").run([.integer(id)])
        }
        let fieldInsert = try statement("INSERT INTO fields (file_id, field, value) VALUES (?, ?, ?)")
        for (field, value) in record.fields { try fieldInsert.run([.integer(id), .text(field), .text(value)]) }
        let itemInsert = try statement(
            "INSERT INTO items (file_id, position, value_index, key_space, key, value, byte_count, type, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for (position, item) in record.items.enumerated() {
            for (index, value) in item.values.enumerated() {
                try itemInsert.run([
                    .integer(id), .int(position), .int(index), .text(item.keySpace), .text(item.key), .string(value), .int(item.byteCount),
                    .text(item.type), .string(item.language),
                ])
            }
        }
        let streamInsert = try statement(
            "INSERT INTO streams (file_id, position, kind, track_id, codec, bitrate, sample_rate, channels, width, height) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for (position, stream) in record.properties.streams.enumerated() {
            try streamInsert.run([
                .integer(id), .int(position), .text(stream.kind.rawValue), .int(stream.trackID), .string(stream.codec),
                .int(stream.bitrate),
                .int(stream.sampleRate), .int(stream.channels), .int(stream.width), .int(stream.height),
            ])
        }
        let artworkInsert = try statement(
            "INSERT INTO artwork (file_id, position, picture_type, mime_type, description, byte_count, width, height, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for (position, picture) in record.pictures.enumerated() {
            try artworkInsert.run([
                .integer(id), .int(position), .text(picture.pictureType), .text(picture.mimeType), .text(picture.description),
                .int(picture.byteCount), .int(picture.width), .int(picture.height), .string(picture.sha256),
            ])
        }
        let warningInsert = try statement("INSERT INTO warnings (file_id, position, code, byte_offset, message) VALUES (?, ?, ?, ?, ?)")
        for (position, warning) in record.warnings.enumerated() {
            try warningInsert.run([
                .integer(id), .int(position), .text(warning.code.rawValue), warning.offset.map(SQLValue.integer) ?? .null,
                .text(warning.message),
            ])
        }
    }

    /// Inserts the row of `values` (``fileColumns`` order) or updates the
    /// row of its host and path; returns the row's id.
    private func upsert(_ values: [SQLValue]) throws(CatalogError) -> Int64 {
        let columns = Self.fileColumns
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let upsert = try statement(
            "INSERT INTO files (host, \(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (host, path) DO UPDATE SET \(updates) RETURNING id"
        )
        defer { upsert.reset() }
        upsert.bind([.text(host)] + values)
        guard try upsert.step(), let id = upsert.integer(0) else { throw CatalogError("SQLite: the upsert returned no id") }
        return id
    }

    // MARK: Queries

    /// Runs one SQL statement: returns its column names, and calls `body`
    /// with each row (each value as text, nil for NULL).
    @discardableResult
    public func query(_ sql: String, _ body: ([String?]) -> Void = { _ in }) throws(CatalogError) -> [String] {
        let query = try connection.prepare(sql)
        while try query.step() {
            body((0..<query.columnCount).map { query.text($0) })
        }
        return (0..<query.columnCount).map { query.columnName($0) }
    }

    /// The column names of `sql`'s result.
    public func columns(_ sql: String) throws(CatalogError) -> [String] {
        let query = try connection.prepare(sql)
        return (0..<query.columnCount).map { query.columnName($0) }
    }

    // MARK: Scans

    public func beginScan(roots: [String]) throws(CatalogError) -> Int64 {
        try connection.exec("BEGIN IMMEDIATE")
        do throws(CatalogError) {
            try statement("INSERT INTO scans (host, roots, started_at) VALUES (?, ?, ?)")
                .run([.text(host), .text(roots.joined(separator: "\n")), .real(Date().timeIntervalSince1970)])
            let id = connection.lastInsertRowID
            try connection.exec("COMMIT")
            return id
        } catch {
            try? connection.exec("ROLLBACK")
            throw error
        }
    }

    public func finishScan(_ id: Int64, summary: ScanSummary) throws(CatalogError) {
        try statement(
            "UPDATE scans SET finished_at = ?, files_seen = ?, files_read = ?, files_moved = ?, errors = ?, pruned = ? WHERE id = ?"
        ).run([
            .real(Date().timeIntervalSince1970), .int(summary.seen), .int(summary.read), .int(summary.moved), .int(summary.errors),
            .int(summary.pruned), .integer(id),
        ])
    }
}
