import Foundation
import Testing

@testable import MetadataKit

/// An MP3 (ffmpeg, LAME) with an ID3v2.3 tag appended after the audio and
/// before ID3v1, as some players write it (v2.3 has no footer to find it
/// by): the tag is read, and a save merges it into a leading tag that
/// mutagen reads, the audio kept.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen"), "needs ffmpeg and python3 mutagen"))
struct MP3AppendedID3Tests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    static func frame(_ id: String, _ text: String) -> [UInt8] {
        let body = [UInt8(0)] + Array(text.utf8)
        return Array(id.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: body.count >> (8 * (3 - $0))) } + [0, 0] + body
    }

    @Test func anID3v2TagBeforeID3v1IsReadAndMovedToTheFront() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("end.mp3")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=3", "-c:a", "libmp3lame", "-b:a", "128k",
                "-id3v2_version", "0", "-write_id3v1", "0", url.path,
            ])
        let body = Self.frame("TIT2", "End title") + Self.frame("TPE1", "End artist") + [UInt8](repeating: 0, count: 512)
        let size = (0..<4).map { UInt8(body.count >> (7 * (3 - $0)) & 0x7F) }
        let v1 =
            Array("TAG".utf8) + Array("V1 title".utf8) + [UInt8](repeating: 0, count: 22) + Array("V1 artist".utf8)
            + [UInt8](repeating: 0, count: 21 + 30 + 4 + 30) + [255]
        let audio = [UInt8](try Data(contentsOf: url))
        try Data(audio + Array("ID3".utf8) + [3, 0, 0] + size + body + v1).write(to: url)
        let md5 = try MediaChecks.decodedMD5(url)

        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "End title" && item.metadata.artist == "End artist", "\(item.metadata.items)")
        #expect(abs((item.properties.duration ?? 0) - 3.03) < 0.05)
        item.metadata.title = "New title"
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.prefix(3)) == Array("ID3".utf8), "the tag is at the front")
        let script = "import sys\nfrom mutagen.id3 import ID3\nt = ID3(sys.argv[1])\nprint(t['TIT2'].text[0] + '|' + t['TPE1'].text[0])"
        let tags = try TestSupport.runChecked("python3", ["-c", script, url.path]).text
        #expect(tags.trimmingCharacters(in: .whitespacesAndNewlines) == "New title|End artist")
        #expect(try MediaChecks.decodedMD5(url) == md5, "the decoded audio changed")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "New title" && reread.warnings.isEmpty, "\(reread.warnings)")
    }
}
