import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

/// A child `mdkit write` killed with SIGKILL in the middle of saves must leave
/// every file readable, with either an old or a new title, and its audio intact.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && Capabilities.mdkit, "needs ffmpeg and the mdkit binary built beside the tests"))
struct CrashSafetyTests {
    @Test func killedSavesLeaveOldOrNewFiles() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [URL] = []
        for (name, arguments) in [
            ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]),
            ("b.m4a", ["-c:a", "aac", "-movflags", "+faststart"]),
            ("c.m4a", ["-c:a", "aac"]),
            ("d.mka", ["-c:a", "aac"]),
        ] {
            let url = directory.appendingPathComponent(name)
            try TestSupport.runChecked(
                "ffmpeg",
                ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
                    + arguments + ["-metadata", "title=original", url.path])
            files.append(url)
        }
        let md5s = try files.map { try MediaChecks.decodedMD5($0) }
        let executable = try #require(TestSupport.mdkitExecutable)
        var written: Set<String> = ["original"]
        var seen: Set<String> = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<30 {
            // Long and short titles alternate, so saves switch between in-place and rewrites;
            // every other round saves without fsync (journal in RAM; small files
            // grow in place as a tail replacement).
            let title = "round \(round) " + String(repeating: "x", count: Int.random(in: 0...3000, using: &generator))
            written.insert(title)
            let process = Process()
            process.executableURL = executable
            process.arguments =
                ["write"] + files.map(\.path) + ["--set", "title=\(title)", "--set", "album=\(title.prefix(20))"]
                + (round % 2 == 1 ? ["--no-sync"] : [])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...60_000_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for url in files {
                var item = MediaItem(url: url)
                try await item.load() // recovers an interrupted in-place save
                let title = try #require(item.metadata.title, "\(url.lastPathComponent) lost its title in round \(round)")
                #expect(written.contains(title), "\(url.lastPathComponent) has a title never written: \(title.prefix(40))")
                seen.insert(title)
                #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: url).path))
            }
        }
        // The kills must have landed both before and after some saves finished.
        #expect(seen.count > 3, "only \(seen.count) distinct titles were seen: the saves never ran")
        for (url, md5) in zip(files, md5s) {
            #expect(try MediaChecks.decodedMD5(url) == md5, "\(url.lastPathComponent)'s audio changed")
        }
    }
}
