#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The prepared statements of ``SQLiteCatalog``'s batched store, held by the
/// writing connection: no SQL text is built, hashed or parsed per file.
final class SQLiteBatchStatements {
    /// A new file's row, or no row when its host and path have one.
    let insertFile: SQLiteStatement
    /// The row of a host and path, updated.
    let updateFileByPath: SQLiteStatement
    /// The row of an id, updated (none when it was deleted).
    let updateFileByID: SQLiteStatement
    /// Removes the row at a host and path other than an id (a renamed file takes the path).
    let deleteOtherAtPath: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(CatalogError) {
        let connection = database.connection
        let columns = SQLCatalog.fileColumns
        let list = columns.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
        insertFile = try connection.prepare(
            "INSERT INTO files (\(list), host) VALUES (\(placeholders), ?) ON CONFLICT (host, path) DO NOTHING")
        updateFileByPath = try connection.prepare("UPDATE files SET \(assignments) WHERE host = ? AND path = ?")
        updateFileByID = try connection.prepare("UPDATE files SET \(assignments) WHERE id = ?")
        deleteOtherAtPath = try connection.prepare("DELETE FROM files WHERE host = ? AND path = ? AND id <> ?")
    }
}

extension SQLiteCatalog {
    /// Applies `changes` in the open transaction: per file stored, one
    /// statement for its `files` row, which holds its lists too
    /// (``CatalogLists``): an insert of a new path, an update of a known
    /// row; moves and deletes, rare, one statement each, in their place.
    ///
    /// The first batch on a connection, when the catalog has no file yet, drops the indexes of
    /// `CatalogSchema.bulkLoadIndexes`: the rows go in in id order, so a
    /// batch dirties (and the WAL receives) a few pages at the end of the
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
        for change in changes {
            switch change {
            case .store(let known, let record):
                let values = Self.fileValues(record)
                var stored = 0
                if let known {
                    // Another row at this path (a file replaced by a renamed one) gives way.
                    try statements.deleteOtherAtPath.run([.text(host), .text(record.path), .integer(known)])
                    stored = try statements.updateFileByID.changedRows(values, then: [.integer(known)])
                }
                if stored == 0 { stored = try statements.insertFile.changedRows(values, then: [.text(host)]) }
                if stored == 0 { stored = try statements.updateFileByPath.changedRows(values, then: [.text(host), .text(record.path)]) }
                guard stored > 0 else { throw CatalogError(.inconsistent, "the store of \(record.path) found no row and made none") }
            case .move, .delete:
                try applyChange(change)
            }
        }
    }
}
