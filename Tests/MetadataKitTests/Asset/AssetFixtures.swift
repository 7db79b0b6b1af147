import Foundation

@testable import MetadataKit

/// Inputs for the asset tests, made once per test run with ffmpeg, and the
/// ffprobe/ffmpeg checks run on exported files.
enum AssetFixtures {
    static let hasFFmpeg = TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe")

    /// The folder of inputs: h264.mp4 (B-frames + AAC, edit lists, moov last),
    /// fast.mp4 (the same, moov first), pcm.mov (MPEG-4 video, PCM audio,
    /// timecode track), alac.m4a, sub.mp4 (H.264 + mov_text), raw.mov (~20 MB
    /// of uncompressed video), frag.mp4 (fragmented).
    static let made: Result<URL, any Error> = Result { try make() }

    static func url(_ name: String) throws -> URL {
        try made.get().appendingPathComponent(name)
    }

    private static func make() throws -> URL {
        let directory = try MP4Tools.temporaryDirectory()
        func ffmpeg(_ arguments: [String]) throws {
            try MP4Tools.run("ffmpeg", ["-v", "error", "-y"] + arguments)
        }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let encoders = try MP4Tools.run("ffmpeg", ["-hide_banner", "-encoders"])
        let video =
            encoders.contains("libx264")
            ? ["-c:v", "libx264", "-bf", "2", "-g", "25", "-pix_fmt", "yuv420p"]
            : ["-c:v", "mpeg4", "-bf", "2", "-g", "25"]
        try ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=4", "-f", "lavfi", "-i", "sine=frequency=440:duration=4"]
                + video + ["-c:a", "aac", "-b:a", "64k", "-shortest", path("h264.mp4")])
        try ffmpeg(["-i", path("h264.mp4"), "-c", "copy", "-movflags", "+faststart", path("fast.mp4")])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3", "-f", "lavfi", "-i", "sine=duration=3",
            "-c:v", "mpeg4", "-c:a", "pcm_s16le", "-timecode", "01:00:00:00", path("pcm.mov"),
        ])
        try ffmpeg(["-f", "lavfi", "-i", "sine=duration=3", "-c:a", "alac", path("alac.m4a")])
        try Data("1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:02,000 --> 00:00:03,000\nWorld\n".utf8)
            .write(to: directory.appendingPathComponent("s.srt"))
        try ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3", "-i", path("s.srt")]
                + video + ["-c:s", "mov_text", path("sub.mp4")])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=14", "-c:v", "rawvideo", "-pix_fmt", "rgb24", path("raw.mov"),
        ])
        try ffmpeg(["-i", path("h264.mp4"), "-c", "copy", "-movflags", "frag_keyframe+empty_moov", path("frag.mp4")])
        return directory
    }

    // MARK: Checks

    static func streamCount(_ url: URL) throws -> Int {
        Int(
            try MP4Tools.run("ffprobe", ["-v", "error", "-show_entries", "format=nb_streams", "-of", "csv=p=0", url.path])
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    static func codecName(_ url: URL, stream: Int) throws -> String {
        try MP4Tools.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "\(stream)", "-show_entries", "stream=codec_name",
                "-of", "csv=p=0", url.path,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ffmpeg's hash of every packet of stream `index`.
    static func streamHash(_ url: URL, stream index: Int) throws -> String {
        try MP4Tools.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:\(index)", "-c", "copy", "-f", "streamhash", "-"])
    }

    /// pts,dts,duration,flags of every packet of stream `index`.
    static func packets(_ url: URL, stream index: Int) throws -> [String] {
        try MP4Tools.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts,dts,duration,flags",
                "-of", "csv", url.path,
            ]
        ).split(separator: "\n").map(String.init)
    }

    /// What `ffprobe -v error` prints about the file (nothing for a clean file).
    static func probeErrors(_ url: URL) throws -> String {
        try standardError("ffprobe", ["-v", "error", url.path])
    }

    /// What `tool` prints on standard error.
    static func standardError(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func formatTag(_ url: URL, _ tag: String) throws -> String {
        try MP4Tools.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=\(tag)", "-of", "csv=p=0", url.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func formatDuration(_ url: URL) throws -> Double {
        Double(
            try MP4Tools.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The longest span of decode time held by one chunk of any track of `url`
    /// (one-sample chunks are not counted: a sample can be long by itself).
    static func longestChunk(_ url: URL) async throws -> Double {
        let asset = try await Asset.load(url: url)
        var longest = 0.0
        for track in asset.tracks {
            var cursor = track.sampleTable.makeCursor()
            var chunk = -1, span: Int64 = 0, count = 0
            func close() { if count > 1 { longest = max(longest, Double(span) / Double(track.timescale)) } }
            while let sample = cursor.next() {
                if sample.chunkIndex != chunk {
                    close()
                    chunk = sample.chunkIndex
                    span = 0
                    count = 0
                }
                span += sample.duration
                count += 1
            }
            close()
        }
        return longest
    }
}

extension Asset {
    /// `bytes` written to a new file in `directory`, loaded.
    static func load(bytes: [UInt8], in directory: URL) async throws -> Asset {
        let url = directory.appendingPathComponent("probe-\(UUID().uuidString).mov")
        try Data(bytes).write(to: url)
        return try await Asset.load(url: url)
    }
}

/// Lines recorded from the exporting task.
final class TextLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ value: String) { lock.withLock { stored.append(value) } }
    var values: [String] { lock.withLock { stored } }
}

/// Progress values reported from the exporting task.
final class FractionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Double] = []
    func add(_ value: Double) { lock.withLock { stored.append(value) } }
    var values: [Double] { lock.withLock { stored } }
}
