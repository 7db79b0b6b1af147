#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The prepared statements of ``SQLiteCatalog``'s batched store, held by the
/// writing connection: no SQL text is built, hashed or parsed per file.
final class SQLiteBatchStatements {
    /// Rows per multi-row `INSERT` of a child table (at most 640 parameters:
    /// far below SQLite's limit of 32,766).
    static let rowsPerInsert = 64

    /// A new file's row, or no row (and no id) when its host and path have one.
    let insertFile: SQLiteStatement
    /// The row of a host and path, updated; returns its id.
    let updateFileByPath: SQLiteStatement
    /// The row of an id, updated; returns its id (none when it was deleted).
    let updateFileByID: SQLiteStatement
    /// Removes the row at a host and path other than an id (a renamed file takes the path).
    let deleteOtherAtPath: SQLiteStatement
    /// Per child table: its rows of a file id, deleted.
    let deleteChildren: [SQLiteStatement]
    /// Per child table: its rows of the file ids in a range, deleted.
    let deleteChildrenInRange: [SQLiteStatement]
    /// Per child table: one row inserted.
    let insertOne: [SQLiteStatement]
    /// Per child table: ``rowsPerInsert`` rows inserted.
    let insertMany: [SQLiteStatement]

    /// Inserts `count` rows of the child table `table`: the first ones
    /// ``rowsPerInsert`` at a time, the rest one by one.
    func rows(of table: String, count: Int) throws(CatalogError) -> ChildRows {
        guard let index = CatalogSchema.childTables.firstIndex(of: table), let columns = SQLCatalog.childColumns[table] else {
            throw CatalogError("no child table \(table)")
        }
        return ChildRows(
            many: insertMany[index], one: insertOne[index], width: Int32(columns.count),
            throughMany: count - count % Self.rowsPerInsert)
    }

    /// The rows of one child table going in: ``row(_:)`` binds each, a
    /// statement runs when its rows are bound.
    struct ChildRows {
        let many: SQLiteStatement
        let one: SQLiteStatement
        /// Parameters per row.
        let width: Int32
        /// How many of the rows go through `many` (a multiple of ``rowsPerInsert``).
        let throughMany: Int
        private(set) var written = 0

        init(many: SQLiteStatement, one: SQLiteStatement, width: Int32, throughMany: Int) {
            self.many = many
            self.one = one
            self.width = width
            self.throughMany = throughMany
        }

        /// Binds the next row with `bind` (given the statement and the row's first parameter) and runs what is complete.
        mutating func row(_ bind: (SQLiteStatement, Int32) -> Void) throws(CatalogError) {
            if written < throughMany {
                let slot = written % SQLiteBatchStatements.rowsPerInsert
                bind(many, 1 + Int32(slot) * width)
                written += 1
                if slot == SQLiteBatchStatements.rowsPerInsert - 1 {
                    defer { many.reset() }
                    try many.step()
                }
            } else {
                bind(one, 1)
                written += 1
                defer { one.reset() }
                try one.step()
            }
        }
    }

    init(_ database: SQLiteDatabase) throws(CatalogError) {
        let connection = database.connection
        let columns = SQLCatalog.fileColumns
        let list = columns.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
        insertFile = try connection.prepare(
            "INSERT INTO files (host, \(list)) VALUES (?, \(placeholders)) ON CONFLICT (host, path) DO NOTHING RETURNING id")
        updateFileByPath = try connection.prepare("UPDATE files SET \(assignments) WHERE host = ? AND path = ? RETURNING id")
        updateFileByID = try connection.prepare("UPDATE files SET \(assignments) WHERE id = ? RETURNING id")
        deleteOtherAtPath = try connection.prepare("DELETE FROM files WHERE host = ? AND path = ? AND id <> ?")
        var deleteChildren: [SQLiteStatement] = []
        var deleteChildrenInRange: [SQLiteStatement] = []
        var insertOne: [SQLiteStatement] = []
        var insertMany: [SQLiteStatement] = []
        for table in CatalogSchema.childTables {
            let columns = SQLCatalog.childColumns[table] ?? []
            let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            let insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            deleteChildren.append(try connection.prepare("DELETE FROM \(table) WHERE file_id = ?"))
            deleteChildrenInRange.append(try connection.prepare("DELETE FROM \(table) WHERE file_id BETWEEN ? AND ?"))
            insertOne.append(try connection.prepare(insert + row))
            insertMany.append(try connection.prepare(insert + Array(repeating: row, count: Self.rowsPerInsert).joined(separator: ", ")))
        }
        self.deleteChildren = deleteChildren
        self.deleteChildrenInRange = deleteChildrenInRange
        self.insertOne = insertOne
        self.insertMany = insertMany
    }
}

extension SQLiteCatalog {
    /// The child rows of a run of stores, waiting to go in together.
    struct PendingRows {
        /// The files stored, with their rows' ids, in order.
        var stores: [(id: Int64, record: CatalogRecord)] = []
        /// The ids of the rows the run inserted (new paths), lowest and highest.
        var fresh: ClosedRange<Int64>?
    }

    /// Applies `changes` in the open transaction: per file stored, one
    /// statement for its `files` row and, for a file that had a row, one
    /// `DELETE` per child table; the child rows of consecutive stores go in
    /// together, ``SQLiteBatchStatements/rowsPerInsert`` rows per statement.
    /// Moves and deletes, rare, one statement each, in their place.
    ///
    /// A new path's row gets an id above every row's (SQLite takes the
    /// largest rowid plus one), so the ids a run of stores inserted are a
    /// range that holds no other file's row: before the run's child rows go
    /// in, one `DELETE` per table over that range clears rows a file of such
    /// an id may have left (a row deleted with foreign keys off, e.g. by
    /// the `sqlite3` shell), instead of five per file.
    ///
    /// The first batch on a connection, when the catalog has no file yet, drops the indexes of
    /// ``CatalogSchema/bulkLoadIndexes``: the rows go in in id order, so a
    /// batch dirties (and the WAL receives) a few pages at the end of each
    /// table instead of pages all over those indexes; ``finishScan(_:summary:)``
    /// makes them again (from sorted keys, once), and so does the next
    /// opening of the catalog when the scan was interrupted.
    func applyBatched(_ changes: [CatalogChange]) throws(CatalogError) {
        let statements: SQLiteBatchStatements
        if let prepared = batchStatements {
            statements = prepared
        } else {
            if try sqlite.value("SELECT NOT EXISTS (SELECT 1 FROM files)") == "1" {
                for index in CatalogSchema.bulkLoadIndexes { try sqlite.exec("DROP INDEX IF EXISTS \(index.name)") }
                droppedIndexes = true
            }
            statements = try SQLiteBatchStatements(sqlite)
            batchStatements = statements
        }
        var pending = PendingRows()
        for change in changes {
            switch change {
            case .store(let known, let record):
                let values = Self.fileValues(record)
                var id: Int64?
                if let known {
                    // Another row at this path (a file replaced by a renamed one) gives way.
                    try statements.deleteOtherAtPath.run([.text(host), .text(record.path), .integer(known)])
                    id = try statements.updateFileByID.integerResult(values + [.integer(known)])
                }
                var fresh = false
                if id == nil {
                    id = try statements.insertFile.integerResult([.text(host)] + values)
                    fresh = id != nil
                }
                if id == nil { id = try statements.updateFileByPath.integerResult(values + [.text(host), .text(record.path)]) }
                guard let id else { throw CatalogError("the store of \(record.path) found no row and made none") }
                if fresh {
                    pending.fresh = pending.fresh.map { min($0.lowerBound, id)...max($0.upperBound, id) } ?? id...id
                } else {
                    // Its old child rows go first (and the pending ones, which may be its own).
                    try insert(&pending, with: statements)
                    for delete in statements.deleteChildren { try delete.run([.integer(id)]) }
                }
                pending.stores.append((id, record))
            case .move, .delete:
                try insert(&pending, with: statements)
                try applyChange(change)
            }
        }
        try insert(&pending, with: statements)
    }

    /// Inserts the child rows of the `pending` stores, table by table, the
    /// values bound straight from the records (no row arrays), and empties them.
    private func insert(_ pending: inout PendingRows, with statements: SQLiteBatchStatements) throws(CatalogError) {
        if let fresh = pending.fresh {
            for delete in statements.deleteChildrenInRange { try delete.run([.integer(fresh.lowerBound), .integer(fresh.upperBound)]) }
            pending.fresh = nil
        }
        let stores = pending.stores
        pending.stores.removeAll(keepingCapacity: true)
        guard !stores.isEmpty else { return }
        // Column orders as in SQLCatalog.childColumns.
        var fields = try statements.rows(of: "fields", count: stores.reduce(0) { $0 + $1.record.fields.count })
        for (id, record) in stores {
            for (field, value) in record.fields {
                try fields.row { statement, first in
                    statement.bind(first, id)
                    statement.bind(first + 1, field)
                    statement.bind(first + 2, value)
                }
            }
        }
        var items = try statements.rows(of: "items", count: stores.reduce(0) { $0 + $1.record.items.reduce(0) { $0 + $1.values.count } })
        for (id, record) in stores {
            for (position, item) in record.items.enumerated() {
                for (index, value) in item.values.enumerated() {
                    try items.row { statement, first in
                        statement.bind(first, id)
                        statement.bind(first + 1, position)
                        statement.bind(first + 2, index)
                        statement.bind(first + 3, item.keySpace)
                        statement.bind(first + 4, item.key)
                        statement.bind(first + 5, value)
                        statement.bind(first + 6, item.byteCount)
                        statement.bind(first + 7, item.type)
                        statement.bind(first + 8, item.language)
                    }
                }
            }
        }
        var streams = try statements.rows(of: "streams", count: stores.reduce(0) { $0 + $1.record.properties.streams.count })
        for (id, record) in stores {
            for (position, stream) in record.properties.streams.enumerated() {
                try streams.row { statement, first in
                    statement.bind(first, id)
                    statement.bind(first + 1, position)
                    statement.bind(first + 2, stream.kind.rawValue)
                    statement.bind(first + 3, stream.trackID)
                    statement.bind(first + 4, stream.codec)
                    statement.bind(first + 5, stream.bitrate)
                    statement.bind(first + 6, stream.sampleRate)
                    statement.bind(first + 7, stream.channels)
                    statement.bind(first + 8, stream.width)
                    statement.bind(first + 9, stream.height)
                }
            }
        }
        var artwork = try statements.rows(of: "artwork", count: stores.reduce(0) { $0 + $1.record.pictures.count })
        for (id, record) in stores {
            for (position, picture) in record.pictures.enumerated() {
                try artwork.row { statement, first in
                    statement.bind(first, id)
                    statement.bind(first + 1, position)
                    statement.bind(first + 2, picture.pictureType)
                    statement.bind(first + 3, picture.mimeType)
                    statement.bind(first + 4, picture.description)
                    statement.bind(first + 5, picture.byteCount)
                    statement.bind(first + 6, picture.width)
                    statement.bind(first + 7, picture.height)
                    statement.bind(first + 8, picture.sha256)
                }
            }
        }
        var warnings = try statements.rows(of: "warnings", count: stores.reduce(0) { $0 + $1.record.warnings.count })
        for (id, record) in stores {
            for (position, warning) in record.warnings.enumerated() {
                try warnings.row { statement, first in
                    statement.bind(first, id)
                    statement.bind(first + 1, position)
                    statement.bind(first + 2, warning.code.rawValue)
                    statement.bind(first + 3, warning.offset)
                    statement.bind(first + 4, warning.message)
                }
            }
        }
    }
}
