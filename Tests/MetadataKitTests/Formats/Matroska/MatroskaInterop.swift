import Foundation
import Testing

@testable import MetadataKit

/// Matroska files made by ffmpeg and mkvmerge for the interop tests, and
/// the independent checks run after every write (mkvinfo, mkvextract,
/// ffprobe, ffmpeg's stream hash, the first Cluster's offset).
enum MatroskaInterop {
    /// Whether the tools these tests make and check files with are here
    /// (missing under `CI=true` fails: see ``Capabilities``).
    static var toolsPresent: Bool {
        TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && Capabilities.mkvtoolnix
    }

    /// A 3-second test video (H.264 160×120 at 10 fps) with AAC audio, with
    /// `-metadata` title (the Segment title), artist and date.
    static func ffmpegVideo(_ url: URL, extra: [String] = []) throws {
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000", "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                "-metadata", "title=Movie T", "-metadata", "artist=Art Ist", "-metadata", "date=2021",
            ] + extra + [url.path])
    }

    /// A 3-second AAC audio file.
    static func ffmpegAudio(_ url: URL, extra: [String] = []) throws {
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:a", "aac"]
                + extra + [url.path])
    }

    /// A 64×64 picture made by ffmpeg (`.jpg` or `.png` by the name).
    static func picture(_ url: URL) throws {
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x64", "-frames:v", "1", url.path])
    }

    static let tagsXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Tags>
          <Tag><Targets><TargetTypeValue>50</TargetTypeValue></Targets>
            <Simple><Name>TITLE</Name><String>The Album</String></Simple>
            <Simple><Name>ARTIST</Name><String>Album Artist</String></Simple>
            <Simple><Name>DATE_RELEASED</Name><String>2019-05-01</String></Simple>
            <Simple><Name>TOTAL_PARTS</Name><String>12</String></Simple>
          </Tag>
          <Tag><Targets><TargetTypeValue>30</TargetTypeValue></Targets>
            <Simple><Name>TITLE</Name><String>Track Title</String></Simple>
            <Simple><Name>ARTIST</Name><String>Track Artist</String>
              <Simple><Name>SORT_WITH</Name><String>Artist, Track</String></Simple></Simple>
            <Simple><Name>PART_NUMBER</Name><String>7</String></Simple>
            <Simple><Name>GENRE</Name><String>Ambient</String></Simple>
          </Tag>
        </Tags>
        """

    static let chaptersXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Chapters><EditionEntry><EditionFlagDefault>1</EditionFlagDefault>
          <ChapterAtom><ChapterTimeStart>00:00:00.000</ChapterTimeStart><ChapterTimeEnd>00:00:01.000</ChapterTimeEnd>
            <ChapterDisplay><ChapterString>Intro</ChapterString><ChapterLanguage>eng</ChapterLanguage></ChapterDisplay>
            <ChapterAtom><ChapterTimeStart>00:00:00.500</ChapterTimeStart>
              <ChapterDisplay><ChapterString>Sub</ChapterString></ChapterDisplay></ChapterAtom>
          </ChapterAtom>
          <ChapterAtom><ChapterTimeStart>00:00:01.000</ChapterTimeStart>
            <ChapterDisplay><ChapterString>Main</ChapterString><ChapterLanguage>ger</ChapterLanguage></ChapterDisplay></ChapterAtom>
        </EditionEntry></Chapters>
        """

    /// mkvmerge's remux of `input` into `output` with the tags, chapters
    /// and a cover of this type, plus `options`.
    static func mkvmerge(_ input: URL, _ output: URL, in directory: URL, options: [String] = []) throws {
        let tags = directory.appendingPathComponent("tags.xml"), chapters = directory.appendingPathComponent("chapters.xml")
        try tagsXML.write(to: tags, atomically: true, encoding: .utf8)
        try chaptersXML.write(to: chapters, atomically: true, encoding: .utf8)
        let cover = directory.appendingPathComponent("cover.png")
        try picture(cover)
        try TestSupport.runChecked(
            "mkvmerge",
            [
                "-q", "-o", output.path, "--title", "Seg Title", "--global-tags", tags.path, "--chapters", chapters.path,
                "--attachment-mime-type", "image/png", "--attach-file", cover.path,
            ] + options + [input.path])
    }

    /// ffmpeg's hash of every stream's packets.
    static func streamHash(_ url: URL) throws -> String {
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0", "-c", "copy", "-f", "streamhash", "-"]
        ).text
    }

    /// The first Cluster's offset (our reader, checked against mkvinfo's below).
    static func firstCluster(_ url: URL) throws -> Int64? {
        try MatroskaLayout(parsing: FileSource(url: url)).firstCluster
    }

    /// The bytes of the Clusters, from the first to the element after the
    /// last of them: a save keeps them byte for byte, wherever they are.
    static func clusters(_ url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        let layout = try MatroskaLayout(parsing: source)
        guard let first = layout.firstCluster else { return [] }
        var end: Int64?
        let walked = layout.walkAfterFirstCluster(source) { element in
            if end == nil, element.id != MatroskaID.cluster { end = element.offset }
        }
        let stop = end ?? walked ?? source.size
        return try source.getBytes(at: first, count: Int(stop - first))
    }

    /// ffprobe's format tags and chapters, as JSON.
    static func ffprobe(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_chapters", "-show_streams", url.path])
        return try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any] ?? [:]
    }

    /// ffprobe's format tags, keys uppercased.
    static func ffprobeTags(_ url: URL) throws -> [String: String] {
        let format = try ffprobe(url)["format"] as? [String: Any]
        let tags = format?["tags"] as? [String: String] ?? [:]
        return Dictionary(tags.map { ($0.key.uppercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// `mkvextract tags` as XML text.
    static func extractedTags(_ url: URL) throws -> String {
        try TestSupport.runChecked("mkvextract", [url.path, "tags", "-"]).text
    }

    /// mkvinfo's full listing (`-a`: past the first Cluster); fails when it finds errors.
    static func mkvinfo(_ url: URL) throws -> String {
        let output = try TestSupport.runChecked("mkvinfo", ["-a", "-v", url.path])
        return output.text
    }

    /// `mkvextract chapters` as XML text (empty when the file has none).
    static func extractedChapters(_ url: URL) throws -> String {
        try TestSupport.runChecked("mkvextract", [url.path, "chapters", "-"]).text
    }

    /// The attachments mkvmerge lists (`mkvmerge -J`): ID, name, media type, size.
    static func attachments(_ url: URL) throws -> [(id: Int, name: String, type: String, size: Int)] {
        let output = try TestSupport.runChecked("mkvmerge", ["-J", url.path])
        let json = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any] ?? [:]
        return (json["attachments"] as? [[String: Any]] ?? []).map {
            ($0["id"] as? Int ?? -1, $0["file_name"] as? String ?? "", $0["content_type"] as? String ?? "", $0["size"] as? Int ?? -1)
        }
    }

    /// The bytes of attachment `id` as `mkvextract attachments` writes them.
    static func extractedAttachment(_ url: URL, id: Int, in directory: URL) throws -> Data {
        let out = directory.appendingPathComponent("extracted-\(id).bin")
        defer { try? FileManager.default.removeItem(at: out) }
        try TestSupport.runChecked("mkvextract", [url.path, "attachments", "\(id):\(out.path)"])
        return try Data(contentsOf: out)
    }

    /// ffmpeg's hash of the packets of every track: video (not attached
    /// pictures, which ffmpeg makes streams of cover attachments), audio
    /// and subtitles.
    static func trackHash(_ url: URL) throws -> String {
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", url.path, "-map", "0:V?", "-map", "0:a?", "-map", "0:s?", "-c", "copy", "-f", "streamhash",
                "-",
            ]
        ).text
    }

    /// The checks after a write: mkvinfo reads the whole file without an
    /// error, the packets (``trackHash(_:)``) and the Clusters
    /// (``clusters(_:)``, moved when what was before them grew) are
    /// unchanged, and the size grew by at most `growth`.
    static func checkWrite(_ file: URL, hash: String, cluster: [UInt8], size: Int64, growth: Int64) throws {
        let info = try mkvinfo(file)
        #expect(
            !info.localizedCaseInsensitiveContains("error"),
            "mkvinfo: \(info.split(separator: "\n").filter { $0.lowercased().contains("error") }.prefix(3))")
        #expect(try trackHash(file) == hash)
        #expect(try clusters(file) == cluster)
        let newSize = try FileSource(url: file).size
        #expect(newSize >= size && newSize - size <= growth, "size \(size) → \(newSize)")
    }

    /// Makes one of the interop test files by its name: `ffmpeg.mkv` (video,
    /// CRC-32 elements), `mkvmerge.mka` (tags, nested chapters, a cover),
    /// `nocues.mka`, `live.mka` (a Segment of unknown size, written to a pipe).
    static func make(_ name: String, in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent(name), audio = directory.appendingPathComponent("in.mka")
        switch name {
        case "ffmpeg.mkv": try ffmpegVideo(file)
        case "mkvmerge.mka":
            try ffmpegAudio(audio)
            try mkvmerge(audio, file, in: directory)
        case "nocues.mka":
            try ffmpegAudio(audio)
            try mkvmerge(audio, file, in: directory, options: ["--no-cues"])
        default:
            try ffmpegAudio(audio)
            let output = try TestSupport.runChecked(
                "ffmpeg", ["-nostdin", "-v", "error", "-i", audio.path, "-c", "copy", "-metadata", "artist=Live", "-f", "matroska", "-"])
            try output.standardOutput.write(to: file)
        }
        return file
    }
}
