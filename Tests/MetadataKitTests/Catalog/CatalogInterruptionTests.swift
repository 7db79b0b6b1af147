import Foundation
import Testing

@testable import MetadataKitCatalog

/// A scan killed with SIGKILL leaves a catalog that opens, passes SQLite's
/// integrity and foreign key checks and holds only whole files; the next
/// scan keeps what was stored and reads the rest.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct CatalogInterruptionTests {
    @Test(arguments: TestCatalog.Backend.available)
    func killedScanLeavesAConsistentCatalogAndTheNextOneCompletes(backend: TestCatalog.Backend) async throws {
        let total = 3000
        let root = try CatalogTestSupport.makeLibrary(count: total, folders: 30)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        let executable = try #require(TestSupport.mdkitExecutable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["scan", "--quiet", "--workers", "1", "--db", catalog.location, root.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once some batches are in (the writer commits every few hundred files or half second).
        let deadline = Date(timeIntervalSinceNow: 60)
        var stored = 0
        while Date() < deadline && process.isRunning {
            // The scan makes the tables when it starts; read without migrating (which would wait for the writer's lock).
            stored = catalog.peekFileCount()
            if stored > 0 { break }
            // A blocking sleep: this thread keeps polling (a suspended task may wait for a
            // thread of the pool, busy with other tests, until the scan is over).
            usleep(5000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the scan was killed, not finished")

        if backend == .sqlite {
            #expect(try catalog.rows("PRAGMA integrity_check") == [["ok"]])
            #expect(try catalog.rows("PRAGMA foreign_key_check").isEmpty)
        }
        let committed = Int(try catalog.value("SELECT count(*) FROM files") ?? "") ?? -1
        #expect(committed >= stored && committed > 0 && committed < total, "killed after \(committed) of \(total) files")
        // Each stored file is whole: its raw items and fields came in the same transaction.
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM items)") == "0")
        #expect(try catalog.value("SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM fields)") == "0")
        #expect(try catalog.value("SELECT count(*) FROM scans WHERE finished_at IS NULL") == "1")

        let summary = try await CatalogTestSupport.scan([root], into: catalog)
        #expect(summary.unchanged == committed && summary.read == total - committed && summary.errors == 0, "\(summary)")
        #expect(try catalog.rows("SELECT count(*), count(DISTINCT path) FROM files") == [["\(total)", "\(total)"]])
        #expect(try catalog.value("SELECT count(*) FROM scans WHERE finished_at IS NOT NULL") == "1")
    }
}
