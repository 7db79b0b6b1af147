import Foundation
import MetadataKitCatalog
import Testing

/// A scan killed with SIGKILL leaves a catalog that opens, passes SQLite's
/// integrity and foreign key checks and holds only whole files; the next
/// scan keeps what was stored and reads the rest.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct CatalogInterruptionTests {
    @Test func killedScanLeavesAConsistentCatalogAndTheNextOneCompletes() async throws {
        let total = 3000
        let root = try CatalogTestSupport.makeLibrary(count: total, folders: 30)
        let folder = try TestSupport.makeTemporaryDirectory()
        let database = folder.appendingPathComponent("library.sqlite")
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: folder)
        }
        let executable = try #require(TestSupport.mdkitExecutable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["scan", "--quiet", "--workers", "1", "--db", database.path, root.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once some batches are in (the writer commits every few hundred files or half second).
        let deadline = Date(timeIntervalSinceNow: 60)
        var stored = 0
        while Date() < deadline && process.isRunning {
            if FileManager.default.fileExists(atPath: database.path) {
                stored = Int(try CatalogTestSupport.value(database, "SELECT count(*) FROM files") ?? "0") ?? 0
                if stored > 0 { break }
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the scan was killed, not finished")

        #expect(try CatalogTestSupport.rows(database, "PRAGMA integrity_check") == [["ok"]])
        #expect(try CatalogTestSupport.rows(database, "PRAGMA foreign_key_check").isEmpty)
        let committed = Int(try CatalogTestSupport.value(database, "SELECT count(*) FROM files") ?? "") ?? -1
        #expect(committed >= stored && committed > 0 && committed < total, "killed after \(committed) of \(total) files")
        // Each stored file is whole: its raw items and fields came in the same transaction.
        #expect(try CatalogTestSupport.value(database, "SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM items)") == "0")
        #expect(try CatalogTestSupport.value(database, "SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM fields)") == "0")
        #expect(try CatalogTestSupport.value(database, "SELECT count(*) FROM scans WHERE finished_at IS NULL") == "1")

        let summary = try await CatalogTestSupport.scan([root], into: database)
        #expect(summary.unchanged == committed && summary.read == total - committed && summary.errors == 0, "\(summary)")
        #expect(try CatalogTestSupport.rows(database, "SELECT count(*), count(DISTINCT path) FROM files") == [["\(total)", "\(total)"]])
        #expect(try CatalogTestSupport.value(database, "SELECT count(*) FROM scans WHERE finished_at IS NOT NULL") == "1")
    }
}
