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

    /// The fields whose values version 2 also keeps in columns of their own, by column.
    static let fieldColumns: [(column: String, field: String)] = [
        ("musicbrainz_recording_id", "musicBrainzRecordingId"), ("musicbrainz_release_id", "musicBrainzReleaseId"),
        ("musicbrainz_release_group_id", "musicBrainzReleaseGroupId"), ("musicbrainz_artist_id", "musicBrainzArtistId"),
    ]

    /// What one file's rows become.
    struct Converted {
        var lists = CatalogLists()
        var artworkSHA256: String?
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
        /// Calls `body` with each row of `columns` of `table` in the range, in file and position order, and
        /// gives each file's writer's list to `finish`.
        func each(
            _ table: String, _ columns: String, order: String = "position", object: Bool = false,
            _ body: (inout CatalogLists.Writer, [String?]) -> Void, finish: (inout Converted, String?) -> Void
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
                body(&writer, Array(row.dropFirst()))
            }
            flush()
        }
        func integer(_ text: String?) -> Int64? { text.flatMap { Int64($0) } }

        try each("fields", "field, value", order: "field", object: true) { writer, row in
            writer.objectMember(row[0] ?? "", row[1] ?? "")
        } finish: { file, list in
            file.lists.fields = list
        }
        // The fields' values for their columns, and the first picture's hash.
        try database.query("SELECT file_id, field, value FROM fields WHERE file_id BETWEEN ? AND ?", range) { row in
            guard let id = integer(row[0]), let field = row[1], fieldColumns.contains(where: { $0.field == field }) else { return }
            files[id, default: Converted()].fieldValues[field] = row[2]
        }
        try database.query("SELECT file_id, sha256 FROM artwork WHERE file_id BETWEEN ? AND ? AND position = 0", range) { row in
            if let id = integer(row[0]) { files[id, default: Converted()].artworkSHA256 = row[1] }
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
            { writer, row in
                writer.stream(
                    kind: row[0] ?? "", trackID: integer(row[1]), codec: row[2], bitrate: integer(row[3]), sampleRate: integer(row[4]),
                    channels: integer(row[5]), width: integer(row[6]), height: integer(row[7]), bitsPerSample: nil, language: nil,
                    name: nil)
            }, finish: { file, list in file.lists.streams = list })
        try each(
            "artwork", "picture_type, mime_type, description, byte_count, width, height, sha256",
            { writer, row in
                writer.picture(
                    pictureType: row[0] ?? "", mimeType: row[1] ?? "", description: row[2] ?? "", byteCount: integer(row[3]) ?? 0,
                    width: integer(row[4]), height: integer(row[5]), sha256: row[6])
            }, finish: { file, list in file.lists.artwork = list })
        try each(
            "warnings", "code, byte_offset, message",
            { writer, row in writer.warning(code: row[0] ?? "", byteOffset: integer(row[1]), message: row[2] ?? "") },
            finish: { file, list in file.lists.warnings = list })

        let assignments =
            (["fields_json", "items_json", "streams_json", "artwork_json", "warnings_json", "artwork_sha256"]
            + fieldColumns.map(\.column)).map { "\($0) = ?" }.joined(separator: ", ")
        for (id, file) in files.sorted(by: { $0.key < $1.key }) {
            let lists = file.lists
            try database.run(
                "UPDATE files SET \(assignments) WHERE id = ?",
                [lists.fields, lists.items, lists.streams, lists.artwork, lists.warnings, file.artworkSHA256].map(SQLValue.string)
                    + fieldColumns.map { SQLValue.string(file.fieldValues[$0.field]) } + [.integer(id)])
        }
    }
}
