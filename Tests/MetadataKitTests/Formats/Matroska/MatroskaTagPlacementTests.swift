import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Tags go where ffprobe, mediainfo and exiftool (which reads nothing past
/// the first Cluster without `-ee`) find them: before the first Cluster of
/// a WebM recorded the MediaRecorder way (no SeekHead, unknown sizes), and
/// still before the Clusters when a rebuilt Tags element no longer fits in
/// its place; a shorter value keeps the Tags where they were, with no
/// element the file didn't have.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent && TestSupport.hasTool("exiftool") && TestSupport.hasTool("mediainfo"),
        "needs ffmpeg, ffprobe, mkvtoolnix, exiftool and mediainfo"))
struct MatroskaTagPlacementTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A WebM laid out as Chrome's and Firefox's MediaRecorder write one:
    /// ffmpeg's VP8/Opus WebM written to a pipe (`-f webm -`), then its
    /// SeekHead, Void, Tags and Cues left out and every Cluster's size made
    /// unknown (8 bytes of ones), under a Segment of unknown size: EBML
    /// header, Segment, Info, Tracks, Clusters and nothing else.
    func mediaRecorderWebM() throws -> URL {
        #expect(Capabilities.ffmpegEncodes("libvpx") && Capabilities.ffmpegEncodes("libopus"))
        let piped = try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "lavfi", "-i", "sine=duration=2",
                "-t", "2", "-c:v", "libvpx", "-c:a", "libopus", "-f", "webm", "-",
            ])
        let raw = directory.appendingPathComponent("piped.webm"), file = directory.appendingPathComponent("recorded.webm")
        try piped.standardOutput.write(to: raw)
        let source = try FileSource(url: raw)
        let layout = try MatroskaLayout(parsing: source)
        let unknown: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        var bytes = try source.getBytes(at: 0, count: Int(layout.segment.offset)) + EBML.idBytes(MatroskaID.segment) + unknown
        for id in [MatroskaID.info, MatroskaID.tracks] {
            let element = try #require(layout.first(id))
            bytes += try source.getBytes(at: element.offset, count: Int(element.totalSize!))
        }
        var position = try #require(layout.firstCluster)
        var clusters = 0
        while position < source.size {
            let element = try EBMLElement(parsing: source, at: position, limit: source.size)
            if element.id == MatroskaID.cluster {
                bytes +=
                    EBML.idBytes(MatroskaID.cluster) + unknown
                    + (try source.getBytes(at: element.dataOffset, count: Int(element.dataSize!)))
                clusters += 1
            }
            position = element.end!
        }
        #expect(clusters >= 2)
        try Data(bytes).write(to: file)
        return file
    }

    /// The bytes from the first Cluster to the Cues (or the end).
    func clusterBytes(_ url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        let layout = try MatroskaLayout(parsing: source)
        let first = try #require(layout.firstCluster)
        let end = layout.cuesAfterFirstCluster(source).first?.offset ?? source.size
        return try source.getBytes(at: first, count: Int(end - first))
    }

    @Test func tagsWrittenToAMediaRecorderWebMGoBeforeItsClustersWhereEveryReaderFindsThem() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try mediaRecorderWebM()
        #expect(try MatroskaLayout(parsing: FileSource(url: file)).seekHeads.isEmpty)
        #expect(try I.ffprobeTags(file)["TITLE"] == nil)
        let hash = try I.trackHash(file), clusters = try clusterBytes(file)
        var item = try await MediaItem.loaded(file)
        item.metadata.title = "Recorded title"
        item.metadata.artist = "Recorded artist"
        try await item.save()

        // The Clusters moved unchanged, behind the Tags and some padding.
        #expect(try clusterBytes(file) == clusters)
        #expect(try I.trackHash(file) == hash)
        let layout = try MatroskaLayout(parsing: FileSource(url: file))
        let tags = try #require(layout.first(MatroskaID.tags))
        #expect(tags.offset < layout.firstCluster!)
        #expect(layout.segment.dataSize == nil, "an unknown Segment size stays unknown")
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.title == "Recorded title" && reread.metadata.artist == "Recorded artist")
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")

        let ffprobe = try I.ffprobeTags(file)
        #expect(ffprobe["TITLE"] == "Recorded title" && ffprobe["ARTIST"] == "Recorded artist")
        let exiftool = try TestSupport.runChecked("exiftool", ["-s", "-Title", "-Artist", file.path]).text
        #expect(exiftool.contains("Recorded title") && exiftool.contains("Recorded artist"), "\(exiftool)")
        let mediainfo = try TestSupport.runChecked("mediainfo", [file.path]).text
        #expect(mediainfo.contains("Recorded title") && mediainfo.contains("Recorded artist"), "\(mediainfo)")
        let info = try I.mkvinfo(file)
        #expect(!info.localizedCaseInsensitiveContains("error"))
        #expect(try I.extractedTags(file).contains("<String>Recorded artist</String>"))

        // The next save fits in the padding: nothing moves.
        let size = try FileSource(url: file).size, first = layout.firstCluster
        var again = try await MediaItem.loaded(file)
        again.metadata.album = "An album"
        try await again.save()
        #expect(try FileSource(url: file).size == size && (try I.firstCluster(file)) == first)
        #expect(try I.ffprobeTags(file)["ARTIST"] == "Recorded artist")
    }

    /// The positions each CuePoint gives (relative to the Segment's data),
    /// read with our parser, and whether each is a Cluster's.
    func cuesPointAtClusters(_ url: URL) throws -> Bool {
        let source = try FileSource(url: url)
        let layout = try MatroskaLayout(parsing: source)
        let cues = layout.cuesAfterFirstCluster(source)
        #expect(cues.count == 1)
        let listing = try I.mkvinfo(url)
        let positions = listing.split(separator: "\n").compactMap { line -> Int64? in
            guard let range = line.range(of: "Cue cluster position: ") else { return nil }
            return Int64(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(!positions.isEmpty)
        return try positions.allSatisfy { position in
            try EBMLElement(parsing: source, at: layout.segmentData + position, limit: source.size).id == MatroskaID.cluster
        }
    }

    @Test func anFFmpegFilesTagsStayBeforeItsClustersWhetherTheyShrinkOrGrow() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ffmpeg.mkv")
        try I.ffmpegVideo(file, extra: ["-metadata", "comment=A comment of some length, as taggers write them"])
        let before = try MatroskaLayout(parsing: FileSource(url: file))
        let oldTags = try #require(before.first(MatroskaID.tags))
        let hash = try I.trackHash(file), clusters = try clusterBytes(file)

        // Shorter: the Tags stay where they were, no larger, with no TagLanguage
        // or TagDefault the file didn't have (ffmpeg writes neither).
        var item = try await MediaItem.loaded(file)
        item.metadata.artist = "Short"
        try await item.save()
        let shrunk = try MatroskaLayout(parsing: FileSource(url: file))
        let tags = try #require(shrunk.first(MatroskaID.tags))
        #expect(tags.offset == oldTags.offset && tags.dataSize! <= oldTags.dataSize!)
        let newSize = try #require(tags.dataSize), oldSize = try #require(oldTags.dataSize)
        #expect(tags.offset == oldTags.offset && newSize <= oldSize)
        let extracted = try I.extractedTags(file)
        #expect(extracted.contains("<String>Short</String>"))
        let data = try FileSource(url: file).getBytes(at: tags.offset, count: Int(tags.totalSize!))
        let languageID: [UInt8] = [0x44, 0x7A], defaultID: [UInt8] = [0x44, 0x84]
        #expect(!data.indices.dropLast().contains { Array(data[$0...$0 + 1]) == languageID || Array(data[$0...$0 + 1]) == defaultID })
        #expect(try TestSupport.runChecked("exiftool", ["-s", "-Artist", file.path]).text.contains("Short"))

        // Much longer: no room before the Clusters, which move unchanged; the
        // Cues and the SeekHead follow them.
        let long = "Long artist " + String(repeating: "x", count: 600)
        var grown = try await MediaItem.loaded(file)
        grown.metadata.artist = long
        try await grown.save()
        let after = try MatroskaLayout(parsing: FileSource(url: file))
        let newFirst = try #require(after.firstCluster), oldFirst = try #require(before.firstCluster)
        #expect(try #require(after.first(MatroskaID.tags)).offset < newFirst && newFirst > oldFirst)
        #expect(try clusterBytes(file) == clusters)
        #expect(try I.trackHash(file) == hash)
        #expect(try cuesPointAtClusters(file))
        #expect(!(try I.mkvinfo(file)).localizedCaseInsensitiveContains("error"))
        #expect(try I.ffprobeTags(file)["ARTIST"] == long)
        #expect(try TestSupport.runChecked("exiftool", ["-s", "-Artist", file.path]).text.contains(long))
        #expect(try TestSupport.runChecked("mediainfo", [file.path]).text.contains(long))
        // ffmpeg seeks through the moved Cues.
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-ss", "2", "-i", file.path, "-frames:v", "1", "-f", "null", "-"])
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.artist == long && reread.warnings.isEmpty)
    }
}
