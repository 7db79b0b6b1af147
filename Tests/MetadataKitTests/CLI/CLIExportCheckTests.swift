import Foundation
import Testing

@testable import MetadataKit

/// What `mdkit export`, `annotate` and `timed` refuse, and how they say it.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIExportCheckTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    static let m4a = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a").path

    @Test func duplicateTrackIDsAreAUsageError() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out.m4a")
        let output = try mdkit(["export", Self.m4a, out.path, "--tracks", "1,1"])
        #expect(output.status == 2)
        #expect(output.standardError.contains("track 1 twice"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try mdkit(["export", Self.m4a, out.path, "--tracks", "1"]).status == 0)
    }

    @Test func aKeySpaceAMovieCannotHoldIsRefusedBeforeWriting() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out.m4a")
        let output = try mdkit(["export", Self.m4a, out.path, "--set", "id3:TIT2=x"])
        #expect(output.status == 1)
        #expect(
            output.standardError.contains("invalidValue") && output.standardError.contains("can't hold 'id3:TIT2'"),
            "\(output.standardError)")
        #expect(!output.text.contains("exported"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written, no temporary left")
        // The library refuses it the same way.
        let session = ExportSession(asset: try await Asset.load(url: URL(fileURLWithPath: Self.m4a)), preset: .passthrough)
        session.outputURL = out
        session.metadata.items.append(MetadataItem(keySpace: .vorbis, key: "MOOD", value: .string("a"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await session.export() }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        // Key spaces a movie holds are still written.
        #expect(try mdkit(["export", Self.m4a, out.path, "--set", "itunes:----:com.apple.iTunes:MOOD=calm"]).status == 0)
        #expect(try await MediaItem.loaded(out).metadata.items.contains { $0.key == "----:com.apple.iTunes:MOOD" })
    }

    @Test func anExistingOutputNeedsOverwrite() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out.m4a")
        try Data("keep me".utf8).write(to: out)
        let refused = try mdkit(["export", Self.m4a, out.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("exists") && refused.standardError.contains("-y"))
        #expect(try Data(contentsOf: out) == Data("keep me".utf8))
        let json = directory.appendingPathComponent("a.json")
        try Data(#"{"groups": []}"#.utf8).write(to: json)
        let annotate = try mdkit(["annotate", Self.m4a, out.path, "--annotations", json.path])
        #expect(annotate.status == 1 && annotate.standardError.contains("-y"))
        #expect(try Data(contentsOf: out) == Data("keep me".utf8))
        for flag in ["-y", "--overwrite"] {
            let output = try mdkit(["export", Self.m4a, out.path, flag])
            #expect(output.status == 0, "\(output.standardError)")
            #expect(try Data(contentsOf: out).count > 1000)
        }
        #expect(try mdkit(["export", "--help"]).text.contains("-y, --overwrite"))
        #expect(try mdkit(["annotate", "--help"]).text.contains("-y, --overwrite"))
    }

    @Test func timedMessages() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let both = try mdkit(["timed", Self.m4a, "--json", "--webvtt"])
        #expect(both.status == 2 && both.standardError.contains("--json and --webvtt"))
        let none = try mdkit(["timed", Self.m4a])
        #expect(none.status == 1 && none.standardError.contains("no timed metadata track"))
        // Truncated JSON: the parse error and where it is.
        let json = directory.appendingPathComponent("cut.json")
        try Data(#"{"groups": [{"start": 1, "items""#.utf8).write(to: json)
        let out = directory.appendingPathComponent("out.mp4")
        let truncated = try mdkit(["annotate", Self.m4a, out.path, "--annotations", json.path])
        #expect(truncated.status == 1)
        #expect(
            truncated.standardError.contains("not valid JSON") && truncated.standardError.contains("at byte 32"),
            "\(truncated.standardError)")
        #expect(!truncated.standardError.contains("must be a JSON object"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// The extensions in the help texts and errors are the ones the code takes.
    @Test func helpListsTheExtensionsTheCodeAccepts() throws {
        let extensions = AssetFileType.allCases.flatMap(\.pathExtensions)
        let export = try mdkit(["export", "--help"]).text
        let annotate = try mdkit(["annotate", "--help"]).text
        let wrong = try mdkit(["export", Self.m4a, "out.avi"])
        #expect(wrong.status == 2)
        for name in extensions {
            #expect(export.contains(".\(name)") && annotate.contains(".\(name)") && wrong.standardError.contains(".\(name)"), "\(name)")
            #expect(AssetFileType(pathExtension: name) != nil)
        }
        #expect(try mdkit(["annotate", Self.m4a, "out.avi", "--annotations", "a.json"]).status == 2)
        let top = try mdkit(["--help"]).text
        for format in MediaFormat.all {
            for name in format.extensions { #expect(top.contains(".\(name)"), "\(format.identifier): .\(name)") }
        }
    }
}
