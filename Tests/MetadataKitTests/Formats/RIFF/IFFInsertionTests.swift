import Foundation
import Testing

@testable import MetadataKit

#if canImport(Glibc)
    import Glibc
#endif

/// WAV (RIFF and RF64) and AIFF files over 1 MiB whose tags before the audio
/// chunk grow past what a padding chunk holds: the save pads with `JUNK`
/// (WAV) or `FLLR` (AIFF) so the audio chunk moves by whole file system
/// blocks, and inserts blocks on ext4 — same inode, audio untouched, the
/// container size right. The files' lengths are not multiples of the block
/// size. A save killed between the insert and the write is undone on the next load.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe"), "needs ffmpeg and ffprobe"))
struct IFFInsertionTests {
    /// 13 s of 16-bit mono at 44.1 kHz: 1.1 MB, the title in a chunk before the audio
    /// (ffmpeg writes `LIST`/`INFO` before `data`, `NAME` before `SSND`).
    func makeFile(_ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=13"]
        if name.hasSuffix(".wav") { arguments += ["-c:a", "pcm_s16le"] }
        if name.contains("rf64") { arguments += ["-rf64", "always"] }
        try TestSupport.runChecked("ffmpeg", arguments + ["-metadata", "title=original", url.path])
        return url
    }

    /// The top-level chunks (id, offset, declared size) and the container size field.
    func chunks(_ url: URL) throws -> (chunks: [IFFChunk], containerSize: Int64) {
        let source = try FileSource(url: url)
        if url.pathExtension == "aiff" {
            let aiff = try AIFFStructure(parsing: source)
            return (aiff.chunks, aiff.structure.containerEnd - 8)
        }
        let wav = try WAVStructure(parsing: source)
        return (wav.chunks, wav.structure.containerEnd - 8)
    }

    func title(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "default=nw=1:nk=1", url.path])
            .text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        .enabled(if: InsertionEditorTests.canInsert, "the temporary folder's file system can't insert blocks"),
        arguments: ["song.wav", "song-rf64.wav", "song.aiff"])
    func growingTagsBeforeTheAudioInsertBlocks(name: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeFile(name, in: directory)
        let audioID: FourCC = name.hasSuffix(".aiff") ? "SSND" : "data"
        let size = try FileSource(url: url).size
        let block = try #require(Platform.blockSize(path: url.path))
        #expect(size % block != 0, "the test wants a length that is not whole blocks")
        let before = try chunks(url)
        let audio = try #require(before.chunks.first { $0.id == audioID })
        #expect(before.chunks.last == audio, "the tags are before the audio")
        let md5 = try MediaChecks.decodedMD5(url)
        let inode = try MediaChecks.inode(url)
        let payload = try FileSource(url: url).getBytes(at: audio.payloadOffset, count: 4096)

        var item = try await MediaItem.loaded(url)
        let title = String(repeating: "a much longer title ", count: 300)
        item.metadata.title = title
        try await item.save()
        #expect(item.lastSavePath == .insertion)
        #expect(try MediaChecks.inode(url) == inode)
        let after = try chunks(url)
        let moved = try #require(after.chunks.first { $0.id == audioID })
        #expect(moved.offset > audio.offset && (moved.offset - audio.offset) % block == 0, "\(audio.offset) → \(moved.offset)")
        #expect(moved.size == audio.size)
        #expect(try FileSource(url: url).getBytes(at: moved.payloadOffset, count: 4096) == payload)
        let newSize = try FileSource(url: url).size
        #expect(newSize == size + (moved.offset - audio.offset))
        #expect(after.containerSize == newSize - 8, "RIFF/FORM (or ds64) size")
        let filler = try #require(after.chunks.first { $0.id == (audioID == "data" ? "JUNK" : "FLLR") })
        #expect(filler.offset < moved.offset)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try await MediaItem.loaded(url).metadata.title == title)
        #expect(try self.title(url) == title.trimmingCharacters(in: .whitespaces))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])

        // The filler absorbs the next change: in place, the audio where it is.
        var again = try await MediaItem.loaded(url)
        again.metadata.title = "short again"
        try await again.save()
        #expect(again.lastSavePath == .inPlace)
        #expect(try chunks(url).chunks.first { $0.id == audioID }?.offset == moved.offset)
        #expect(try FileSource(url: url).size == newSize)
        #expect(try self.title(url) == "short again")
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }

    /// On tmpfs the same save is a rewrite, and the file reads the same.
    @Test(
        .enabled(if: Capabilities.shmFolder, "needs a writable tmpfs at /dev/shm (Linux), which can't insert blocks"),
        arguments: ["song.wav", "song.aiff"])
    func onTmpfsTheSaveRewrites(name: String) async throws {
        let directory = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("mdkit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeFile(name, in: directory)
        let md5 = try MediaChecks.decodedMD5(url)
        var item = try await MediaItem.loaded(url)
        let title = String(repeating: "tmpfs title ", count: 400)
        item.metadata.title = title
        try await item.save()
        #expect(item.lastSavePath == .rewrite)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try self.title(url) == title.trimmingCharacters(in: .whitespaces))
        #expect(try chunks(url).containerSize == FileSource(url: url).size - 8)
    }

    /// `mdkit write` paused (test hook) before the step and killed there: the
    /// next load collapses the inserted blocks and puts the old bytes back.
    @Test(
        .enabled(if: InsertionEditorTests.canInsert && Capabilities.mdkit, "needs ext4 and the mdkit binary"),
        arguments: [("song.wav", "patchWrite"), ("song.aiff", "patchWrite"), ("song.wav", "insert")])
    func aSaveKilledAroundTheInsertLeavesTheOldFile(name: String, step: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeFile(name, in: directory)
        let original = try Data(contentsOf: url)
        let reached = try await PausedSave.killWrite(of: url, title: String(repeating: "killed ", count: 900), before: step)
        #expect(reached, "the save never reached step \(step)")
        let item = try await MediaItem.loaded(url) // recovers
        #expect(item.metadata.title == "original")
        #expect(try Data(contentsOf: url) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])
    }
}
