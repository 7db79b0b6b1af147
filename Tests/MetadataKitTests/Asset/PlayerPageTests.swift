import Foundation
import Testing

@testable import MetadataKit

/// Examples/annotations/player.html in headless Chromium: at a time inside a
/// group, the circle is drawn where the group puts it.
@Suite(
    .enabled(
        if: Capabilities.chromium && TestSupport.hasTool("ffmpeg") && Capabilities.ffmpegEncodes("libvpx"),
        "needs chromium and ffmpeg with libvpx (CI installs them on Linux, not on macOS)"))
struct PlayerPageTests {
    /// RGB of the pixel at (x, y) of a PNG, decoded by ffmpeg.
    /// Screenshots `page` (a path and query under `directory`) in headless
    /// Chromium at 400×300 and tells which pixels are the circles' red.
    static func redPixels(of page: String, in directory: URL, shot name: String) throws -> (Int, Int) -> Bool {
        let shot = directory.appendingPathComponent(name)
        try TestSupport.runChecked(
            "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--hide-scrollbars",
                "--screenshot=\(shot.path)", "--window-size=400,300", "--virtual-time-budget=8000",
                "file://\(directory.path)/\(page)",
            ])
        let (width, bytes) = try pixels(shot)
        return { x, y in
            let index = (y * width + x) * 3
            return bytes[index] > 200 && bytes[index + 1] < 60 && bytes[index + 2] < 60
        }
    }

    static func pixels(_ png: URL) throws -> (width: Int, bytes: [UInt8]) {
        let probe = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=width",
                "-of", "csv=p=0", png.path,
            ])
        let width = try #require(Int(probe.text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let raw = try TestSupport.runChecked("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return (width, [UInt8](raw.standardOutput))
    }

    @Test func circleIsDrawnWhereTheGroupPutsIt() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let examples = TestSupport.packageRoot.appendingPathComponent("Examples/annotations")
        try FileManager.default.copyItem(
            at: examples.appendingPathComponent("player.html"), to: directory.appendingPathComponent("player.html"))
        let document = try TimedMetadataDocument(json: Data(contentsOf: examples.appendingPathComponent("annotations.json")))
        try Data(document.webVTT(movieDuration: 5).utf8).write(to: directory.appendingPathComponent("annotations.vtt"))
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=black:size=320x240:rate=25:duration=5",
                "-c:v", "libvpx", "-b:v", "200k", directory.appendingPathComponent("clip.webm").path,
            ])
        for (time, groupIndex) in [(1.2, 2), (3.3, 6)] {
            let isRed = try Self.redPixels(
                of: "player.html?video=clip.webm&vtt=annotations.vtt&t=\(time)", in: directory, shot: "shot-\(groupIndex).png")
            let group = document.groups[groupIndex]
            let center = try #require(group.items.first { $0.key == "com.example.circle.center.coordinate" })
            guard case .numbers(let point) = center.value else {
                Issue.record("no point")
                return
            }
            let x = Int(point[0]), y = Int(point[1])
            #expect(isRed(x, y), "no circle at (\(x), \(y)) at \(time) s")
            #expect(isRed(x + 8, y) && isRed(x, y - 8), "circle too small at \(time) s")
            // Where the circle was in the first group, and far corners, stay unpainted.
            #expect(!isRed(40, 120) && !isRed(300, 20) && !isRed(5, 5), "red where no circle should be at \(time) s")
        }
    }
}
