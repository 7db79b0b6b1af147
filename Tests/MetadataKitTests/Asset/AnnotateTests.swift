import Foundation
import Testing

@testable import MetadataKit

/// The timed-metadata example end to end: `mdkit annotate` adds the circle
/// annotations to an ffmpeg clip; exiftool decodes every value at its sample
/// time, ffprobe sees a `mebx` data stream, `mdkit timed` gives the input back,
/// and the audio and video packets are unchanged.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && Capabilities.mdkit, "needs ffmpeg and the mdkit binary built beside the tests"))
struct AnnotateTests {
    static let annotations = TestSupport.packageRoot.appendingPathComponent("Examples/annotations/annotations.json")

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments)
    }

    func streamHash(_ url: URL, _ stream: String) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", stream, "-c", "copy", "-f", "streamhash", "-"]).text
    }

    func clip(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("clip.mp4")
        let video =
            (try? TestSupport.run("ffmpeg", ["-hide_banner", "-encoders"]))?.text.contains("libx264") ?? false
            ? ["-c:v", "libx264", "-bf", "2"] : ["-c:v", "mpeg4", "-bf", "2"]
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=5",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=5",
            ] + video + ["-c:a", "aac", "-shortest", url.path])
        return url
    }

    @Test(arguments: ["mp4", "mov"])
    func annotatedMovieReadsBackEverywhere(container: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try clip(in: directory)
        let movie = directory.appendingPathComponent("movie.\(container)")
        let annotate = try mdkit(["annotate", input.path, movie.path, "--annotations", Self.annotations.path])
        #expect(annotate.status == 0, "\(annotate.standardError)")
        let document = try TimedMetadataDocument(json: Data(contentsOf: Self.annotations))

        // ffprobe: a data stream with the mebx tag, and nothing to complain about.
        let probe = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_type,codec_tag_string",
                "-of", "csv=p=0", movie.path,
            ])
        #expect(probe.text.split(separator: "\n").contains("data,mebx"), "\(probe.text)")
        #expect(try TestSupport.run("ffprobe", ["-v", "error", movie.path]).standardError.isEmpty)

        // The audio and video packets are the clip's.
        for stream in ["0:v:0", "0:a:0"] {
            #expect(try streamHash(movie, stream) == streamHash(input, stream), "stream \(stream) changed")
        }

        // mdkit timed gives the groups back, and its JSON round-trips to identical output.
        let timed = try mdkit(["timed", movie.path])
        #expect(timed.status == 0, "\(timed.standardError)")
        let back = try TimedMetadataDocument(json: timed.standardOutput)
        #expect(back.groups == document.groups && back.describes == document.describes && back.timescale == 1000)
        let again = directory.appendingPathComponent("again.\(container)")
        let json = directory.appendingPathComponent("out.json")
        try timed.standardOutput.write(to: json)
        #expect(try mdkit(["annotate", input.path, again.path, "--annotations", json.path]).status == 0)
        #expect(try mdkit(["timed", again.path]).standardOutput == timed.standardOutput)
        let vtt = try mdkit(["timed", movie.path, "--webvtt"])
        let duration = try await Asset.load(url: movie).durationSeconds
        #expect(vtt.text == document.webVTT(movieDuration: duration))

        // exiftool decodes every value at its sample time and duration.
        guard TestSupport.hasTool("exiftool") else { return }
        let exif = try TestSupport.runChecked("exiftool", ["-ee", "-G3", "-a", "-j", "-n", movie.path])
        let tags = try #require((try JSONSerialization.jsonObject(with: exif.standardOutput) as? [[String: Any]])?.first)
        for (index, group) in document.groups.enumerated() {
            let doc = "Doc\(index + 1):"
            #expect((tags[doc + "SampleTime"] as? NSNumber)?.doubleValue == group.start, "\(doc) time")
            #expect((tags[doc + "SampleDuration"] as? NSNumber)?.doubleValue == group.duration, "\(doc) duration")
            for item in group.items {
                // exiftool's tag name: "Mdta" + the key with each part after the first capitalized.
                let parts = item.key.split(separator: ".")
                let name = "Mdta" + parts[0] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
                let value = tags[doc + name]
                switch item.value {
                case .numbers(let numbers):
                    #expect(value as? String == numbers.map { String(Int($0)) }.joined(separator: " "), "\(doc)\(name)")
                case .number(let number):
                    #expect((value as? NSNumber)?.doubleValue == number, "\(doc)\(name)")
                case .string(let text):
                    #expect(value as? String == text, "\(doc)\(name)")
                default:
                    Issue.record("unexpected value type in the example")
                }
            }
        }
    }

    @Test func badAnnotationsAndTracksAreClearErrors() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try clip(in: directory)
        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"groups": [{"start": 1, "items": []}, {"start": 1, "items": []}]}"#.utf8).write(to: bad)
        let out = directory.appendingPathComponent("out.mp4")
        let twice = try mdkit(["annotate", input.path, out.path, "--annotations", bad.path])
        #expect(twice.status == 1 && twice.standardError.contains("distinct start times"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let wrongTrack = try mdkit(["annotate", input.path, out.path, "--annotations", Self.annotations.path, "--describes", "9"])
        #expect(wrongTrack.status == 1 && wrongTrack.standardError.contains("no track 9"))
        let none = try mdkit(["timed", input.path])
        #expect(none.status == 1 && none.standardError.contains("no timed metadata track"))
    }
}
