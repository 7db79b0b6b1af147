import Foundation
import Testing

@testable import MetadataKit

/// `mdkit write` of several files and `mdkit export` draw one progress line
/// on standard error when it is a terminal (a pseudo-terminal here, made by
/// `script`), redrawn in place with `\r`; nothing when it is a pipe or with
/// `--quiet`.
@Suite(
    .enabled(
        if: Capabilities.mdkit && Capabilities.utilLinuxScript,
        "needs the mdkit binary and script from util-linux (-c; BSD script on Darwin has none)"))
struct CLIProgressTests {
    /// Runs `arguments` under a pseudo-terminal; returns everything the
    /// terminal showed (standard output and error together) and the exit status.
    func runInTerminal(_ arguments: [String]) throws -> (text: String, status: Int32) {
        let executable = try #require(TestSupport.mdkitExecutable)
        let command = ([executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        let output = try TestSupport.run("script", ["-q", "-e", "-c", command, "/dev/null"])
        return (output.text, output.status)
    }

    func copies(_ count: Int, of sample: String, in directory: URL) throws -> [String] {
        try (0..<count).map { index in
            let url = directory.appendingPathComponent("\(index)-\(sample)")
            try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(sample)"), to: url)
            return url.path
        }
    }

    @Test(arguments: [[] as [String], ["--verbose"], ["--no-sync"]])
    func writeOfSeveralFilesShowsFilesDoneOnATerminal(extra: [String]) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try copies(3, of: "sample.mp3", in: directory) + copies(2, of: "sample.flac", in: directory)
        let (text, status) = try runInTerminal(["write"] + paths + ["--set", "title=Progress"] + extra)
        #expect(status == 0, "\(text)")
        #expect(text.contains("\rsaving 5/5 files ["), "\(text)")
        #expect(text.contains("] 100%"), "\(text)")
        if extra.isEmpty { #expect(text.contains("\rloading "), "the batch path loads first: \(text)") }
        // Every file reported, each on a line of its own after the progress line.
        for path in paths {
            #expect(text.contains("\(path): saved"), "\(text)")
            #expect(try await MediaItem.loaded(URL(fileURLWithPath: path)).metadata.title == "Progress")
        }
    }

    @Test func nothingIsDrawnThroughAPipeOrWithQuiet() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try copies(3, of: "sample.mp3", in: directory)
        let executable = try #require(TestSupport.mdkitExecutable)
        let piped = try TestSupport.run(executable.path, ["write"] + paths + ["--set", "title=Piped"])
        #expect(piped.status == 0)
        #expect(!piped.standardError.contains("files ["), "\(piped.standardError)")
        #expect(!piped.text.contains("\r"))

        let (text, status) = try runInTerminal(["write"] + paths + ["--set", "title=Quiet", "--quiet"])
        #expect(status == 0, "\(text)")
        #expect(!text.contains("files ["), "\(text)")
        let (short, _) = try runInTerminal(["write", "-q"] + paths + ["--set", "title=Quiet again"])
        #expect(!short.contains("files ["), "\(short)")
        #expect(short.contains("saved"), "\(short)")
    }

    @Test func exportShowsBytesCopiedOnATerminal() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a").path
        let output = directory.appendingPathComponent("out.m4a").path
        let (text, status) = try runInTerminal(["export", input, output])
        #expect(status == 0, "\(text)")
        #expect(text.contains("\rexporting "), "\(text)")
        #expect(text.contains(" MB ["), "\(text)")
        #expect(text.contains("] 100%"), "\(text)")
        #expect(text.contains("\(output): exported"))

        let quiet = directory.appendingPathComponent("quiet.m4a").path
        let (silent, quietStatus) = try runInTerminal(["export", input, quiet, "--quiet"])
        #expect(quietStatus == 0, "\(silent)")
        #expect(!silent.contains("exporting"), "\(silent)")
    }
}
