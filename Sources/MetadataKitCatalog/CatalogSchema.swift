#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The catalog's tables (docs/CATALOG.md describes every column), as a list
/// of migrations: migration `n` takes a catalog from version `n` to `n + 1`.
/// A catalog records its version (SQLite: `PRAGMA user_version`) and is
/// migrated when opened; one made by a newer version is refused.
enum CatalogSchema {
    /// The version this code writes.
    static var currentVersion: Int { migrations.count }

    /// Migration `index` takes version `index` to `index + 1`.
    static let migrations: [String] = [version1]

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

    /// The indexes whose keys are spread over the whole index (by artist,
    /// field value, item key, picture hash), each with its definition as in
    /// ``version1``: a new SQLite catalog's first scan makes them after its
    /// rows are in (``SQLiteCatalog/applyBatched(_:)``), instead of updating
    /// pages all over them, and written again, in every batch.
    static let bulkLoadIndexes: [(name: String, definition: String)] = [
        ("files_artist", "CREATE INDEX files_artist ON files (artist)"),
        ("files_album", "CREATE INDEX files_album ON files (album_artist, album)"),
        ("fields_value", "CREATE INDEX fields_value ON fields (field, value)"),
        ("items_key", "CREATE INDEX items_key ON items (key_space, key)"),
        ("artwork_sha256", "CREATE INDEX artwork_sha256 ON artwork (sha256)"),
    ]

    /// The tables holding a file's lists, deleted and written again when it is reread.
    static let childTables = ["fields", "items", "streams", "artwork", "warnings"]
}
