import Foundation
import Testing

@testable import MetadataKit

#if canImport(Glibc)
    import Glibc
#endif

/// Two processes saving one file at the same time don't interleave: each
/// save is whole, and a save of a file changed since its load is refused.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && Capabilities.mdkit, "needs ffmpeg and the mdkit binary built beside the tests"))
struct ConcurrentSaveTests {
    @Test func concurrentSavesOfOneFileStayWhole() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("shared.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-c:a", "aac",
                "-movflags", "+faststart", url.path,
            ])
        let md5 = try MediaChecks.decodedMD5(url)
        let executable = try #require(TestSupport.mdkitExecutable)
        var outcomes: [String: Int] = [:]
        for round in 0..<10 {
            let titles = ["A\(round) " + String(repeating: "a", count: 40 * round), "B\(round)"]
            let processes = titles.map { title -> (Process, Pipe) in
                let process = Process(), errors = Pipe()
                process.executableURL = executable
                process.arguments = ["write", url.path, "--set", "title=\(title)"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = errors
                return (process, errors)
            }
            for (process, _) in processes { try process.run() }
            for (process, errors) in processes {
                process.waitUntilExit()
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                if process.terminationStatus == 0 {
                    outcomes["saved", default: 0] += 1
                } else {
                    #expect(text.contains("fileChanged"), "a save failed for another reason: \(text)")
                    outcomes["refused", default: 0] += 1
                }
            }
            var item = MediaItem(url: url)
            try await item.load()
            #expect(titles.contains(item.metadata.title ?? ""), "round \(round): title \(item.metadata.title ?? "none")")
        }
        #expect(outcomes["saved", default: 0] >= 10, "\(outcomes)")
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }
}
