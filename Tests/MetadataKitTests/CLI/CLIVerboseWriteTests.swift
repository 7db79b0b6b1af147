import Foundation
import Testing

@testable import MetadataKit

/// `mdkit write --verbose` says which path each save took, as the library's
/// `MediaItem.lastSavePath` does for the same edit.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIVerboseWriteTests {
    @Test(arguments: ["sample.mp3", "sample.flac", "sample.m4a"])
    func verboseNamesTheSavePath(sample: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = TestSupport.fixtures.appendingPathComponent("valid/\(sample)")
        let viaCLI = directory.appendingPathComponent("cli-\(sample)")
        let viaLibrary = directory.appendingPathComponent("lib-\(sample)")
        try FileManager.default.copyItem(at: fixture, to: viaCLI)
        try FileManager.default.copyItem(at: fixture, to: viaLibrary)

        var item = try await MediaItem.loaded(viaLibrary)
        item.metadata.title = "Verbose"
        try await item.save()
        let path = try #require(item.lastSavePath)

        let executable = try #require(TestSupport.mdkitExecutable)
        let output = try TestSupport.run(executable.path, ["write", viaCLI.path, "--set", "title=Verbose", "--verbose"])
        #expect(output.status == 0, "\(output.standardError)")
        let expected: [SavePath: String] = [
            .inPlace: "; in place)", .insertion: "; in place, blocks inserted)",
            .cloneRewrite: "; rewritten, the payload cloned)", .rewrite: "; rewritten)",
        ]
        #expect(output.text.contains("saved (1 change" + (expected[path] ?? "?")), "\(path): \(output.text)")
        #expect(try await MediaItem.loaded(viaCLI).metadata.title == "Verbose")
    }
}
