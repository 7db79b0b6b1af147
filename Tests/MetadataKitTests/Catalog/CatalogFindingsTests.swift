import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// Schema version 3: a scan stores what `check` finds per file, and the
/// view `findings` (path, code, severity, byte offset, message, fixable)
/// answers "what is wrong with my library".
@Suite(.enabled(if: CheckFixtures.available, "needs ffmpeg and mutagen")) struct CatalogFindingsTests {
    typealias F = CheckFixtures

    @Test(arguments: TestCatalog.Backend.available)
    func scanStoresFindings(backend: TestCatalog.Backend) async throws {
        let folder = try F.folder()
        let v1 = try F.v1Disagreeing(in: folder)
        let clean = try F.mp3("clean.mp3", in: folder)
        let wav = folder.appendingPathComponent("cut.wav")
        try F.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", wav.path])
        try Data(contentsOf: wav).prefix(50_000).write(to: wav)
        let catalog = try TestCatalog(backend)
        defer { catalog.remove() }
        let summary = try await CatalogTestSupport.scan([folder], into: catalog)
        #expect(summary.read == 3)
        #expect(
            try catalog.rows("SELECT code, count(*) FROM findings GROUP BY code ORDER BY code") == [
                ["audio.truncated", "1"], ["id3.v1-disagrees", "1"],
            ])
        let row = try catalog.rows("SELECT path, severity, byte_offset, fixable FROM findings WHERE code = 'id3.v1-disagrees'")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: v1.path)[.size] as? Int)
        #expect(row == [[v1.path, "warning", String(size - 128), backend == .sqlite ? "1" : "t"]])
        #expect(try catalog.value("SELECT count(*) FROM findings WHERE path = '\(clean.path)'") == "0")
        #expect(try catalog.value("SELECT severity FROM findings WHERE code = 'audio.truncated'") == "error")
        if backend == .sqlite {
            let output = try TestSupport.runChecked(
                "sqlite3", [catalog.location, "select code, count(*) from findings group by code order by code"])
            #expect(output.text == "audio.truncated|1\nid3.v1-disagrees|1\n")
        }
    }

    /// A version 2 catalog gets the column and the view; its rows get
    /// findings when they are read again.
    @Test func aVersion2CatalogIsMigrated() async throws {
        let folder = try F.folder()
        _ = try F.v1Disagreeing(in: folder)
        let catalog = try TestCatalog(.sqlite)
        defer { catalog.remove() }
        _ = try await CatalogTestSupport.scan([folder], into: catalog)
        try TestSupport.runChecked(
            "sqlite3",
            [
                "-cmd", ".timeout 10000", catalog.location,
                "DROP VIEW findings; ALTER TABLE files DROP COLUMN findings_json; PRAGMA user_version = 2",
            ])
        let opened = try catalog.open()
        #expect(opened.schemaVersion == 3)
        #expect(try catalog.value("SELECT count(*) FROM findings") == "0")
        _ = try await CatalogTestSupport.scan([folder], into: catalog, full: true)
        #expect(try catalog.value("SELECT code FROM findings") == "id3.v1-disagrees")
    }
}
