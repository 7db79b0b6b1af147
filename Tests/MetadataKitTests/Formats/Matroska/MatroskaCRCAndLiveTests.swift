import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Two layouts saves must keep readable: an ffmpeg file whose Tags,
/// Chapters and Attachments carry CRC-32 elements (recomputed, checked
/// with zlib), and a live-stream file whose Segment and Clusters are of
/// unknown size (written where they are or at the end, the packets kept).
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaCRCAndLiveTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// Whether the data of element `id` starts with a CRC-32 element that
    /// holds zlib's CRC-32 of the rest (python3, not our code).
    func crcHolds(_ url: URL, _ id: UInt32) throws -> Bool {
        let element = try #require(try MatroskaLayout(parsing: FileSource(url: url)).first(id))
        let script = """
            import sys, zlib
            d = open(sys.argv[1], 'rb').read()[int(sys.argv[2]):int(sys.argv[2]) + int(sys.argv[3])]
            print(d[:2] == b'\\xbf\\x84' and zlib.crc32(d[6:]) == int.from_bytes(d[2:6], 'little'))
            """
        let output = try TestSupport.runChecked(
            "python3", ["-c", script, url.path, "\(element.dataOffset)", "\(element.dataSize ?? 0)"])
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines) == "True"
    }

    @Test func tagsChaptersAndACoverWrittenIntoAnFFmpegFileWithCRC32ElementsGetValidOnes() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.mkv"), file = directory.appendingPathComponent("crc.mkv")
        let cover = directory.appendingPathComponent("cover.jpg"), metadata = directory.appendingPathComponent("chapters.txt")
        try I.ffmpegVideo(plain)
        try I.picture(cover)
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Two\n"
            .write(to: metadata, atomically: true, encoding: .utf8)
        // ffmpeg writes a CRC-32 into every level-1 element (its write_crc32 option, on by default).
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", plain.path, "-i", metadata.path, "-map", "0", "-map_chapters", "1", "-c", "copy",
                "-attach", cover.path, "-metadata:s:t", "mimetype=image/jpeg", file.path,
            ])
        for id in [MatroskaID.tags, MatroskaID.chapters, MatroskaID.attachments, MatroskaID.info] {
            #expect(try crcHolds(file, id), "ffmpeg's 0x\(String(id, radix: 16)) has no CRC-32")
        }
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        let png = directory.appendingPathComponent("new.png")
        try I.picture(png)
        let picture = try Data(contentsOf: png)
        var item = try await MediaItem.loaded(file)
        item.metadata.title = "CRC title"
        item.metadata.artist = "CRC artist, longer than before"
        item.metadata.artwork = [Artwork(data: picture, mimeType: "image/png")]
        item.chapters = [
            Chapter(start: 0, end: 1, titles: [Chapter.Title("Eins", language: "ger")]),
            Chapter(start: 1, end: 3, titles: [Chapter.Title("Zwei", language: "ger")]),
        ]
        try await item.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: Int64(picture.count) + 4096)
        for id in [MatroskaID.tags, MatroskaID.chapters, MatroskaID.attachments, MatroskaID.info] {
            #expect(try crcHolds(file, id), "the rebuilt 0x\(String(id, radix: 16)) has no valid CRC-32")
        }
        // mkvextract and ffprobe read what was written.
        #expect(try I.extractedTags(file).contains("<String>CRC artist, longer than before</String>"))
        #expect(try I.extractedChapters(file).contains("<ChapterString>Zwei</ChapterString>"))
        let attached = try #require(try I.attachments(file).first)
        #expect(attached.name == "cover.png" && attached.type == "image/png")
        #expect(try I.extractedAttachment(file, id: attached.id, in: directory) == picture)
        let tags = try I.ffprobeTags(file)
        #expect(tags["TITLE"] == "CRC title" && tags["ARTIST"] == "CRC artist, longer than before")
        #expect((try I.ffprobe(file)["chapters"] as? [[String: Any]])?.count == 2)
    }

    /// ffmpeg's output to a pipe (a Segment of unknown size), its Clusters'
    /// sizes then made unknown too, as a live stream writes them (the size
    /// fields' bytes all ones, RFC 8794 §6.2): ffmpeg and mkvinfo read it.
    func liveFile() throws -> URL {
        let audio = directory.appendingPathComponent("in.mka"), file = directory.appendingPathComponent("live.mka")
        try I.ffmpegAudio(audio)
        let output = try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", audio.path, "-c", "copy", "-metadata", "artist=Live", "-f", "matroska", "-"])
        var bytes = [UInt8](output.standardOutput)
        try output.standardOutput.write(to: file)
        let source = try FileSource(url: file)
        let layout = try MatroskaLayout(parsing: source)
        #expect(layout.segment.dataSize == nil, "ffmpeg wrote a Segment size to a pipe")
        var position = try #require(layout.firstCluster)
        var clusters = 0
        while position < source.size {
            let element = try EBMLElement(parsing: source, at: position, limit: source.size)
            guard element.id == MatroskaID.cluster, let end = element.end else { break }
            let sizeAt = Int(element.offset) + element.idLength
            bytes[sizeAt] = UInt8(0xFF >> (element.sizeLength - 1))
            for index in 1..<element.sizeLength { bytes[sizeAt + index] = 0xFF }
            clusters += 1
            position = end
        }
        #expect(clusters >= 2)
        try Data(bytes).write(to: file)
        return file
    }

    @Test func aLiveStreamOfUnknownSizesKeepsItsPacketsThroughEverySave() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try liveFile()
        let audio = directory.appendingPathComponent("in.mka")
        #expect(try I.trackHash(file) == (try I.trackHash(audio)), "ffmpeg reads the unknown-size Clusters")
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
        let hash = try I.trackHash(file), cluster = try I.clusters(file), size = try FileSource(url: file).size
        // A long title and tags: they don't fit in place and go after the last Cluster.
        var item = try await MediaItem.loaded(file)
        #expect(item.metadata.artist == "Live")
        let title = "Live title " + String(repeating: "·", count: 400)
        item.metadata.title = title
        item.metadata.genre = Genre(name: "Live Jazz")
        try await item.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 4096)
        var reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.title == title && reread.metadata.genre?.name == "Live Jazz" && reread.metadata.artist == "Live")
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).segment.dataSize == nil, "an unknown size stays unknown")
        #expect(try I.ffprobeTags(file)["GENRE"] == "Live Jazz")
        #expect(try I.extractedTags(file).contains("<String>Live Jazz</String>"))
        // Chapters, then a shorter title (in place).
        let chapters = [Chapter(start: 0, end: 1.5, titles: [Chapter.Title("A")]), Chapter(start: 1.5, titles: [Chapter.Title("B")])]
        reread.chapters = chapters
        try await reread.save()
        try I.checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 8192)
        var third = try await MediaItem.loaded(file)
        #expect(ChapterComparison.difference(expected: [ChapterTable(chapters: chapters)], actual: third.chapterTables) == nil)
        #expect((try I.ffprobe(file)["chapters"] as? [[String: Any]])?.count == 2)
        #expect(try I.extractedChapters(file).contains("<ChapterString>B</ChapterString>"))
        let sizeBefore = try FileSource(url: file).size
        third.metadata.title = "Short"
        try await third.save()
        #expect(third.lastSavePath == .inPlace)
        try I.checkWrite(file, hash: hash, cluster: cluster, size: sizeBefore, growth: 0)
        #expect(try await MediaItem.loaded(file).metadata.title == "Short")
        #expect(try I.ffprobeTags(file)["TITLE"] == "Short")
    }

    /// A live recording cut off mid-Cluster: an element appended after its
    /// last, cut-short block would become that block's data (ffmpeg would
    /// read a different last packet). What was before the Clusters stays
    /// there (the Clusters move, the cut end with them), so nothing goes
    /// after the cut (``MatroskaSpaceLayout/checkAppendable()`` refuses that).
    @Test func aCutLiveRecordingKeepsItsLastBlock() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let live = try liveFile()
        let file = directory.appendingPathComponent("cut.mka")
        let bytes = try Data(contentsOf: live)
        try bytes.prefix(bytes.count - 100).write(to: file)
        let hash = try I.trackHash(file)
        let before = try Data(contentsOf: file)
        var item = try await MediaItem.loaded(file)
        item.metadata.title = String(repeating: "long title ", count: 60)
        try await item.save()
        #expect(try Data(contentsOf: file).suffix(2000) == before.suffix(2000))
        #expect(try I.trackHash(file) == hash)
        #expect(try await MediaItem.loaded(file).metadata.title == item.metadata.title)
    }
}
