import Foundation
import Testing

@testable import MetadataKit

/// `mdkit chapters` and `mdkit write --chapters/--remove-chapters` on FLAC
/// files made by ffmpeg: each input syntax (JSON, ffmetadata, Podlove simple
/// chapters), the JSON read back exactly, errors in place, and the refusal of
/// a format that can't store chapters.
@Suite(
    .enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"),
    .enabled(if: ToolCheck.has("ffmpeg"), "needs ffmpeg to make the test files"))
struct CLIChaptersTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    /// A 20 s sine made by ffmpeg as `name`.
    func make(_ name: String, codec: String = "flac") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:a", codec, url.path])
        return url
    }

    func write(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func summary(_ url: URL) async throws -> [String] {
        try await MediaItem.loaded(url).chapters.map {
            "\($0.start)-\($0.end.map { String($0) } ?? "nil") \($0.title ?? "") \($0.url ?? "")"
        }
    }

    @Test func eachInputSyntaxSetsTheChapters() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let flac = try make("a.flac")
        let expected = ["0.0-5.25 Intro ", "5.25-12.5 Zwei = 2 https://example.com/2", "12.5-20.0 Drëi "]
        let inputs = [
            try write(
                "c.json",
                #"{"chapters": [{"start": 12.5, "title": "Drëi"}, {"start": 0, "end": 5.25, "title": "Intro"}, "#
                    + #"{"start": 5.25, "end": 12.5, "title": "Zwei = 2", "url": "https://example.com/2"}]}"#),
            try write(
                "c.ffmeta",
                ";FFMETADATA1\ntitle=ignored\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=5250\ntitle=Intro\n"
                    + "[CHAPTER]\nTIMEBASE=1/100\nSTART=525\nEND=1250\ntitle=Zwei \\= 2\n"
                    + "[CHAPTER]\nSTART=12500000000\nEND=20000000000\ntitle=Drëi\n"),
            try write("c.txt", "00:00:00.000 Intro\n\n5.25 Zwei = 2 <https://example.com/2>\r\n00:12.500 Drëi\n"),
        ]
        for input in inputs {
            _ = try mdkit(["write", flac.path, "--remove-chapters"])
            let output = try mdkit(["write", flac.path, "--chapters", input.path])
            #expect(output.status == 0 && output.text.contains("saved (1 change)"), "\(input.lastPathComponent): \(output.standardError)")
            var summary = try await summary(flac)
            // ffmetadata ends are stored as the next start, Podlove gives none: the URL only the JSON and Podlove carry.
            if input.pathExtension == "ffmeta" { summary[1] = summary[1] + "https://example.com/2" }
            #expect(summary == expected, "\(input.lastPathComponent)")
        }
        let removed = try mdkit(["write", flac.path, "--remove-chapters", "--dry-run"])
        #expect(removed.text.contains("chapters: 3 chapters → 0 chapters"), "\(removed.text)")
        #expect(try mdkit(["write", flac.path, "--remove-chapters"]).status == 0)
        #expect(try await summary(flac).isEmpty)
    }

    @Test func chaptersJSONReadsBackWhatWasWritten() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let flac = try make("a.flac"), plain = try make("b.flac")
        let input = try write(
            "c.json", #"{"chapters": [{"start": 0, "title": "One"}, {"start": 12.5, "title": "Twö", "url": "https://x.org/2"}]}"#)
        #expect(try mdkit(["write", flac.path, "--chapters", input.path]).status == 0)
        let missing = directory.appendingPathComponent("missing.flac").path
        let output = try mdkit(["chapters", "--json", flac.path, plain.path, missing])
        #expect(output.status == 1)
        let files = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == [flac.path, plain.path, missing])
        let chapters = try #require(files[0]["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["start"] as? Double } == [0, 12.5])
        #expect(chapters.map { $0["end"] as? Double } == [12.5, 20])
        #expect(chapters.map { $0["title"] as? String } == ["One", "Twö"])
        #expect(chapters.map { $0["url"] as? String } == [nil, "https://x.org/2"])
        #expect((files[1]["chapters"] as? [Any])?.isEmpty == true)
        #expect((files[2]["error"] as? String)?.contains("io:") == true && files[2]["chapters"] == nil)
        // What `chapters --json` prints is taken back by `write --chapters`.
        let printed = try write(
            "printed.json", String(decoding: try mdkit(["chapters", "--json", flac.path]).standardOutput, as: UTF8.self))
        #expect(try mdkit(["write", plain.path, "--chapters", printed.path]).status == 0)
        let copied = try await summary(plain), original = try await summary(flac)
        #expect(copied == original && original.count == 2)
        // The table: one line per chapter; errors on stderr.
        let table = try mdkit(["chapters", flac.path, missing])
        #expect(table.status == 1 && table.text.contains("0:00:12.500  0:00:20.000  Twö  <https://x.org/2>"), "\(table.text)")
        #expect(table.standardError.contains("missing.flac: error: io:"))
        #expect(try mdkit(["chapters", plain.path]).text.contains("0:00:00.000  0:00:12.500  One"))
    }

    @Test func whatCantBeStoredIsRefusedClearly() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let flac = try make("a.flac")
        let chapters = try write("c.txt", "00:00:00.000 One\n00:00:10.000 Two\n")
        // ASF has no chapters MetadataKit writes.
        let wma = try make("a.wma", codec: "wmav2")
        let before = try Data(contentsOf: wma)
        let refused = try mdkit(["write", wma.path, "--chapters", chapters.path])
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains("unsupportedFeature: writing chapters to ASF (WMA / WMV) files is not supported"),
            "\(refused.standardError)")
        #expect(try Data(contentsOf: wma) == before)
        // A gap: Vorbis comments hold starts only.
        let gap = try write("gap.json", #"{"chapters": [{"start": 0, "end": 5}, {"start": 6}]}"#)
        let flacBefore = try Data(contentsOf: flac)
        let output = try mdkit(["write", flac.path, "--chapters", gap.path])
        #expect(output.status == 1 && output.standardError.contains("store only starts"), "\(output.standardError)")
        #expect(try Data(contentsOf: flac) == flacBefore)
        // Input that is none of the syntaxes, or bad in its own: usage errors, nothing written.
        for (name, text, message) in [
            ("bad.txt", "hello world\n", "doesn't start with a time"),
            ("bad.json", #"{"chapters": [{"title": "no start"}]}"#, "has no \"start\""),
            ("bad2.json", #"{"chapter": []}"#, "no \"chapters\" member"),
            ("bad3.json", #"{"chapters": [{"start": true}]}"#, "chapters[0].start is not a time in seconds"),
            ("bad.ffmeta", ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=x\nEND=5\n", "START="),
        ] {
            let result = try mdkit(["write", flac.path, "--chapters", try write(name, text).path])
            #expect(result.status == 2 && result.standardError.contains(message), "\(name): \(result.standardError)")
        }
        #expect(try mdkit(["write", flac.path, "--chapters", directory.appendingPathComponent("none").path]).status == 2)
        #expect(try Data(contentsOf: flac) == flacBefore)
    }
}
