import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

private typealias B = FLACOggBuilder

/// Saves that keep an Ogg stream's page count: only the header pages change,
/// no audio page is renumbered or rewritten. On a file over 1 MiB a comment
/// that grows gets zero padding so the header pages grow by whole blocks
/// (inserted on ext4) and the next edit is in place; header pages that would
/// need more pages with their old lacing counts are re-laced over the same
/// number of pages.
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe"), "needs ffmpeg and ffprobe"))
struct OggPageCountTests {
    /// An Ogg Vorbis file from ffmpeg: `seconds` of a sine, or of noise (which
    /// Vorbis can't squeeze: about the bit rate asked for).
    func makeVorbis(seconds: Int, bitRate: String = "96k", noise: Bool = false, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("song.ogg")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                noise ? "anoisesrc=duration=\(seconds):amplitude=0.5" : "sine=frequency=440:duration=\(seconds)", "-c:a", "libvorbis",
                "-b:a", bitRate, "-metadata", "title=original", url.path,
            ])
        return url
    }

    /// The bytes after the stream's header pages (the audio pages), and where they start.
    func audioPages(_ url: URL) throws -> (offset: Int64, bytes: [UInt8]) {
        let source = try FileSource(url: url)
        let scan = try OggHeaderScan.read(source)
        return (scan.end, try source.getBytes(at: scan.end, count: Int(source.size - scan.end)))
    }

    func titles(_ url: URL) throws -> (ffprobe: String, mutagen: String?) {
        let probe = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "stream_tags=title", "-of", "default=nw=1:nk=1", url.path])
        var mutagen: String?
        if TestSupport.hasTool("python3"),
            let output = try? TestSupport.run(
                "python3", ["-c", "import sys, mutagen; print(mutagen.File(sys.argv[1])['title'][0])", url.path]),
            output.status == 0
        {
            mutagen = output.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (probe.text.trimmingCharacters(in: .whitespacesAndNewlines), mutagen)
    }

    @Test(.enabled(if: InsertionEditorTests.canInsert, "the temporary folder's file system can't insert blocks"))
    func aLargeFileGrowsByInsertedBlocks() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeVorbis(seconds: 60, bitRate: "192k", noise: true, in: directory)
        let size = try FileSource(url: url).size
        try #require(size >= FileEditor.insertionMinimumTail)
        let block = try #require(Platform.blockSize(path: url.path))
        let audio = try audioPages(url)
        let inode = try MediaChecks.inode(url)
        let md5 = try MediaChecks.decodedMD5(url)

        var item = try await MediaItem.loaded(url)
        let title = String(repeating: "a long title ", count: 700) // 9 KB: more than the page holds
        item.metadata.title = title
        try await item.save()
        #expect(item.lastSavePath == .insertion)
        #expect(try MediaChecks.inode(url) == inode)
        let moved = try audioPages(url)
        #expect(moved.bytes == audio.bytes)
        #expect(moved.offset > audio.offset && (moved.offset - audio.offset) % block == 0)
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        let read = try titles(url)
        #expect(read.ffprobe == title.trimmingCharacters(in: .whitespaces))
        if TestSupport.hasTool("python3") { #expect(read.mutagen == title.trimmingCharacters(in: .whitespaces)) }

        // The padding takes the next edit: in place, the audio pages where they are.
        var again = try await MediaItem.loaded(url)
        again.metadata.title = title + " and a few more words"
        again.metadata.artist = "someone"
        try await again.save()
        #expect(again.lastSavePath == .inPlace)
        #expect(try audioPages(url).offset == moved.offset)
        #expect(try audioPages(url).bytes == audio.bytes)
        #expect(try B.pageProblems(url).isEmpty, "CRCs and sequence numbers")
        let reread = try titles(url)
        #expect(reread.ffprobe == title + " and a few more words")
        if TestSupport.hasTool("python3") { #expect(reread.mutagen == title + " and a few more words") }
        #expect(try await MediaItem.loaded(url).metadata.artist == "someone")
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }

    /// Header pages of 16 lacing values (as some muxers write): a comment
    /// that grows past what the old lacing counts hold is re-laced over the
    /// same number of pages, and the audio page is copied, not renumbered.
    @Test func aCommentOutgrowingItsLacingCountsIsReLacedOverTheSamePages() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serial: UInt32 = 77
        var pages = OggPage.paginate([B.vorbisID()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        let headers = OggPage.paginate(
            [B.vorbisComment(["TITLE=abc", "COMMENT=" + String(repeating: "x", count: 20_000)]), B.vorbisSetup(3000)],
            serial: serial, firstSequence: 1, capacities: [Int](repeating: 16, count: 200))
        pages += headers
        pages += B.setEOS(OggPage.paginate([[1, 2, 3]], serial: serial, firstSequence: UInt32(1 + headers.count), granule: 1000))
        let url = try B.write(pages.flatMap { $0 }, "x.ogg", in: directory)
        let audioPage = try #require(pages.last)

        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "y", count: 90_000) // more than the last page's 255 lacing values hold
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: [.vorbis])
        guard case .rewrite(let segments) = try OggEditPlanner.plan(FileSource(url: url), items, SaveOptions()) else {
            Issue.record("expected a rewrite")
            return
        }
        let size = try FileSource(url: url).size
        #expect(segments.last == .original(offset: size - Int64(audioPage.count), length: Int64(audioPage.count)))
        try await item.save()
        #expect(try B.pages(url).count == pages.count)
        #expect(Array([UInt8](try Data(contentsOf: url)).suffix(audioPage.count)) == audioPage)
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try await MediaItem.loaded(url).metadata.comments?.count == 90_000)
    }
}
