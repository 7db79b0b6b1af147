import Foundation
import Testing

@testable import MetadataKit

/// `mdkit read --json`/`--jsonl` write any text and number a file holds as
/// JSON that decodes to the same value: quotes, backslashes and control
/// characters escaped wherever they fall in a string (the writer looks at
/// eight bytes at a time), other characters (multi-byte UTF-8 too) as they are.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIJSONTextTests {
    /// Characters that need escaping, and plain and multi-byte ones; the
    /// plain ones come more often, so that runs of eight and more bytes with
    /// nothing to escape come before, between and after escaped ones.
    static let special: [Character] = ["\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}"]
    static let plain: [Character] = ["a", "Z", "0", " ", "\u{7F}", "é", "日", "🎵", "/"]

    @Test func randomTextAndNumbersReadBackFromTheJSON() async throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var random = SplitMix64(state: seed)
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sample = TestSupport.fixtures.appendingPathComponent("valid/sample.flac")
        var expected: [(path: String, title: String, album: String, track: Int)] = []
        for index in 0..<12 {
            let url = folder.appendingPathComponent("\(index).flac")
            try FileManager.default.copyItem(at: sample, to: url)
            func text() -> String {
                let count = Int.random(in: 1...60, using: &random)
                return String(
                    (0..<count).map { _ in
                        Int.random(in: 0..<10, using: &random) == 0
                            ? Self.special.randomElement(using: &random)! : Self.plain.randomElement(using: &random)!
                    })
            }
            var item = try await MediaItem.loaded(url)
            let title = text(), album = text()
            let track = index == 0 ? 65535 : Int.random(in: 1...65535, using: &random)
            item.metadata.title = title
            item.metadata.album = album
            item.metadata.trackNumber = track
            try await item.save()
            expected.append((url.path, title, album, track))
        }
        let executable = try #require(TestSupport.mdkitExecutable)
        for option in ["--json", "--jsonl"] {
            let output = try TestSupport.run(executable.path, ["read", option] + expected.map(\.path))
            #expect(output.status == 0, "seed \(seed): \(output.standardError)")
            let objects: [[String: Any]]
            do {
                if option == "--json" {
                    objects = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
                } else {
                    objects = try output.standardOutput.split(separator: 0x0A).map {
                        try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
                    }
                }
            } catch {
                Issue.record("seed \(seed) \(option): not JSON: \(error)")
                continue
            }
            #expect(objects.count == expected.count, "seed \(seed)")
            for (object, want) in zip(objects, expected) {
                let metadata = try #require(object["metadata"] as? [String: Any], "seed \(seed)")
                #expect(object["path"] as? String == want.path, "seed \(seed)")
                #expect(metadata["title"] as? String == want.title, "seed \(seed) \(option)")
                #expect(metadata["album"] as? String == want.album, "seed \(seed) \(option)")
                #expect(metadata["trackNumber"] as? Int == want.track, "seed \(seed) \(option)")
            }
        }
    }
}
