import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

#if canImport(Glibc)
    import Glibc
#endif

/// A fast-start MP4 larger than ``FileEditor/insertionMinimumTail`` whose
/// `moov` must grow: saved by inserting blocks on ext4 (`moov` stays first,
/// the inode and the audio stay), by a rewrite on tmpfs; and `mdkit write`
/// killed before the insert and between the insert and the write of the new
/// `moov` leaves the old file.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg"), "needs ffmpeg"))
struct LargeFileSaveTests {
    /// About 1.6 MB of AAC, `moov` first.
    func makeMovie(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("movie.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=100",
                "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-metadata", "title=original",
                url.path,
            ])
        return url
    }

    func makeDirectory(in folder: String?) throws -> URL {
        guard let folder else { return try TestSupport.makeTemporaryDirectory() }
        let directory = URL(fileURLWithPath: folder).appendingPathComponent("mdkit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }

    @Test(
        .enabled(if: InsertionEditorTests.canInsert, "the temporary folder's file system can't insert blocks"),
        arguments: [nil, "/dev/shm"])
    func aGrowingMovieBoxIsSavedByInsertingBlocks(folder: String?) async throws {
        let directory = try makeDirectory(in: folder)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeMovie(in: directory)
        let md5 = try MediaChecks.decodedMD5(url)
        let inode = try MediaChecks.inode(url)
        var item = try await MediaItem.loaded(url)
        let title = String(repeating: "long title ", count: 2000)
        item.metadata.title = title
        try await item.save()
        #expect(item.lastSavePath == (folder == nil ? .insertion : .rewrite))
        #expect((try MediaChecks.inode(url) == inode) == (folder == nil))
        #expect(try MediaChecks.topLevelTypes(url).prefix(2) == ["ftyp", "moov"])
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try await MediaItem.loaded(url).metadata.title == title)
        let probe = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "format_tags=title", "-of",
                "default=nw=1:nk=1", url.path,
            ])
        #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == title.trimmingCharacters(in: .whitespaces))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["movie.m4a"])
    }

    /// Where the system can't insert blocks (Darwin; bound here on Linux),
    /// the movie that would take an insertion on ext4 is rewritten at once:
    /// its growth is not padded up to whole blocks, no journal is written
    /// for an insertion that can only fail.
    @Test(.enabled(if: InsertionEditorTests.canInsert, "the temporary folder's file system can't insert blocks"))
    func withoutTheInsertionCapabilityAGrowingMovieIsRewrittenUnpadded() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeMovie(in: directory)
        let twin = directory.appendingPathComponent("twin.m4a")
        try FileManager.default.copyItem(at: url, to: twin)
        let title = String(repeating: "long title ", count: 2000)
        let before = try FileSource(url: url).size
        var inserted = try await MediaItem.loaded(twin)
        inserted.metadata.title = title
        try await inserted.save()
        #expect(inserted.lastSavePath == .insertion, "the same save with the capability")
        #expect((try FileSource(url: twin).size - before) % 4096 == 0, "grown by whole blocks")
        try await FileEditor.$insertsBlocks.withValue(false) {
            var item = try await MediaItem.loaded(url)
            item.metadata.title = title
            try await item.save()
            #expect(item.lastSavePath == .rewrite)
        }
        let growth = try FileSource(url: url).size - before
        #expect(growth > 0 && growth % 4096 != 0, "not padded to the block size (grew \(growth) bytes)")
        #expect(try MediaChecks.decodedMD5(url) == MediaChecks.decodedMD5(twin))
        #expect(try await MediaItem.loaded(url).metadata.title == title)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["movie.m4a", "twin.m4a"])
    }

    /// An MP3 (ID3v2.4, an ID3v1 tag that changes too) and a FLAC file over
    /// 1 MiB whose tags grow past their padding: blocks inserted on ext4.
    @Test(
        .enabled(if: InsertionEditorTests.canInsert, "the temporary folder's file system can't insert blocks"),
        arguments: ["mp3", "flac"])
    func growingAudioTagsInsertBlocks(kind: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("song.\(kind)")
        let codec = kind == "mp3" ? ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "4", "-write_id3v1", "1"] : ["-c:a", "flac"]
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=90"]
                + codec + ["-metadata", "title=original", url.path])
        let md5 = try MediaChecks.decodedMD5(url)
        let inode = try MediaChecks.inode(url)
        var item = try await MediaItem.loaded(url)
        let title = String(repeating: "a much longer title ", count: 1000)
        item.metadata.title = title
        try await item.save()
        #expect(item.lastSavePath == .insertion)
        #expect(try MediaChecks.inode(url) == inode)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try await MediaItem.loaded(url).metadata.title == title)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["song.\(kind)"])
    }

    /// `mdkit write` paused (test hook) before `step` and killed there.
    @Test(
        .enabled(if: InsertionEditorTests.canInsert && Capabilities.mdkit, "needs ext4 and the mdkit binary"),
        arguments: ["insert", "patchWrite"])
    func aSaveKilledAroundTheInsertLeavesTheOldFile(step: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeMovie(in: directory)
        let md5 = try MediaChecks.decodedMD5(url)
        let size = try FileSource(url: url).size
        let reached = try await PausedSave.killWrite(of: url, title: String(repeating: "killed ", count: 2000), before: step)
        #expect(reached, "the save never reached step \(step)")
        let item = try await MediaItem.loaded(url) // recovers
        #expect(item.metadata.title == "original")
        #expect(try FileSource(url: url).size == size)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["movie.m4a"])
    }
}
