import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection: every step of a save that can fail on a real system can
/// be made to fail on demand (``FileEditor/failingStep``), so tests can check
/// that a failure at any step leaves the file as the guarantees say.
extension FileEditor {
    /// Steps a test can make fail.
    enum Step: String, Sendable, CaseIterable {
        /// Writing the undo journal; syncing it (and its folder).
        case journalWrite, journalSync
        /// Patching the file in place; syncing it (a batch: the file-system sync after patching and renaming).
        case patchWrite, dataSync
        /// Inserting space in the file (``SavePath/insertion``).
        case insert
        /// Writing the temporary file of a rewrite; syncing it.
        case temporaryWrite, temporarySync
        /// Renaming the temporary file over the original.
        case rename
        /// Syncing the folder after the save: the rename, or the journal's removal.
        case directorySync
    }

    /// Runs `body`, unless this editor was told to fail at `name`: then throws
    /// an `io` error instead.
    func step<Value>(_ name: Step, _ body: () throws -> Value) throws -> Value {
        if failingStep == name {
            throw MediaError(.io, "injected failure at step '\(name.rawValue)'")
        }
        if Self.pausedStep == name.rawValue {
            while true { sleep(3600) } // until the test kills the process
        }
        return try body()
    }

    /// Test hook for kill tests of a child process: the environment variable
    /// `MDKIT_TEST_PAUSE_BEFORE` names a step (e.g. `patchWrite`) before which
    /// the save stops for good, for the test to kill it there.
    static let pausedStep = ProcessInfo.processInfo.environment["MDKIT_TEST_PAUSE_BEFORE"]

}
