import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The data step of the migration to schema version 2: every file's rows
/// in version 1's tables `fields`, `items`, `streams`, `artwork` and
/// `warnings` written into its `files` row as ``CatalogLists`` (the same JSON
/// a scan writes), with the columns version 2 adds (`artwork_sha256`, the
/// MusicBrainz IDs) taken from them. A thousand files at a time: memory stays
/// flat in the catalog's size. Runs in the migration's transaction, with the
/// same statements on both back ends.
enum CatalogListsMigration {
    static let filesPerStep: Int64 = 1000

    /// What one file's rows become.
    struct Converted {
        var lists = CatalogLists()
        var artworkSHA256: String?
        /// The values of ``SQLCatalog/fieldColumns``, by field name.
        var fieldValues: [String: String] = [:]
    }

    /// Steps over the rows that exist, ``filesPerStep`` at a time, from the
    /// lowest id: gaps in the ids (any id is allowed) cost nothing.
    static func moveLists(in database: any SQLDatabase) throws(CatalogError) {
        func id(_ sql: String, _ values: [SQLValue]) throws(CatalogError) -> Int64? {
            try database.value(sql, values).flatMap { Int64($0) }
        }
        var next = try id("SELECT min(id) FROM files", [])
        while let low = next {
            let high =
                try id("SELECT id FROM files WHERE id >= ? ORDER BY id LIMIT 1 OFFSET ?", [.integer(low), .integer(filesPerStep - 1)])
                ?? Int64.max
            try moveLists(ofIDs: low...high, in: database)
            next = high == Int64.max ? nil : try id("SELECT min(id) FROM files WHERE id > ?", [.integer(high)])
        }
    }

    private static func moveLists(ofIDs ids: ClosedRange<Int64>, in database: any SQLDatabase) throws(CatalogError) {
        var files: [Int64: Converted] = [:]
        let range: [SQLValue] = [.integer(ids.lowerBound), .integer(ids.upperBound)]
        /// Calls `body` with each row of `columns` of `table` in the range, in file and position order (with
        /// the list's writer and what the row's file becomes), and gives each file's list to `finish`.
        func each(
            _ table: String, _ columns: String, order: String = "position", object: Bool = false,
            _ body: (inout CatalogLists.Writer, inout Converted, [String?]) -> Void, finish: (inout Converted, String?) -> Void
        ) throws(CatalogError) {
            var writer = CatalogLists.Writer()
            var current: Int64?
            func flush() {
                guard let current else { return }
                finish(&files[current, default: Converted()], writer.finish(object: object))
            }
            try database.query(
                "SELECT file_id, \(columns) FROM \(table) WHERE file_id BETWEEN ? AND ? ORDER BY file_id, \(order)", range
            ) { row in
                let id = row[0].flatMap { Int64($0) } ?? -1
                if id != current {
                    flush()
                    current = id
                }
                body(&writer, &files[id, default: Converted()], Array(row.dropFirst()))
            }
            flush()
        }
        func integer(_ text: String?) -> Int64? { text.flatMap { Int64($0) } }

        let columnFields = Set(SQLCatalog.fieldColumns.map(\.field.rawValue))
        try each("fields", "field, value", order: "field", object: true) { writer, file, row in
            let field = row[0] ?? "", value = row[1] ?? ""
            writer.objectMember(field, value)
            if columnFields.contains(field) { file.fieldValues[field] = value }
        } finish: { file, list in
            file.lists.fields = list
        }
        // Items: a row per value; an item's values are consecutive rows of its file and position.
        var itemWriter = CatalogLists.Writer()
        var item: (id: Int64, position: String, row: [String?], values: [String?])?
        func writeItem() {
            guard let pending = item else { return }
            let row = pending.row
            itemWriter.item(
                keySpace: row[3] ?? "", key: row[4] ?? "", values: pending.values, byteCount: integer(row[6]).map { Int($0) },
                type: row[7] ?? "", language: row[8])
            item = nil
        }
        func finishFile(_ id: Int64) { files[id, default: Converted()].lists.items = itemWriter.finish() }
        try database.query(
            """
            SELECT file_id, position, value_index, key_space, key, value, byte_count, type, language FROM items
                WHERE file_id BETWEEN ? AND ? ORDER BY file_id, position, value_index
            """, range
        ) { row in
            let id = integer(row[0]) ?? -1
            if let pending = item, pending.id != id || pending.position != row[1] {
                writeItem()
                if pending.id != id { finishFile(pending.id) }
            }
            if item == nil { item = (id, row[1] ?? "", row, []) }
            item?.values.append(row[5])
        }
        if let pending = item {
            writeItem()
            finishFile(pending.id)
        }
        try each(
            "streams", "kind, track_id, codec, bitrate, sample_rate, channels, width, height",
            { writer, _, row in
                writer.stream(
                    kind: row[0] ?? "", trackID: integer(row[1]), codec: row[2], bitrate: integer(row[3]), sampleRate: integer(row[4]),
                    channels: integer(row[5]), width: integer(row[6]), height: integer(row[7]), bitsPerSample: nil, language: nil,
                    name: nil)
            }, finish: { file, list in file.lists.streams = list })
        try each(
            "artwork", "position, picture_type, mime_type, description, byte_count, width, height, sha256",
            { writer, file, row in
                writer.picture(
                    pictureType: row[1] ?? "", mimeType: row[2] ?? "", description: row[3] ?? "", byteCount: integer(row[4]) ?? 0,
                    width: integer(row[5]), height: integer(row[6]), sha256: row[7])
                if row[0] == "0" { file.artworkSHA256 = row[7] }
            }, finish: { file, list in file.lists.artwork = list })
        try each(
            "warnings", "code, byte_offset, message",
            { writer, _, row in writer.warning(code: row[0] ?? "", byteOffset: integer(row[1]), message: row[2] ?? "") },
            finish: { file, list in file.lists.warnings = list })

        let assignments =
            (["fields_json", "items_json", "streams_json", "artwork_json", "warnings_json", "artwork_sha256"]
            + SQLCatalog.fieldColumns.map(\.column)).map { "\($0) = ?" }.joined(separator: ", ")
        for (id, file) in files.sorted(by: { $0.key < $1.key }) {
            let lists = file.lists
            try database.run(
                "UPDATE files SET \(assignments) WHERE id = ?",
                [lists.fields, lists.items, lists.streams, lists.artwork, lists.warnings, file.artworkSHA256].map(SQLValue.string)
                    + SQLCatalog.fieldColumns.map { SQLValue.string(file.fieldValues[$0.field.rawValue]) } + [.integer(id)])
        }
    }
}
