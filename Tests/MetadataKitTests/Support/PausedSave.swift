import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// Runs `mdkit write` in a child process paused (test hook
/// `MDKIT_TEST_PAUSE_BEFORE`) before one step of an inserting save, and kills
/// it there with SIGKILL, for the tests of recovery after a crash.
enum PausedSave {
    /// Starts `mdkit write FILE --set title=TITLE` paused before `step`
    /// (`insert`: the journal is written, the file not yet grown;
    /// `patchWrite`: the space is inserted, the new bytes not yet written),
    /// waits until the file shows that step was reached (up to two minutes: a
    /// loaded machine is slow), kills the process and waits for it.
    ///
    /// - Returns: whether the step was reached before the kill.
    static func killWrite(of url: URL, title: String, before step: String) async throws -> Bool {
        let executable = try #require(TestSupport.mdkitExecutable, "the mdkit binary beside the tests")
        let size = try FileSource(url: url).size
        let process = Process()
        process.executableURL = executable
        process.arguments = ["write", url.path, "--set", "title=" + title]
        process.environment = ProcessInfo.processInfo.environment.merging(["MDKIT_TEST_PAUSE_BEFORE": step]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The journal appears before the insert; the inserted space before the write.
        let journal = EditJournal.url(for: url).path
        var reached = false
        for _ in 0..<4800 where !reached {
            try await Task.sleep(nanoseconds: 25_000_000)
            let grown = ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? size) > size
            reached = step == "insert" ? FileManager.default.fileExists(atPath: journal) : grown
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return reached
    }

    /// Starts `mdkit` with `arguments` paused before `step` (any save), waits
    /// until the journal of `url` appears or the process ends (up to 10 s),
    /// gives it 0.2 s more, kills it with SIGKILL and waits for it.
    ///
    /// - Returns: whether the process was still running when it was killed
    ///   (it had paused, not finished or failed).
    @discardableResult
    static func killWrite(_ arguments: [String], journalOf url: URL, before step: String) async throws -> Bool {
        let executable = try #require(TestSupport.mdkitExecutable, "the mdkit binary beside the tests")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["MDKIT_TEST_PAUSE_BEFORE": step]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where process.isRunning && !FileManager.default.fileExists(atPath: EditJournal.url(for: url).path) {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let paused = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return paused
    }
}
