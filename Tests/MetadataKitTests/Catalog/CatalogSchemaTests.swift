import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// Schema version 2: a file's lists are JSON columns of its `files` row,
/// read through views with version 1's tables' names and columns; a
/// version 1 catalog is migrated with its rows moved into those columns.
@Suite struct CatalogSchemaTests {
    /// Texts JSON must escape (quotes, backslashes, control characters, a
    /// backslash before `u0000`), and text beyond the BMP.
    static let awkward = [
        "quote \" and backslash \\ and \\u0000 as text", "tab\t line\n cr\r bell\u{07} unit\u{1F} del\u{7F}", "😀 日本語 ÿ",
        "",
    ]

    /// A record of a real file with awkward texts in every list, stored and
    /// read back through the views: every value as written, but NUL
    /// characters, which the lists drop (SQLite's JSON functions would end
    /// the text there, PostgreSQL's jsonb refuses them).
    @Test(arguments: TestCatalog.Backend.available)
    func awkwardTextsInEveryListComeBackThroughTheViews(backend: TestCatalog.Backend) async throws {
        let catalog = try TestCatalog(backend)
        defer { catalog.remove() }
        let url = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a")
        let status = try #require(FileStatus(path: url.path, followingLinks: false))
        var record = CatalogRecord(path: "/library/a \"b\"\\c", status: status, result: .success(try await MediaItem.loaded(url)))
        let nul = "before\u{0}after"
        record.fields = Self.awkward.enumerated().map { ("field\($0.offset) \"x\"", $0.element) } + [("withNUL", nul)]
        record.items = [
            .init(keySpace: "id3", key: "TXXX:\"q\"", values: Self.awkward + [nul], byteCount: nil, type: "UTF-8", language: "eng"),
            .init(keySpace: "itunes", key: "covr", values: [nil], byteCount: 1234, type: "JPEG", language: nil),
        ]
        record.pictures = [
            .init(
                pictureType: "front", mimeType: "image/png", description: Self.awkward[1], byteCount: 99, width: 4, height: 3,
                sha256: String(repeating: "ab", count: 32))
        ]
        record.warnings = [MediaWarning(.truncated, Self.awkward[0], offset: 1 << 40), MediaWarning(.malformed, "no offset")]
        let opened = try catalog.open()
        try opened.apply([.store(id: nil, record: record)])

        let stored = "beforeafter"
        let fields = try catalog.rows("SELECT field, value FROM fields")
        #expect(Set(fields) == Set(record.fields.map { [$0.field, $0.field == "withNUL" ? stored : $0.value] }))
        let items = try catalog.rows(
            "SELECT position, value_index, key_space, key, value, byte_count, type, language FROM items ORDER BY position, value_index")
        var expected: [[String?]] = (Self.awkward + [stored]).enumerated().map { index, value in
            ["0", String(index), "id3", "TXXX:\"q\"", value, nil, "UTF-8", "eng"]
        }
        expected.append(["1", "0", "itunes", "covr", nil, "1234", "JPEG", nil])
        #expect(items == expected)
        #expect(
            try catalog.rows("SELECT position, picture_type, mime_type, description, byte_count, width, height, sha256 FROM artwork")
                == [["0", "front", "image/png", Self.awkward[1], "99", "4", "3", String(repeating: "ab", count: 32)]])
        #expect(
            try catalog.rows("SELECT position, code, byte_offset, message FROM warnings ORDER BY position")
                == [["0", "truncated", String(1 << 40), Self.awkward[0]], ["1", "malformed", nil, "no offset"]])
        let streams = try catalog.rows("SELECT position, kind, codec, sample_rate, channels FROM streams ORDER BY position")
        #expect(
            streams
                == record.properties.streams.enumerated().map { index, stream in
                    [
                        String(index), stream.mediaType.rawValue, stream.codecName, stream.sampleRate.map(String.init),
                        stream.channels.map(String.init),
                    ]
                })
        #expect(!streams.isEmpty)
        #expect(
            try catalog.rows("SELECT artwork_sha256, artwork_count, warning_count FROM files") == [
                [String(repeating: "ab", count: 32), "1", "2"]
            ])
    }

    /// The JSON of the lists is what SQLite's JSON functions parse back into
    /// the same texts (without their NUL characters), for seeded random
    /// strings of any characters.
    @Test func seededRandomTextsSurviveTheJSON() throws {
        let seed = UInt64(0x5EED_0002)
        var random = SplitMix64(state: seed)
        let connection = try SQLiteConnection(path: ":memory:")
        for round in 0..<200 {
            let texts = (0..<3).map { _ in
                String(
                    String.UnicodeScalarView(
                        (0..<Int.random(in: 0...12, using: &random)).compactMap { _ in
                            Unicode.Scalar(
                                [UInt32.random(in: 0...0x7F, using: &random), UInt32.random(in: 0...0x10FFFF, using: &random)][
                                    Int.random(in: 0...1, using: &random)])
                        }))
            }
            var writer = CatalogLists.Writer()
            writer.item(keySpace: texts[0], key: texts[1], values: [texts[2], nil], byteCount: nil, type: "t", language: nil)
            let list = writer.finish()
            let json = try #require(list)
            let statement = try connection.prepare(
                "SELECT json_extract(?1, '$[0].key_space'), json_extract(?1, '$[0].key'), json_extract(?1, '$[0].values[0]'), json_valid(?1)"
            )
            statement.bind(1, json)
            #expect(try statement.step())
            let back = [statement.text(0), statement.text(1), statement.text(2), statement.text(3)]
            statement.reset()
            #expect(
                back == texts.map { Optional($0.replacingOccurrences(of: "\0", with: "")) } + ["1"], "seed \(seed), round \(round): \(json)"
            )
        }
    }

    /// A catalog made by version 1 (its tables filled as version 1's scans
    /// filled them) opens as version 2: every list in the views as it was in
    /// the tables, the new columns filled, the old tables gone.
    @Test(arguments: TestCatalog.Backend.available)
    func aVersion1CatalogIsMigratedWithItsRows(backend: TestCatalog.Backend) throws {
        let catalog = try TestCatalog(backend)
        defer { catalog.remove() }
        let database: any SQLDatabase
        switch backend {
        case .sqlite:
            let connection = try SQLiteConnection(path: catalog.location)
            database = SQLiteDatabase(connection)
        case .postgreSQL:
            database = try PostgreSQLDatabase(catalog.location)
        }
        try database.exec(database.translate(CatalogSchema.version1))
        if backend == .sqlite {
            try database.exec("PRAGMA user_version = 1")
        } else {
            try database.exec("CREATE TABLE catalog_schema (version BIGINT NOT NULL); INSERT INTO catalog_schema VALUES (1)")
        }
        // 2,500 files (three steps of the migration), every third with lists, and one far above
        // them (ids may have gaps of any size).
        let fileCount = 2500
        let far = Int64(3) << 40
        try database.transaction { () throws(CatalogError) in
            try Self.fillVersion1(database, files: fileCount)
            try database.run(
                """
                INSERT INTO files (id, host, path, size, mtime, mtime_ns, device, inode, artwork_count, warning_count, scanned_at)
                    VALUES (?, 'h', '/m/far.mp3', 10, 1.5, 1500000000, 1, 9, 0, 0, 2.0)
                """, [.integer(far)])
            try database.run("INSERT INTO fields VALUES (?, 'title', 'far')", [.integer(far)])
        }

        let opened = try catalog.open()
        #expect(opened.schemaVersion == CatalogSchema.currentVersion)
        #expect(try catalog.value("SELECT count(*) FROM files") == String(fileCount + 1))
        #expect(try catalog.rows("SELECT field, value FROM fields WHERE file_id = \(far)") == [["title", "far"]])
        let withLists = fileCount / 3
        #expect(try catalog.value("SELECT count(*) FROM files WHERE items_json IS NOT NULL") == String(withLists))
        #expect(try catalog.value("SELECT count(DISTINCT file_id) FROM items") == String(withLists))
        #expect(try catalog.value("SELECT count(*) FROM items") == String(withLists * 4))
        for id in [3, 999, 1002, 2499] {
            #expect(
                try catalog.rows(
                    "SELECT position, value_index, key_space, key, value, byte_count, type, language FROM items WHERE file_id = \(id) ORDER BY position, value_index"
                )
                    == [
                        ["0", "0", "vorbis", "ARTIST", "a", nil, "UTF-8", nil],
                        ["0", "1", "vorbis", "ARTIST", Self.awkward[1], nil, "UTF-8", nil],
                        ["0", "2", "vorbis", "ARTIST", "c", nil, "UTF-8", nil], ["1", "0", "id3", "APIC", nil, "555", "JPEG", "eng"],
                    ], "file \(id)")
            #expect(
                Set(try catalog.rows("SELECT field, value FROM fields WHERE file_id = \(id)"))
                    == [["title", "T\(id)"], ["musicBrainzReleaseId", "rel-\(id % 7)"], ["comments", Self.awkward[id % 4]]])
            #expect(
                try catalog.rows("SELECT artwork_sha256, musicbrainz_release_id FROM files WHERE id = \(id)") == [
                    ["hash\(id % 5)", "rel-\(id % 7)"]
                ])
            #expect(
                try catalog.rows("SELECT kind, track_id, codec, bitrate, sample_rate, channels, width FROM streams WHERE file_id = \(id)")
                    == [["audio", "1", "AAC", "128000", "44100", "2", nil]])
            #expect(
                try catalog.rows("SELECT description, byte_count, width, height, sha256 FROM artwork WHERE file_id = \(id)")
                    == [[Self.awkward[0], "555", "10", "20", "hash\(id % 5)"]])
            #expect(
                try catalog.rows("SELECT code, byte_offset, message FROM warnings WHERE file_id = \(id)") == [["truncated", "77", "cut"]])
        }
        #expect(
            try catalog.rows("SELECT count(*) FROM files WHERE id % 3 <> 0 AND (fields_json IS NOT NULL OR artwork_sha256 IS NOT NULL)")
                == [["0"]])
        // The tables are views now.
        let kind =
            backend == .sqlite
            ? "SELECT type FROM sqlite_master WHERE name = 'items'"
            : "SELECT table_type FROM information_schema.tables WHERE table_name = 'items'"
        #expect(try catalog.value(kind).map { $0.lowercased().contains("view") } == true)
    }

    /// Rows as version 1's scans wrote them: `files` files, every third with lists.
    static func fillVersion1(_ database: any SQLDatabase, files fileCount: Int) throws(CatalogError) {
        for id in 1...fileCount {
            try database.run(
                """
                INSERT INTO files (id, host, path, size, mtime, mtime_ns, device, inode, title, artwork_count, warning_count, scanned_at)
                    VALUES (?, 'h', ?, 10, 1.5, 1500000000, 1, ?, ?, ?, ?, 2.0)
                """,
                [
                    .integer(Int64(id)), .text("/m/\(id).mp3"), .integer(Int64(id)), .text("T\(id)"), .int(id % 3 == 0 ? 1 : 0),
                    .int(id % 3 == 0 ? 1 : 0),
                ])
            guard id % 3 == 0 else { continue }
            try database.run("INSERT INTO fields VALUES (?, 'title', ?)", [.integer(Int64(id)), .text("T\(id)")])
            try database.run("INSERT INTO fields VALUES (?, 'musicBrainzReleaseId', ?)", [.integer(Int64(id)), .text("rel-\(id % 7)")])
            try database.run("INSERT INTO fields VALUES (?, 'comments', ?)", [.integer(Int64(id)), .text(Self.awkward[id % 4])])
            for (index, value) in ["a", Self.awkward[1], "c"].enumerated() {
                try database.run(
                    "INSERT INTO items VALUES (?, 0, ?, 'vorbis', 'ARTIST', ?, NULL, 'UTF-8', NULL)",
                    [.integer(Int64(id)), .int(index), .text(value)])
            }
            try database.run("INSERT INTO items VALUES (?, 1, 0, 'id3', 'APIC', NULL, 555, 'JPEG', 'eng')", [.integer(Int64(id))])
            try database.run(
                "INSERT INTO streams VALUES (?, 0, 'audio', 1, 'AAC', 128000, 44100, 2, NULL, NULL)", [.integer(Int64(id))])
            try database.run(
                "INSERT INTO artwork VALUES (?, 0, 'front', 'image/jpeg', ?, 555, 10, 20, ?)",
                [.integer(Int64(id)), .text(Self.awkward[0]), .text("hash\(id % 5)")])
            try database.run("INSERT INTO warnings VALUES (?, 0, 'truncated', 77, 'cut')", [.integer(Int64(id))])
        }
    }
}
