import Foundation
import Testing

@testable import MetadataKit

/// A WAV whose `id3 ` chunk holds a tag larger than the chunk, cut inside a
/// frame (the file ends there, the chunk's size giving what is left, as a
/// broken copy leaves it): the frames before the cut are read, with a
/// warning, and a save keeps the chunk as it is.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen"), "needs ffmpeg and python3 mutagen"))
struct WAVCutID3ChunkTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    @Test func theFramesBeforeTheCutAreRead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("cut.wav")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", url.path])
        let script = """
            import sys
            from mutagen.wave import WAVE
            from mutagen.id3 import TIT2, TPE1, COMM
            f = WAVE(sys.argv[1]); f.add_tags()
            f.tags.add(TIT2(encoding=3, text="Wav title")); f.tags.add(TPE1(encoding=3, text="Wav artist"))
            f.tags.add(COMM(encoding=3, lang="eng", desc="", text="a comment long enough to be cut " * 4))
            f.save()
            """
        try TestSupport.runChecked("python3", ["-c", script, url.path])
        var bytes = [UInt8](try Data(contentsOf: url))
        let chunk = try #require(Self.offset(of: Array("id3 ".utf8), in: bytes))
        // The two text frames (10-byte tag header, 10-byte frame headers) fit; the comment is cut.
        let kept = 10 + (10 + 1 + 9) + (10 + 1 + 10) + 20
        bytes = Array(bytes.prefix(chunk + 8 + kept))
        bytes.replaceSubrange(chunk + 4..<chunk + 8, with: Self.le32(kept))
        bytes.replaceSubrange(4..<8, with: Self.le32(bytes.count - 8))
        try Data(bytes).write(to: url)

        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Wav title" && item.metadata.artist == "Wav artist")
        #expect(item.warnings.contains { $0.message.contains("the 2 frames before them are read") }, "\(item.warnings)")
        item.metadata.title = "New"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error != nil)
        #expect(try Data(contentsOf: url) == Data(bytes), "nothing written")
    }

    static func offset(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
