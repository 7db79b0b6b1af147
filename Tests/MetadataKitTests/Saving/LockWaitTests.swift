import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// A save or load waits for another holder of the file's lock only as long
/// as allowed, then fails with `locked` naming the file, writing nothing; it
/// succeeds once the lock is free.
@Suite struct LockWaitTests {
    /// A copy of the MP3 fixture, loaded, its title edited.
    static func editedCopy(in directory: URL, _ name: String = "song.mp3") async throws -> MediaItem {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
        var item = try await MediaItem(contentsOf: url)
        item.metadata.title = "After the lock"
        return item
    }

    /// Holds the `flock` lock of the file at `url` from another descriptor
    /// until `release()` (or, at the latest, `safety` seconds: a save that
    /// waits without end then finishes, and the test fails instead of hanging).
    final class Holder: @unchecked Sendable {
        let descriptor: Int32
        init(_ url: URL, exclusive: Bool = true, safety: Double = 300) {
            descriptor = open(url.path, O_RDONLY)
            flock(descriptor, exclusive ? LOCK_EX : LOCK_SH)
            let descriptor = descriptor
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: safety)
                flock(descriptor, LOCK_UN)
            }
        }
        func release() { flock(descriptor, LOCK_UN) }
        deinit { close(descriptor) }
    }

    @Test(arguments: [true, false])
    func aSaveGivesUpWithLockedWhenAnotherHolderKeepsTheLock(exclusive: Bool) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var item = try await Self.editedCopy(in: directory)
        let before = try Data(contentsOf: item.url)
        let holder = Holder(item.url, exclusive: exclusive)
        let start = ContinuousClock.now
        do {
            try await item.save(options: SaveOptions(lockWaitLimit: .milliseconds(300)))
            Issue.record("the save did not wait for the lock")
        } catch {
            #expect(error.code == .locked)
            #expect(error.path == item.url.path)
        }
        let waited = ContinuousClock.now - start
        // Bounded: it gave up (`locked`) before the holder's safety release (300 s), which would have let
        // it succeed; in a busy suite the save may first wait its turn for a thread, so no tighter upper
        // limit is checked here.
        #expect(waited >= .milliseconds(300), "waited \(waited)")
        #expect(try Data(contentsOf: item.url) == before, "nothing written")

        holder.release()
        try await item.save(options: SaveOptions(lockWaitLimit: .milliseconds(300)))
        #expect(try await MediaItem(contentsOf: item.url).metadata.title == "After the lock")
    }

    @Test func aBatchSaveGivesUpOnTheLockedFileOnly() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var items = [
            try await Self.editedCopy(in: directory, "a.mp3"), try await Self.editedCopy(in: directory, "b.mp3"),
        ]
        let holder = Holder(items[1].url)
        let errors = await MediaItem.save(&items, options: SaveOptions(lockWaitLimit: .milliseconds(200)))
        holder.release()
        #expect(errors[0] == nil)
        #expect((errors[1] as? MediaError)?.code == .locked)
        #expect(try await MediaItem(contentsOf: items[0].url).metadata.title == "After the lock")
        #expect(try await MediaItem(contentsOf: items[1].url).metadata.title != "After the lock")
    }

    /// A load that finds a journal (an interrupted save, or one still
    /// running) locks the file to recover it: another holder of the lock
    /// makes it fail with `locked` after the default wait, not hang.
    @Test func aLoadWaitsForARunningSaveAsLongAsTheDefault() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let item = try await Self.editedCopy(in: directory)
        try Data("not a journal".utf8).write(to: EditJournal.url(for: item.url))
        let holder = Holder(item.url)
        let start = ContinuousClock.now
        do {
            _ = try await MediaItem(contentsOf: item.url)
            Issue.record("the load did not wait for the lock")
        } catch {
            #expect(error.code == .locked)
            #expect(error.path == item.url.path)
        }
        let waited = ContinuousClock.now - start
        // The upper bound only tells a wait from a hang: the load also queues
        // for a thread of the process's load lane, which the suites running
        // beside it (the fuzz-like tests load hundreds of files) can hold for
        // tens of seconds on a loaded 2-core machine (a CI run saw over 35 s).
        #expect(waited >= FileEditor.defaultLockWaitLimit && waited < FileEditor.defaultLockWaitLimit + .seconds(120))
        holder.release()
        #expect(try await MediaItem(contentsOf: item.url).metadata.title != nil)
        #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: item.url).path), "the torn journal is removed")
    }
}
