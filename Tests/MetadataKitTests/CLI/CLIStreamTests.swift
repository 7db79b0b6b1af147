import Foundation
import Testing

@testable import MetadataKit

/// `mdkit read` on movies: every stream's codec (a table line per track, a
/// `streams` array in JSON), and bit rates as ffprobe computes them.
@Suite(.enabled(if: AssetFixtures.hasFFmpeg, "needs ffmpeg and ffprobe"))
struct CLIStreamTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    @Test func readShowsEveryTrack() throws {
        let movie = try AssetFixtures.url("h264.mp4")
        let video = try AssetFixtures.codecName(movie, stream: 0)
        let output = try mdkit(["read", "--json", movie.path])
        #expect(output.status == 0)
        let object = try #require((try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])?.first)
        let properties = try #require(object["properties"] as? [String: Any])
        let streams = try #require(properties["streams"] as? [[String: Any]])
        #expect(streams.map { $0["kind"] as? String } == ["video", "audio"])
        #expect(streams.map { $0["trackID"] as? Int } == [1, 2])
        #expect(streams[1]["codec"] as? String == "AAC")
        #expect(streams[0]["codec"] as? String == (video == "h264" ? "H.264" : "MPEG-4 Visual"), "ffprobe says \(video)")
        #expect(streams[0]["width"] as? Int == 160 && streams[0]["height"] as? Int == 120)
        #expect(streams[1]["sampleRate"] as? Int == 44100 && streams[1]["channels"] as? Int == 1)
        let table = try mdkit(["read", movie.path]).text
        #expect(table.contains("stream 1    video, \(streams[0]["codec"] as? String ?? "?"), 160×120"), "\(table)")
        #expect(table.contains("stream 2    audio, AAC, 44100 Hz, 1 ch"), "\(table)")
        // Single-stream formats have no streams list.
        let mp3 = try mdkit(["read", "--json", TestSupport.fixtures.appendingPathComponent("valid/sample.mp3").path]).text
        #expect(!mp3.contains("streams"))
    }

    /// ALAC's bit rate is its media bytes over the duration, as ffprobe,
    /// mediainfo and exiftool say — not the cookie's (uncompressed) rate.
    @Test func alacBitrateIsMediaBytesOverDuration() throws {
        let alac = try AssetFixtures.url("alac.m4a")
        let probe = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=bit_rate",
                "-of", "csv=p=0", alac.path,
            ])
        let expected = try #require(Int(probe.text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let output = try mdkit(["read", "--json", alac.path])
        let object = try #require((try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])?.first)
        let bitrate = try #require((object["properties"] as? [String: Any])?["bitrate"] as? Int)
        #expect(abs(bitrate - expected) <= expected / 100, "mdkit \(bitrate), ffprobe \(expected)")
        #expect(bitrate < 44100 * 16, "below the uncompressed rate of the mono sine")
    }
}
