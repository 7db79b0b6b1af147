import Foundation
import Testing

@testable import MetadataKit

private typealias I = MatroskaInterop

/// Files made by ffmpeg and mkvmerge: what MetadataKit reads agrees with
/// ffprobe and mkvextract, and after every write mkvinfo reads the file,
/// mkvextract and ffprobe see the new tags, every packet is identical and
/// no Cluster moved.
@Suite(
    .enabled(
        if: MatroskaInterop.toolsPresent, "needs ffmpeg, ffprobe and mkvtoolnix (mkvmerge, mkvinfo, mkvextract)"))
struct MatroskaInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    @Test func anFFmpegFileReadsAsFFprobeSeesIt() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let chapters = url("chapters.txt")
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Zwei\n"
            .write(to: chapters, atomically: true, encoding: .utf8)
        let plain = url("plain.mkv"), cover = url("cover.jpg"), file = url("a.mkv")
        try I.ffmpegVideo(plain)
        try I.picture(cover)
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", plain.path, "-i", chapters.path, "-map", "0", "-map_chapters", "1", "-c", "copy",
                "-attach", cover.path, "-metadata:s:t", "mimetype=image/jpeg", file.path,
            ])
        let item = try await MediaItem.loaded(file)
        let probe = try I.ffprobe(file)
        #expect(item.metadata.title == "Movie T" && item.metadata.artist == "Art Ist" && item.metadata.date == "2021")
        let format = try #require(probe["format"] as? [String: Any])
        let duration = try #require(Double(format["duration"] as? String ?? ""))
        #expect(abs((item.properties.duration ?? 0) - duration) < 0.002)
        // Chapters: ffprobe's start, end and title.
        let probed = try #require(probe["chapters"] as? [[String: Any]])
        #expect(item.chapters.count == probed.count)
        for (chapter, other) in zip(item.chapters, probed) {
            #expect(abs(chapter.start - (Double(other["start_time"] as? String ?? "") ?? -1)) < 1e-6)
            #expect(abs((chapter.end ?? -1) - (Double(other["end_time"] as? String ?? "") ?? -1)) < 1e-6)
            #expect(chapter.title == (other["tags"] as? [String: String])?["title"])
        }
        // The attachment is the cover, byte for byte.
        let artwork = try #require(item.metadata.artwork.first)
        #expect(artwork.mimeType == "image/jpeg" && artwork.width == 64)
        #expect(try await artwork.data() == Data(contentsOf: cover))
        // Tracks as ffprobe's streams.
        // ffprobe lists the cover attachment as a stream too (an attached picture).
        let streams = try #require(probe["streams"] as? [[String: Any]]).filter {
            $0["codec_type"] as? String != "attachment" && ($0["disposition"] as? [String: Any])?["attached_pic"] as? Int != 1
        }
        #expect(item.properties.streams.count == streams.count)
        let video = try #require(item.properties.streams.first { $0.mediaType == .video })
        #expect(video.width == 160 && video.height == 120 && video.codecName == "H.264")
        let audio = try #require(item.properties.streams.first { $0.mediaType == .audio })
        #expect(audio.sampleRate == 48000 && audio.channels == 1 && audio.codecName == "AAC")
    }

    @Test func anMkvmergeFileReadsAsMkvextractSeesIt() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = url("in.mka"), file = url("mm.mka")
        try I.ffmpegAudio(audio)
        try I.mkvmerge(audio, file, in: directory)
        let item = try await MediaItem.loaded(file)
        #expect(item.metadata.title == "Track Title")
        // mkvmerge leaves out TargetTypeValue 50, the default: the album's tags have no level.
        #expect(item.metadata.album == "The Album")
        #expect(item.metadata.items.contains { $0.key == "ARTIST" && $0.value == .string("Album Artist") })
        #expect(item.metadata.artist == "Track Artist" && item.metadata.genre?.name == "Ambient")
        #expect(item.metadata.trackNumber == 7 && item.metadata.date == "2019-05-01")
        #expect(item.metadata.trackCount == 12) // the album's TOTAL_PARTS
        #expect(item.metadata.items.contains { $0.key == "30/ARTIST/SORT_WITH" && $0.value == .string("Artist, Track") })
        // Every SimpleTag mkvextract lists is an item with the same value.
        let xml = try I.extractedTags(file)
        let strings = xml.components(separatedBy: "<String>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        let values = item.metadata.items.compactMap {
            $0.key.hasPrefix("Info/") || $0.key.hasPrefix("Attachment/") ? nil : $0.value.stringValue
        }
        #expect(values.count == strings.count)
        #expect(Set(values) == Set(strings.map { $0.replacingOccurrences(of: "&apos;", with: "'") }))
        // Nested chapters with their languages.
        #expect(item.chapters.map(\.title) == ["Intro", "Main"])
        #expect(item.chapters[0].chapters.map(\.title) == ["Sub"] && item.chapters[0].chapters[0].start == 0.5)
        #expect(item.chapters[1].language == "de" || item.chapters[1].language == "ger")
        #expect(item.metadata.artwork.first?.mimeType == "image/png")
    }

    /// Track and disc counts go to `TOTAL_PARTS` at the album (50) and set
    /// (60) levels, as TagLib 2.2 writes them; mkvextract lists them there.
    @Test func countsAreWrittenAsTotalParts() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = url("in.mka"), file = url("counts.mka")
        try I.ffmpegAudio(audio)
        try I.mkvmerge(audio, file, in: directory)
        var item = try await MediaItem.loaded(file)
        item.metadata.trackCount = 14
        item.metadata.discCount = 2
        try await item.save()
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.trackNumber == 7 && reread.metadata.trackCount == 14)
        #expect(reread.metadata.discCount == 2)
        #expect(reread.metadata.items.contains { $0.key == "TOTAL_PARTS" && $0.value == .string("14") })
        #expect(reread.metadata.items.contains { $0.key == "60/TOTAL_PARTS" && $0.value == .string("2") })
        let xml = try I.extractedTags(file)
        #expect(xml.contains("<Name>TOTAL_PARTS</Name>") && xml.contains("<String>14</String>"))
        #expect(xml.contains("<TargetTypeValue>60</TargetTypeValue>") && xml.contains("<String>2</String>"))
        #expect(!xml.contains("<String>12</String>"))
    }

    /// The checks after a write: mkvinfo reads the whole file without an
    /// error, the packets and the Clusters are as they were (moved when what
    /// was before them grew), and the size changed by at most the new
    /// elements.
    func checkWrite(_ file: URL, hash: String, cluster: [UInt8], size: Int64, growth: Int64) throws {
        let info = try I.mkvinfo(file)
        #expect(
            !info.localizedCaseInsensitiveContains("error"),
            "mkvinfo: \(info.split(separator: "\n").filter { $0.lowercased().contains("error") }.prefix(3))")
        #expect(try I.streamHash(file) == hash)
        #expect(try I.clusters(file) == cluster)
        let newSize = try FileSource(url: file).size
        #expect(newSize >= size && newSize - size <= growth, "size \(size) → \(newSize)")
    }

    @Test(arguments: ["ffmpeg.mkv", "mkvmerge.mka", "nocues.mka", "nostats.mka", "video.webm", "live.mka"])
    func writesTagsInPlaceAndEveryToolReadsThem(_ name: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = url(name)
        let audio = url("in.mka")
        switch name {
        case "ffmpeg.mkv": try I.ffmpegVideo(file)
        case "mkvmerge.mka":
            try I.ffmpegAudio(audio)
            try I.mkvmerge(audio, file, in: directory)
        case "nocues.mka":
            try I.ffmpegAudio(audio)
            try I.mkvmerge(audio, file, in: directory, options: ["--no-cues"])
        case "nostats.mka":
            // No tags at all: the save adds a Tags element and its SeekHead entry.
            try I.ffmpegAudio(audio)
            try TestSupport.runChecked(
                "mkvmerge", ["-q", "-o", file.path, "--disable-track-statistics-tags", "--no-global-tags", audio.path])
        case "video.webm":
            #expect(Capabilities.ffmpegEncodes("libvpx") && Capabilities.ffmpegEncodes("libopus"))
            try TestSupport.runChecked(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=5", "-f", "lavfi", "-i",
                    "sine=duration=2",
                    "-t", "2", "-c:v", "libvpx", "-c:a", "libopus", "-metadata", "artist=W", file.path,
                ])
        default:
            // Written to a pipe: a Segment of unknown size, as a live stream.
            try I.ffmpegAudio(audio)
            let output = try TestSupport.runChecked(
                "ffmpeg", ["-nostdin", "-v", "error", "-i", audio.path, "-c", "copy", "-metadata", "artist=Live", "-f", "matroska", "-"])
            try output.standardOutput.write(to: file)
            #expect(try MatroskaLayout(parsing: FileSource(url: file)).segment.dataSize == nil)
        }
        let hash = try I.streamHash(file)
        let cluster = try I.clusters(file)
        let size = try FileSource(url: file).size
        var item = try await MediaItem.loaded(file)
        let untouched = item.metadata.items.filter {
            !["Info/Title", "30/TITLE", "50/TITLE", "30/ARTIST", "ARTIST", "30/GENRE", "GENRE"].contains($0.key)
        }
        let title = "A title in Ünïcödé, longer than the old one: " + String(repeating: "x", count: 300)
        item.metadata.title = title
        item.metadata.artist = "New Artist"
        item.metadata.genre = Genre(name: "Jazz")
        try await item.save()
        try checkWrite(file, hash: hash, cluster: cluster, size: size, growth: 2 * 1024)
        let reread = try await MediaItem.loaded(file)
        #expect(reread.metadata.title == title && reread.metadata.artist == "New Artist" && reread.metadata.genre?.name == "Jazz")
        #expect(reread.warnings.isEmpty, "\(reread.warnings)")
        for old in untouched {
            #expect(reread.metadata.items.contains { $0.isStoredLike(old) }, "lost \(old.key)")
        }
        let tags = try I.ffprobeTags(file)
        #expect(tags["ARTIST"] == "New Artist" && tags["GENRE"] == "Jazz")
        let xml = try I.extractedTags(file)
        #expect(xml.contains("<String>New Artist</String>") && xml.contains("<String>Jazz</String>"))
        if name == "live.mka" {
            #expect(try MatroskaLayout(parsing: FileSource(url: file)).segment.dataSize == nil, "an unknown size stays unknown")
        }
        // A shorter title: in place, the same size.
        var again = reread
        let sizeBefore = try FileSource(url: file).size
        again.metadata.title = "Short"
        try await again.save()
        try checkWrite(file, hash: hash, cluster: cluster, size: sizeBefore, growth: 0)
        #expect(again.lastSavePath == .inPlace)
        #expect(try await MediaItem.loaded(file).metadata.title == "Short")
        // Every tag removed: mkvinfo and ffprobe see none.
        var empty = try await MediaItem.loaded(file)
        try await empty.save(options: SaveOptions(removesAllTags: true))
        try checkWrite(file, hash: hash, cluster: cluster, size: sizeBefore, growth: 0)
        let cleared = try await MediaItem.loaded(file)
        #expect(!cleared.metadata.items.contains { !$0.key.hasPrefix("Attachment/") })
        #expect(try I.ffprobeTags(file)["ARTIST"] == nil)
    }

    @Test func aSegmentTitleAloneIsChangedWhereItIs() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = url("t.mkv")
        try I.ffmpegVideo(file)
        var item = try await MediaItem.loaded(file)
        #expect(item.metadata.items.contains { $0.key == "Info/Title" })
        item.metadata.title = "Movie U"
        try await item.save()
        #expect(item.lastSavePath == .inPlace)
        let info = try I.mkvinfo(file)
        #expect(info.contains("Title: Movie U"))
        let probe = try I.ffprobeTags(file)
        #expect(probe["TITLE"] == "Movie U")
        #expect(!(try await MediaItem.loaded(file)).metadata.items.contains { $0.key == "30/TITLE" })
    }
}
