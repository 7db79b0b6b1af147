import Foundation
import Testing

@testable import MetadataKit

/// Several `mdkit write` processes on one file at once: a save that finds the
/// file changed since it was loaded loads it again and retries, so every
/// edit lands and none fails with `fileChanged`; a save that finds another
/// holding the file's lock waits for it only as long as `--lock-wait` says.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIConcurrentWriteTests {
    @Test(arguments: ["sample.mp3", "sample.flac"])
    func concurrentWritesAllLand(_ name: String) async throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(name)"), to: url)
        let space = name.hasSuffix("mp3") ? "id3:TXXX:" : "vorbis:"
        let writers = 4
        for round in 0..<3 {
            // Each writer adds its own key; the growing values change the layout now and then.
            let outputs = try await withThrowingTaskGroup(of: TestSupport.Output.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        let value = String(repeating: "v", count: 200 * (round + 1) + writer)
                        return try TestSupport.run(
                            executable.path, ["write", url.path, "--no-sync", "--set", "\(space)K\(round)W\(writer)=\(value)"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for output in outputs {
                #expect(output.status == 0, "round \(round): \(output.standardError)")
                #expect(!output.standardError.contains("load it again"))
            }
            let keys = Set(try await MediaItem.loaded(url).metadata.items.map(\.key))
            for writer in 0..<writers {
                let key = (space == "vorbis:" ? "" : "TXXX:") + "K\(round)W\(writer)"
                #expect(keys.contains(key), "round \(round): \(key) was lost")
            }
        }
    }

    /// `--lock-wait SECONDS`: a file whose lock another holder keeps fails
    /// with `locked` after that wait (the message gives it), unchanged, when
    /// saved alone and in a batch, where the other file is saved.
    @Test func lockWaitBoundsTheWaitForAnotherSave() async throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let locked = directory.appendingPathComponent("a.mp3"), free = directory.appendingPathComponent("b.flac")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: locked)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: free)
        let before = try Data(contentsOf: locked)
        let holder = BlockingWorkTests.HeldLock(locked)
        // One file (saved alone), then two (saved as a batch); 0 tries the lock once.
        for (files, wait, shown) in [([locked], "0.2", "200 ms"), ([locked, free], "0.35", "350 ms"), ([locked], "0", "0 ms")] {
            let output = try TestSupport.run(
                executable.path, ["write"] + files.map(\.path) + ["--set", "title=Locked", "--lock-wait", wait])
            #expect(output.status == 1, "\(output.standardError)")
            #expect(output.standardError.hasPrefix("\(locked.path): error: locked: "), "\(output.standardError)")
            #expect(output.standardError.contains("(waited \(shown))"), "\(output.standardError)")
            #expect(try Data(contentsOf: locked) == before)
        }
        #expect(try await MediaItem.loaded(free).metadata.title == "Locked")
        holder.release()
        let output = try TestSupport.run(executable.path, ["write", locked.path, "--set", "title=Free", "--lock-wait", "1.5"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try await MediaItem.loaded(locked).metadata.title == "Free")
        for bad in ["-1", "soon", "nan", "inf"] {
            let refused = try TestSupport.run(executable.path, ["write", locked.path, "--set", "title=x", "--lock-wait", bad])
            #expect(refused.status == 2 && refused.standardError.contains("--lock-wait needs a number of seconds"), "\(bad)")
        }
        #expect(try TestSupport.run(executable.path, ["write", locked.path, "--set", "title=x", "--lock-wait"]).status == 2)
    }
}
