import Foundation
import Testing

@testable import MetadataKit

/// `mdkit` itself and `mdkit read`, run as a process.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLITests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    func json(_ output: TestSupport.Output) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try mdkit([]).status == 2)
        #expect(try mdkit(["read"]).status == 2)
        #expect(try mdkit(["read", "--bogus", "x.mp3"]).status == 2)
        #expect(try mdkit(["frobnicate"]).status == 2)
        #expect(try mdkit(["read", "--help"]).status == 0)
    }

    @Test func versionComesFromTheLibrary() throws {
        for spelling in ["--version", "version"] {
            let output = try mdkit([spelling])
            #expect(output.status == 0)
            #expect(output.text == "mdkit \(MetadataKitVersion.current)\n")
        }
        #expect(MetadataKitVersion.current.split(separator: ".").count == 3, "MAJOR.MINOR.PATCH")
    }

    @Test func readsSamplesAsJSONInArgumentOrder() throws {
        let mp3 = TestSupport.fixtures.appendingPathComponent("valid/sample.mp3").path
        let m4a = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a").path
        let output = try mdkit(["read", "--json", m4a, mp3])
        #expect(output.status == 0, "\(output.standardError)")
        let objects = try json(output)
        #expect(objects.map { $0["path"] as? String } == [m4a, mp3])
        #expect(objects.map { $0["format"] as? String } == ["mp4", "mp3"])
        #expect(objects.map { $0["mimeType"] as? String } == ["audio/mp4", "audio/mpeg"])
        for object in objects {
            let metadata = try #require(object["metadata"] as? [String: Any])
            #expect(metadata["title"] as? String == "Sine in A")
            #expect(metadata["artist"] as? String == "Björk Test")
            #expect(metadata["albumArtist"] as? String == "Various")
            #expect(metadata["album"] as? String == "Test Tones")
            #expect(metadata["grouping"] as? String == "Calibration")
            #expect(metadata["composer"] as? String == "Oscillator")
            #expect(metadata["comments"] as? String == "440 Hz, one second")
            #expect(metadata["genre"] as? String == "Electronic")
            #expect(metadata["year"] as? String == "2026")
            #expect(metadata["bpm"] as? Int == 120)
            #expect(metadata["trackNumber"] as? Int == 3)
            #expect(metadata["trackCount"] as? Int == 12)
            #expect(metadata["discNumber"] as? Int == 1)
            #expect(metadata["discCount"] as? Int == 2)
            let artwork = try #require((metadata["artwork"] as? [[String: Any]])?.first)
            #expect(artwork["mimeType"] as? String == "image/png")
            #expect(artwork["width"] as? Int == 16)
            #expect(artwork["height"] as? Int == 12)
            #expect(artwork["pictureType"] as? String == "front")
            #expect(object["items"] == nil)
            let properties = try #require(object["properties"] as? [String: Any])
            #expect(properties["sampleRate"] as? Int == 22050)
            #expect(properties["channels"] as? Int == 1)
            let duration = try #require(properties["duration"] as? Double)
            #expect(abs(duration - 1.0) < 0.1)
        }
    }

    @Test func absentFieldsAreOmittedAndItemsOnRequest() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // An ID3v2.3 tag with only a title, before one silent MPEG-1 layer III frame.
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        let title = Array("TIT2".utf8) + [0, 0, 0, 4, 0, 0, 0] + Array("abc".utf8)
        let tag = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, UInt8(title.count)] + title
        let url = directory.appendingPathComponent("only-title.mp3")
        try Data(tag + frame + frame).write(to: url)
        let output = try mdkit(["read", "--json", "--items", url.path])
        let object = try #require(try json(output).first)
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(Array(metadata.keys) == ["title"])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["keySpace"] as? String == "id3")
        #expect(items.first?["key"] as? String == "TIT2")
        #expect(items.first?["value"] as? String == "abc")
        #expect(items.first?["dataType"] as? String == "ISO-8859-1")
    }

    @Test func failuresAreReportedInPlaceAndExitOne() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.m4a")
        try Data().write(to: empty)
        let missing = directory.appendingPathComponent("missing.mp3").path
        let good = TestSupport.fixtures.appendingPathComponent("valid/sample.mp3").path
        let output = try mdkit(["read", "--json", empty.path, missing, good])
        #expect(output.status == 1)
        let objects = try json(output)
        #expect(objects.count == 3)
        #expect(objects[0]["path"] as? String == empty.path)
        #expect((objects[0]["error"] as? String)?.contains("empty") == true)
        #expect(objects[1]["error"] is String)
        #expect(objects[2]["error"] == nil && objects[2]["metadata"] != nil)
        #expect(Set(objects[0].keys) == ["path", "error"])
    }

    @Test func tableNamesEveryFieldAndError() throws {
        let good = TestSupport.fixtures.appendingPathComponent("valid/sample.mp3").path
        let output = try mdkit(["read", good, "/nonexistent/file.mp3"])
        #expect(output.status == 1)
        #expect(output.text.contains("title"))
        #expect(output.text.contains("Sine in A"))
        #expect(!output.text.contains("/nonexistent"), "errors go to stderr in table mode")
        #expect(output.standardError.contains("/nonexistent/file.mp3: error: io: cannot open"))
    }
}
