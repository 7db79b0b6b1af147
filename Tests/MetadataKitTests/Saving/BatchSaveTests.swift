import Foundation
import Testing

@testable import MetadataKit

@Suite(.enabled(if: TestSupport.hasTool("ffmpeg"), "needs ffmpeg"))
struct BatchSaveTests {
    /// With the default budget the four files are one group (one set of
    /// syncs); with a budget of one byte each file is its own group. Both save
    /// every file.
    @Test(arguments: [MediaItem.batchByteBudget, 1])
    func mediaItemsSaveTogether(byteBudget: Int) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var items: [MediaItem] = []
        for (name, arguments) in [
            ("a.mp3", ["-c:a", "libmp3lame"]), ("b.m4a", ["-c:a", "aac", "-movflags", "+faststart"]),
            ("c.m4a", ["-c:a", "aac"]), ("d.flac", ["-c:a", "flac"]),
        ] {
            let url = directory.appendingPathComponent(name)
            try TestSupport.runChecked(
                "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1"] + arguments + [url.path])
            var item = MediaItem(url: url)
            try await item.load()
            item.metadata.title = "Batch \(name) " + String(repeating: "x", count: 2000)
            items.append(item)
        }
        let errors = await MediaItem.save(&items, options: SaveOptions(), byteBudget: byteBudget)
        #expect(errors.allSatisfy { $0 == nil }, "\(errors)")
        for item in items {
            var reread = MediaItem(url: item.url)
            try await reread.load()
            #expect(reread.metadata.title == item.metadata.title)
            #expect(item.hasChanges == false)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 4)
    }
}
