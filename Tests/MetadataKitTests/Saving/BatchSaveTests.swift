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

    /// Cancelling the task between groups stops the batch: the files not
    /// written are byte-identical, each with a `cancelled` error.
    @Test func cancellationStopsBeforeTheNextFiles() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.flac")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.2", first.path])
        let window = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var urls: [URL] = []
        for index in 0..<(3 * window) {
            let url = directory.appendingPathComponent("\(index).flac")
            try FileManager.default.copyItem(at: first, to: url)
            urls.append(url)
        }
        let original = try Data(contentsOf: first)
        var items: [MediaItem] = []
        for url in urls {
            var item = try await MediaItem(contentsOf: url)
            item.metadata.title = "Batch"
            items.append(item)
        }
        let saving = items
        // A one-byte budget writes each window of plans as one group; the
        // progress call after the first group cancels the task.
        let errors = await Task {
            var items = saving
            return await MediaItem.save(&items, options: SaveOptions(), byteBudget: 1) { _ in
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }.value
        let saved = errors.filter { $0 == nil }.count
        #expect(saved == window, "one window saved before the cancellation took effect: \(saved)")
        for (url, error) in zip(urls, errors) {
            if let error {
                #expect((error as? MediaError)?.code == .cancelled, "\(error)")
                #expect(try Data(contentsOf: url) == original, "\(url.lastPathComponent) was written")
            } else {
                #expect(try await MediaItem(contentsOf: url).metadata.title == "Batch")
            }
        }
    }
}
