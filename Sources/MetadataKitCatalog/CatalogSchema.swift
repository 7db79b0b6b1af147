#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The catalog's tables (docs/CATALOG.md describes every column), as a list
/// of migrations: migration `n` takes a catalog from version `n` to `n + 1`.
/// A catalog records its version (SQLite: `PRAGMA user_version`) and is
/// migrated when opened, in one transaction; one made by a newer version is refused.
enum CatalogSchema {
    /// The version this code writes.
    static let currentVersion = 3

    /// Takes the catalog of `database` from version `version` to `version + 1`.
    static func migrate(_ database: any SQLDatabase, from version: Int) throws(CatalogError) {
        switch version {
        case 0: try database.exec(database.translate(version1))
        case 1:
            try database.exec(database.translate(version2Columns))
            try CatalogListsMigration.moveLists(in: database)
            try database.exec(version2Finish(database.dialect))
        case 2: try database.exec(database.translate(version3(database.dialect)))
        default: throw CatalogError(.schema, "no migration from schema version \(version)")
        }
    }

    /// Version 1: files with their main fields inline, and one table per list
    /// (normalized fields, raw items, streams, artwork, warnings) keyed by the
    /// file's id; a row's id survives rereads and renames.
    static let version1 = """
        CREATE TABLE scans (
            id INTEGER PRIMARY KEY,
            host TEXT NOT NULL,
            roots TEXT NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL,
            files_seen INTEGER,
            files_read INTEGER,
            files_moved INTEGER,
            errors INTEGER,
            pruned INTEGER
        );
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            host TEXT NOT NULL,
            path TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            mtime_ns INTEGER NOT NULL,
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            format TEXT,
            mime_type TEXT,
            editable INTEGER,
            title TEXT,
            artist TEXT,
            album TEXT,
            album_artist TEXT,
            genre TEXT,
            year TEXT,
            track_number INTEGER,
            disc_number INTEGER,
            duration REAL,
            bitrate INTEGER,
            sample_rate INTEGER,
            channels INTEGER,
            bits_per_sample INTEGER,
            codec TEXT,
            width INTEGER,
            height INTEGER,
            artwork_count INTEGER NOT NULL DEFAULT 0,
            warning_count INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            error_code TEXT,
            error_offset INTEGER,
            scanned_at REAL NOT NULL,
            scan_id INTEGER,
            UNIQUE (host, path)
        );
        CREATE INDEX files_identity ON files (device, inode);
        CREATE INDEX files_artist ON files (artist);
        CREATE INDEX files_album ON files (album_artist, album);
        CREATE INDEX files_error ON files (error_code) WHERE error_code IS NOT NULL;
        CREATE TABLE fields (
            file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
            field TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (file_id, field)
        );
        CREATE INDEX fields_value ON fields (field, value);
        CREATE TABLE items (
            file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            value_index INTEGER NOT NULL,
            key_space TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT,
            byte_count INTEGER,
            type TEXT NOT NULL,
            language TEXT,
            PRIMARY KEY (file_id, position, value_index)
        );
        CREATE INDEX items_key ON items (key_space, key);
        CREATE TABLE streams (
            file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL,
            track_id INTEGER,
            codec TEXT,
            bitrate INTEGER,
            sample_rate INTEGER,
            channels INTEGER,
            width INTEGER,
            height INTEGER,
            PRIMARY KEY (file_id, position)
        );
        CREATE TABLE artwork (
            file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            picture_type TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            description TEXT NOT NULL,
            byte_count INTEGER NOT NULL,
            width INTEGER,
            height INTEGER,
            sha256 TEXT,
            PRIMARY KEY (file_id, position)
        );
        CREATE INDEX artwork_sha256 ON artwork (sha256);
        CREATE TABLE warnings (
            file_id INTEGER NOT NULL REFERENCES files (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            code TEXT NOT NULL,
            byte_offset INTEGER,
            message TEXT NOT NULL,
            PRIMARY KEY (file_id, position)
        );
        """

    /// Version 2, its first part: the lists of a file (version 1's tables
    /// `fields`, `items`, `streams`, `artwork`, `warnings`) become JSON columns
    /// of its `files` row (``CatalogLists``: one row per file stored instead of
    /// twenty), and the values most queried besides the inline fields get
    /// columns of their own. `JSON_TEXT` is text in SQLite (its affinity), `JSONB` in PostgreSQL.
    static let version2Columns = """
        ALTER TABLE files ADD COLUMN fields_json JSON_TEXT;
        ALTER TABLE files ADD COLUMN items_json JSON_TEXT;
        ALTER TABLE files ADD COLUMN streams_json JSON_TEXT;
        ALTER TABLE files ADD COLUMN artwork_json JSON_TEXT;
        ALTER TABLE files ADD COLUMN warnings_json JSON_TEXT;
        ALTER TABLE files ADD COLUMN artwork_sha256 TEXT;
        ALTER TABLE files ADD COLUMN musicbrainz_recording_id TEXT;
        ALTER TABLE files ADD COLUMN musicbrainz_release_id TEXT;
        ALTER TABLE files ADD COLUMN musicbrainz_release_group_id TEXT;
        ALTER TABLE files ADD COLUMN musicbrainz_artist_id TEXT;
        """

    /// Version 2, its last part (after ``CatalogListsMigration`` moved the
    /// rows into the columns): the tables dropped, the indexes of the new
    /// columns made, and views of the old tables' names and columns over the
    /// JSON, so that queries written for version 1 run unchanged.
    static func version2Finish(_ dialect: SQLDialect) -> String {
        """
        DROP TABLE fields;
        DROP TABLE items;
        DROP TABLE streams;
        DROP TABLE artwork;
        DROP TABLE warnings;
        \(version2Indexes.map { $0.definition + ";" }.joined(separator: "\n"))
        \(listViews(dialect))
        """
    }

    /// The indexes of version 2: by the new columns, and `files_entries`,
    /// which holds what a rescan looks up per file (``SQLCatalog`` `entries`)
    /// so that it reads the index only, not the rows with their lists.
    static let version2Indexes: [(name: String, definition: String)] = [
        ("files_entries", "CREATE INDEX files_entries ON files (host, path, size, mtime_ns, device, inode)"),
        ("files_artwork_sha256", "CREATE INDEX files_artwork_sha256 ON files (artwork_sha256) WHERE artwork_sha256 IS NOT NULL"),
        (
            "files_musicbrainz_release",
            "CREATE INDEX files_musicbrainz_release ON files (musicbrainz_release_id) WHERE musicbrainz_release_id IS NOT NULL"
        ),
        (
            "files_musicbrainz_recording",
            "CREATE INDEX files_musicbrainz_recording ON files (musicbrainz_recording_id) WHERE musicbrainz_recording_id IS NOT NULL"
        ),
    ]

    /// The views `fields`, `items`, `streams`, `artwork` and `warnings`: one
    /// row per element of the JSON lists, with version 1's columns
    /// (positions from 0), `file_id` the `files` row's id.
    static func listViews(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            // json_each: `key` is the array index (or the object member's name), `value` the element.
            func column(_ element: String, _ name: String) -> String { "json_extract(\(element).value, '$.\(name)') AS \(name)" }
            func columns(_ element: String, _ names: [String]) -> String { names.map { column(element, $0) }.joined(separator: ", ") }
            return """
                CREATE VIEW fields AS
                    SELECT f.id AS file_id, j.key AS field, j.value AS value FROM files f, json_each(f.fields_json) j;
                CREATE VIEW items AS
                    SELECT f.id AS file_id, i.key AS position, v.key AS value_index, \(columns("i", ["key_space", "key"])),
                        v.value AS value, \(columns("i", ["byte_count", "type", "language"]))
                    FROM files f, json_each(f.items_json) i, json_each(i.value, '$.values') v;
                CREATE VIEW streams AS
                    SELECT f.id AS file_id, s.key AS position, \(columns("s", streamColumns))
                    FROM files f, json_each(f.streams_json) s;
                CREATE VIEW artwork AS
                    SELECT f.id AS file_id, a.key AS position, \(columns("a", artworkColumns))
                    FROM files f, json_each(f.artwork_json) a;
                CREATE VIEW warnings AS
                    SELECT f.id AS file_id, w.key AS position, \(columns("w", warningColumns))
                    FROM files f, json_each(f.warnings_json) w;
                """
        case .postgreSQL:
            let integers: Set<String> = [
                "byte_count", "track_id", "bitrate", "sample_rate", "channels", "width", "height", "bits_per_sample", "byte_offset",
            ]
            func column(_ element: String, _ name: String) -> String {
                integers.contains(name) ? "(\(element).e ->> '\(name)')::bigint AS \(name)" : "\(element).e ->> '\(name)' AS \(name)"
            }
            func columns(_ element: String, _ names: [String]) -> String { names.map { column(element, $0) }.joined(separator: ", ") }
            func elements(_ column: String, _ alias: String) -> String {
                "CROSS JOIN LATERAL jsonb_array_elements(f.\(column)) WITH ORDINALITY AS \(alias)(e, n)"
            }
            return """
                CREATE VIEW fields AS
                    SELECT f.id AS file_id, j.key AS field, j.value AS value FROM files f CROSS JOIN LATERAL jsonb_each_text(f.fields_json) j;
                CREATE VIEW items AS
                    SELECT f.id AS file_id, i.n - 1 AS position, v.n - 1 AS value_index, \(columns("i", ["key_space", "key"])),
                        v.value AS value, \(columns("i", ["byte_count", "type", "language"]))
                    FROM files f \(elements("items_json", "i"))
                        CROSS JOIN LATERAL jsonb_array_elements_text(i.e -> 'values') WITH ORDINALITY AS v(value, n);
                CREATE VIEW streams AS
                    SELECT f.id AS file_id, s.n - 1 AS position, \(columns("s", streamColumns)) FROM files f \(elements("streams_json", "s"));
                CREATE VIEW artwork AS
                    SELECT f.id AS file_id, a.n - 1 AS position, \(columns("a", artworkColumns)) FROM files f \(elements("artwork_json", "a"));
                CREATE VIEW warnings AS
                    SELECT f.id AS file_id, w.n - 1 AS position, \(columns("w", warningColumns)) FROM files f \(elements("warnings_json", "w"));
                """
        }
    }

    /// Version 3: what `mdkit check` finds in each file (docs/CHECK.md), as
    /// a JSON list in `files.findings_json`, and the view `findings` over it
    /// with the file's path: `select code, count(*) from findings group by code`.
    /// A catalog migrated from version 2 has the findings of the files read since.
    static func version3(_ dialect: SQLDialect) -> String {
        let view: String
        switch dialect {
        case .sqlite:
            view = """
                CREATE VIEW findings AS
                    SELECT f.id AS file_id, f.path AS path, x.key AS position,
                        \(findingColumns.map { "json_extract(x.value, '$.\($0)') AS \($0)" }.joined(separator: ", "))
                    FROM files f, json_each(f.findings_json) x;
                """
        case .postgreSQL:
            view = """
                CREATE VIEW findings AS
                    SELECT f.id AS file_id, f.path AS path, x.n - 1 AS position, x.e ->> 'code' AS code,
                        x.e ->> 'severity' AS severity, (x.e ->> 'byte_offset')::bigint AS byte_offset,
                        x.e ->> 'message' AS message, (x.e ->> 'fixable')::boolean AS fixable
                    FROM files f CROSS JOIN LATERAL jsonb_array_elements(f.findings_json) WITH ORDINALITY AS x(e, n);
                """
        }
        return "ALTER TABLE files ADD COLUMN findings_json JSON_TEXT;\n" + view
    }

    static let findingColumns = ["code", "severity", "byte_offset", "message", "fixable"]

    static let streamColumns = [
        "kind", "track_id", "codec", "bitrate", "sample_rate", "channels", "width", "height", "bits_per_sample", "language", "name",
    ]
    static let artworkColumns = ["picture_type", "mime_type", "description", "byte_count", "width", "height", "sha256"]
    static let warningColumns = ["code", "byte_offset", "message"]

    /// The indexes whose keys are spread over the whole table (by artist,
    /// album, picture hash, MusicBrainz IDs), each with its definition as in
    /// ``version1`` and ``version2Indexes``: a new SQLite catalog's first scan
    /// makes them after its rows are in (``SQLiteCatalog/applyBatched(_:)``),
    /// instead of updating pages all over them, and written again, in every batch.
    /// `files_entries` is kept up to date instead: its keys (host and path)
    /// come in the walk's order, so a batch only adds to its end, and making
    /// it at the end would take one more pass over every row after the
    /// reading is done (Benchmarks/README.md, "Figures behind the code").
    static let bulkLoadIndexes = restoredIndexes.filter { $0.name != "files_entries" }

    /// Every index a first scan may have left out: ``bulkLoadIndexes``, and
    /// `files_entries`, which an interrupted first scan by an earlier mdkit
    /// may have left out as well. Opening a catalog
    /// makes the missing ones (``SQLiteCatalog/restoreBulkLoadIndexes()``).
    static let restoredIndexes: [(name: String, definition: String)] =
        [
            ("files_artist", "CREATE INDEX files_artist ON files (artist)"),
            ("files_album", "CREATE INDEX files_album ON files (album_artist, album)"),
        ] + version2Indexes
}

/// The SQL dialect of a back end, where the catalog's statements differ.
enum SQLDialect {
    case sqlite, postgreSQL
}
