import Foundation
import Testing

@testable import MetadataKit

/// `mdkit timed --webvtt` on annotations whose text holds `-->`, markup,
/// `&` and line breaks: the file holds exactly one cue per group, as
/// Chromium's WebVTT parser reads it, each cue's text the group's items.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && Capabilities.mdkit, "needs ffmpeg and the mdkit binary built beside the tests"))
struct CLIWebVTTTests {
    /// Texts that end a cue, start another or read as markup if written as they are.
    static let hostile = [
        "x --> 00:00:09.000", "-->", "<b>bold</b> & <c.red>x</c>", "&amp; &lt; &#62;", "one\n\ntwo\r\nthree\rfour",
        "\n00:00:01.000 --> 00:00:02.000\nINJECTED", "NOTE\u{1}x\u{1B}[31m",
    ]

    static func annotations() -> String {
        let groups = hostile.enumerated().map { index, text in
            let value = String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast()
            return
                #"{"start": \#(Double(index) * 0.5), "duration": 0.25, "items": [{"identifier": "mdta/com.example.text", "dataType": "UTF-8", "value": \#(value)}]}"#
        }
        return #"{"describes": 1, "groups": [\#(groups.joined(separator: ", "))]}"#
    }

    /// An annotated 5-second movie made by ffmpeg and `mdkit annotate`, and `mdkit timed --webvtt` of it.
    static func webVTT(in directory: URL) throws -> Data {
        let mdkit = try #require(TestSupport.mdkitExecutable).path
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:size=64x48:rate=25:duration=5", "-c:v", "mpeg4",
                directory.appendingPathComponent("clip.mp4").path,
            ])
        try Data(annotations().utf8).write(to: directory.appendingPathComponent("a.json"))
        let annotate = try TestSupport.run(mdkit, ["annotate", "clip.mp4", "movie.mp4", "--annotations", "a.json"], in: directory)
        #expect(annotate.status == 0, "\(annotate.standardError)")
        let vtt = try TestSupport.run(mdkit, ["timed", "movie.mp4", "--webvtt"], in: directory)
        #expect(vtt.status == 0, "\(vtt.standardError)")
        return vtt.standardOutput
    }

    @Test func noValueEndsOrStartsACue() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vtt = String(decoding: try Self.webVTT(in: directory), as: UTF8.self)
        let lines = vtt.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.contains("-->") }.count == Self.hostile.count, "\(vtt)")
        #expect(!vtt.contains("<") && !vtt.contains("&") && !vtt.contains("\r") && !vtt.contains("\0"), "\(vtt)")
        // Each cue: its number, its timing, one line of JSON: the items.
        for (index, text) in Self.hostile.enumerated() {
            let start = try #require(lines.firstIndex { $0 == "\(index + 1)" })
            let payload = Data(lines[start + 2].utf8)
            let items = try #require(try JSONSerialization.jsonObject(with: payload) as? [[String: Any]])
            #expect(items.first?["value"] as? String == text)
            #expect(lines[start + 3].isEmpty)
        }
    }

    /// `timed --json` is laid out as every other JSON output of the tool
    /// (`read --json`): `"key": value`, two spaces per level; it reads back
    /// as the annotations given.
    @Test func timedJSONIsLaidOutLikeEveryOtherJSONOutput() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.webVTT(in: directory)
        let mdkit = try #require(TestSupport.mdkitExecutable).path
        let timed = try TestSupport.run(mdkit, ["timed", "movie.mp4", "--json"], in: directory)
        #expect(timed.status == 0, "\(timed.standardError)")
        #expect(!timed.text.contains("\" : "), "\(timed.text)")
        #expect(timed.text.hasPrefix("{\n  \"describes\": 1,\n  \"groups\": [\n    {\n      \"duration\": 0.25,\n"), "\(timed.text)")
        let read = try TestSupport.run(mdkit, ["read", "--json", "movie.mp4"], in: directory)
        #expect(read.text.hasPrefix("[\n  {\n    \"path\": \"movie.mp4\",\n"), "\(read.text)")
        let given = try TimedMetadataDocument(json: Data(Self.annotations().utf8))
        let printed = try TimedMetadataDocument(json: timed.standardOutput)
        #expect(printed.groups.map { $0.items.map(\.value) } == given.groups.map { $0.items.map(\.value) })
    }

    /// Chromium's own WebVTT parser (a `<track>` of a page in headless
    /// Chromium) gives exactly the cues written, with the values intact.
    @Test(.enabled(if: Capabilities.chromium, "needs chromium (CI installs it on Linux)"))
    func chromiumReadsExactlyTheCuesWritten() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.webVTT(in: directory).write(to: directory.appendingPathComponent("cues.vtt"))
        // The cues as the track holds them, as base64 of JSON (plain ASCII in the dumped DOM).
        let page = """
            <!doctype html><meta charset="utf-8"><video><track id="t" kind="metadata" default src="cues.vtt"></video>
            <pre id="out">pending</pre>
            <script>
            const t = document.getElementById("t");
            t.track.mode = "hidden";
            t.addEventListener("load", () => {
              const cues = [];
              for (const c of t.track.cues) cues.push({id: c.id, start: c.startTime, end: c.endTime, text: c.text});
              const json = new TextEncoder().encode(JSON.stringify(cues));
              document.getElementById("out").textContent = "cues:" + btoa(String.fromCharCode(...json));
            });
            t.addEventListener("error", () => { document.getElementById("out").textContent = "error"; });
            </script>
            """
        try Data(page.utf8).write(to: directory.appendingPathComponent("page.html"))
        let dump = try TestSupport.runChecked(
            "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--virtual-time-budget=5000",
                "--dump-dom", "file://\(directory.path)/page.html",
            ])
        let marker = try #require(dump.text.range(of: "cues:"), "no cues loaded: \(dump.text)")
        let encoded = dump.text[marker.upperBound...].prefix { $0 != "<" }
        let decoded = try #require(Data(base64Encoded: String(encoded)))
        let cues = try #require(try JSONSerialization.jsonObject(with: decoded) as? [[String: Any]])
        #expect(cues.count == Self.hostile.count)
        for (index, cue) in cues.enumerated() where index < Self.hostile.count {
            #expect(cue["id"] as? String == "\(index + 1)")
            #expect(cue["start"] as? Double == Double(index) * 0.5)
            #expect(cue["end"] as? Double == Double(index) * 0.5 + 0.25)
            let text = try #require(cue["text"] as? String)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["value"] as? String == Self.hostile[index], "cue \(index + 1)")
            #expect(items.first?["identifier"] as? String == "mdta/com.example.text")
        }
    }
}
