import Foundation
import Testing

@testable import MetadataKit

/// Several `mdkit write` processes on one file at once: a save that finds the
/// file changed since it was loaded loads it again and retries, so every
/// edit lands and none fails with `fileChanged`.
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
}
