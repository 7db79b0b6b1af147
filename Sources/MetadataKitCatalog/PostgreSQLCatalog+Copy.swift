#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostgreSQLCatalog {
    /// Stores `stores` in the open transaction with a few statements
    /// whatever their number:
    /// 1. `COPY` of their `files` rows (the lists among them, as `jsonb`)
    ///    into a temporary staging table (made once per connection, emptied
    ///    at each commit);
    /// 2. a file that keeps its row (``CatalogChange/store(id:record:)`` with an
    ///    id: reread, or renamed and changed) takes its new path first: another
    ///    row at that path gives way, as in a one-row store;
    /// 3. one upsert `INSERT … SELECT … ON CONFLICT (host, path) DO UPDATE`
    ///    from the staging table (the last store of a path in the batch wins):
    ///    concurrent scans into one database neither lose nor duplicate rows
    ///    (the upsert is atomic per row).
    func copyStores(_ stores: [(id: Int64?, record: CatalogRecord)]) throws(CatalogError) {
        guard !stores.isEmpty else { return }
        let columns = Self.fileColumns
        let list = columns.joined(separator: ", ")
        try postgres.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS files_staging ON COMMIT DELETE ROWS AS
                SELECT 0::bigint AS seq, 0::bigint AS known_id, \(list) FROM files WITH NO DATA;
            DELETE FROM files_staging
            """)
        try postgres.copy(
            "files_staging", columns: ["seq", "known_id"] + columns,
            rows: stores.enumerated().map { index, store in
                [.int(index), .integer(store.id ?? -1)] + Self.fileValues(store.record)
            })
        if stores.contains(where: { $0.id != nil }) {
            try database.run(
                """
                DELETE FROM files f USING files_staging s
                    WHERE s.known_id >= 0 AND f.host = ? AND f.path = s.path AND f.id <> s.known_id
                """, [.text(host)])
            try database.run(
                "UPDATE files f SET path = s.path FROM files_staging s WHERE s.known_id >= 0 AND f.id = s.known_id AND f.path <> s.path",
                [])
        }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try database.run(
            """
            INSERT INTO files (host, \(list))
                SELECT DISTINCT ON (path) ?, \(list) FROM files_staging ORDER BY path, seq DESC
                ON CONFLICT (host, path) DO UPDATE SET \(updates)
            """, [.text(host)])
    }
}

extension PostgreSQLDatabase {
    /// `COPY table (columns) FROM STDIN` of `rows` in the text format (values
    /// escaped: backslash, tab, newline, carriage return; NULL as `\N`; text
    /// loses NUL characters, as in ``query(_:_:_:)``), sent in pieces of 64 KiB.
    func copy(_ table: String, columns: [String], rows: [[SQLValue]]) throws(CatalogError) {
        guard !rows.isEmpty else { return }
        let sql = "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN"
        guard let started = PQexec(connection, sql) else { throw CatalogError("PostgreSQL: \(lastError)") }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            let message = String(cString: PQresultErrorMessage(started)).trimmingWhitespaceAndNewlines()
            PQclear(started)
            throw CatalogError("PostgreSQL: \(message) (in: \(sql.prefix(80)))")
        }
        PQclear(started)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16 + 4096)
        var sent = true
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { buffer.append(0x09) }
                Self.appendCopyText(value, to: &buffer)
            }
            buffer.append(0x0A)
            if buffer.count >= 1 << 16 {
                sent = sent && put(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty { sent = sent && put(buffer) }
        // Ending with an error message makes the server fail the COPY (and the transaction).
        let ended = sent ? PQputCopyEnd(connection, nil) : PQputCopyEnd(connection, "mdkit: sending the rows failed")
        var failure: String? = ended == 1 ? nil : lastError
        while let result = PQgetResult(connection) {
            if PQresultStatus(result) != PGRES_COMMAND_OK && failure == nil {
                failure = String(cString: PQresultErrorMessage(result)).trimmingWhitespaceAndNewlines()
            }
            PQclear(result)
        }
        if let failure { throw CatalogError("PostgreSQL: \(failure) (in: \(sql.prefix(80)))") }
    }

    /// Sends a piece of COPY data; false when the connection failed.
    private func put(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32($0.count)) == 1 }
        }
    }

    /// One value in COPY's text format.
    static func appendCopyText(_ value: SQLValue, to buffer: inout [UInt8]) {
        switch value {
        case .null: buffer += [0x5C, 0x4E] // \N
        case .integer(let number): buffer += String(number).utf8
        case .real(let number): buffer += "\(number)".utf8
        case .text(let text):
            for byte in text.utf8 {
                switch byte {
                case 0x00: continue
                case 0x5C: buffer += [0x5C, 0x5C]
                case 0x0A: buffer += [0x5C, 0x6E]
                case 0x0D: buffer += [0x5C, 0x72]
                case 0x09: buffer += [0x5C, 0x74]
                default: buffer.append(byte)
                }
            }
        }
    }
}
