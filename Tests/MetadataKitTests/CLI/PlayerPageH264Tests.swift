import Foundation
import Testing

@testable import MetadataKit

/// The path Examples/annotations/README.md gives, as written: an H.264
/// `clip.mp4` from ffmpeg, `mdkit annotate` into `movie.mp4`, `mdkit timed
/// --webvtt` into `annotations.vtt`, and `player.html?t=…` (its defaults)
/// in headless Chromium showing the circle of the group at that time.
@Suite(
    .enabled(
        if: Capabilities.chromium && TestSupport.hasTool("ffmpeg") && Capabilities.ffmpegEncodes("libx264") && Capabilities.mdkit,
        "needs chromium, ffmpeg with libx264 and the mdkit binary"))
struct PlayerPageH264Tests {
    @Test func theReadmePathSeeksAndDraws() throws {
        let mdkit = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let examples = TestSupport.packageRoot.appendingPathComponent("Examples/annotations")
        let readme = try String(contentsOf: examples.appendingPathComponent("README.md"), encoding: .utf8)
        // The README's ffmpeg line, run as written (in the test's directory).
        let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("ffmpeg ") && $0.hasSuffix(" clip.mp4") })
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error"]
                + line.split(separator: " ").dropFirst().map { part in
                    part == "clip.mp4" ? directory.appendingPathComponent("clip.mp4").path : String(part)
                })
        let codec = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_name",
                "-of", "csv=p=0", directory.appendingPathComponent("clip.mp4").path,
            ])
        #expect(codec.text.trimmingCharacters(in: .whitespacesAndNewlines) == "h264")
        let annotations = examples.appendingPathComponent("annotations.json")
        let annotate = try TestSupport.run(
            mdkit.path, ["annotate", "clip.mp4", "movie.mp4", "--annotations", annotations.path], in: directory)
        #expect(annotate.status == 0, "\(annotate.standardError)")
        let vtt = try TestSupport.run(mdkit.path, ["timed", "movie.mp4", "--webvtt"], in: directory)
        #expect(vtt.status == 0)
        try vtt.standardOutput.write(to: directory.appendingPathComponent("annotations.vtt"))
        try FileManager.default.copyItem(
            at: examples.appendingPathComponent("player.html"), to: directory.appendingPathComponent("player.html"))
        let document = try TimedMetadataDocument(json: Data(contentsOf: annotations))
        for (time, groupIndex) in [(1.2, 2), (3.3, 6)] {
            let isRed = try PlayerPageTests.redPixels(of: "player.html?t=\(time)", in: directory, shot: "shot-\(groupIndex).png")
            let center = try #require(document.groups[groupIndex].items.first { $0.key == "com.example.circle.center.coordinate" })
            guard case .numbers(let point) = center.value else {
                Issue.record("no point")
                return
            }
            let x = Int(point[0]), y = Int(point[1])
            #expect(isRed(x, y) && isRed(x + 8, y) && isRed(x, y - 8), "no circle at (\(x), \(y)) at \(time) s")
            // The first group's circle is not drawn at a later time.
            let first = try #require(document.groups[0].items.first { $0.key == "com.example.circle.center.coordinate" })
            if case .numbers(let start) = first.value, abs(start[0] - point[0]) > 30 {
                #expect(!isRed(Int(start[0]), Int(start[1])), "the first step's circle is still drawn at \(time) s")
            }
        }
    }
}
