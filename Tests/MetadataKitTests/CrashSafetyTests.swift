import Foundation
import Testing
@testable import MetadataKit
#if canImport(Glibc)
import Glibc
#endif

/// A child `mdkit write` killed with SIGKILL in the middle of saves must leave
/// every file readable, with either an old or a new title, and its audio intact.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.mdkitExecutable != nil, "needs ffmpeg and the mdkit binary"))
struct CrashSafetyTests {
    @Test func killedSavesLeaveOldOrNewFiles() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [URL] = []
        for (name, arguments) in [
            ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]),
            ("b.m4a", ["-c:a", "aac", "-movflags", "+faststart"]),
            ("c.m4a", ["-c:a", "aac"]),
        ] {
            let url = directory.appendingPathComponent(name)
            try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
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
            process.arguments = ["write"] + files.map(\.path) + ["--set", "title=\(title)", "--set", "album=\(title.prefix(20))"]
                + (round % 2 == 1 ? ["--no-sync"] : [])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...60_000_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for url in files {
                var item = MediaItem(url: url)
                try await item.load()                    // recovers an interrupted in-place save
                let title = try #require(item.metadata.title, "\(url.lastPathComponent) lost its title in round \(round)")
                #expect(written.contains(title), "\(url.lastPathComponent) has a title never written: \(title.prefix(40))")
                seen.insert(title)
                #expect(!FileManager.default.fileExists(atPath: EditJournal.url(for: url).path))
                let snapshot = try FileSource(url: url).snapshot
                #expect(try !FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot),
                        "the load recovered from (and removed) the killed process's RAM journal")
            }
        }
        // The kills must have landed both before and after some saves finished.
        #expect(seen.count > 3, "only \(seen.count) distinct titles were seen: the saves never ran")
        for (url, md5) in zip(files, md5s) {
            #expect(try MediaChecks.decodedMD5(url) == md5, "\(url.lastPathComponent)'s audio changed")
        }
    }
}

/// A save on a full disk fails cleanly. Needs to mount a small tmpfs (root);
/// skipped where mounting is not allowed.
extension TestSupport {
    /// Whether this process may mount a tmpfs (root, and a sandbox that allows it).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let directory = try? makeTemporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path]).status) == 0 else { return false }
        _ = try? run("umount", [directory.path])
        return true
    }()
}

@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.canMountTmpfs, "needs ffmpeg and a tmpfs mount (root)"))
struct FullDiskTests {
    @Test func aSaveOnAFullDiskLeavesTheFileAndNoLitter() async throws {
        let mountPoint = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        guard try TestSupport.run("mount", ["-t", "tmpfs", "-o", "size=192k", "tmpfs", mountPoint.path]).status == 0 else {
            Issue.record("mounting the tmpfs failed although the probe succeeded")
            return
        }
        defer { _ = try? TestSupport.run("umount", [mountPoint.path]) }
        let made = try TestSupport.makeTemporaryDirectory().appendingPathComponent("big.m4a")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=10",
                                              "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", made.path])
        let url = mountPoint.appendingPathComponent("big.m4a")
        try FileManager.default.copyItem(at: made, to: url)
        let original = try Data(contentsOf: url)
        #expect(original.count > 100_000, "the file must be more than half the disk so a rewrite can't fit")
        var item = MediaItem(url: url)
        try await item.load()
        item.metadata.title = String(repeating: "a title that does not fit in place ", count: 100)
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .io)
        #expect(error?.reason.contains("full") == true, "\(error?.reason ?? "")")
        #expect(try Data(contentsOf: url) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path) == ["big.m4a"])
    }
}

/// Two processes saving one file at the same time don't interleave: each
/// save is whole, and a save of a file changed since its load is refused.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.mdkitExecutable != nil, "needs ffmpeg and the mdkit binary"))
struct ConcurrentSaveTests {
    @Test func concurrentSavesOfOneFileStayWhole() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("shared.m4a")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-c:a", "aac",
                                              "-movflags", "+faststart", url.path])
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
