import Foundation
import Testing

@testable import MetadataKit

enum RawStreamTools {
    static let present = ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen")
}

/// Raw AAC (ADTS), AC-3 and E-AC-3 streams made by ffmpeg: properties agree
/// with ffprobe (packets counted) and mutagen; ID3 tags written by MetadataKit
/// are read by mutagen and ffprobe, tags written by mutagen (ID3v2 and ID3v1)
/// are read by MetadataKit, and the decoded audio (ffmpeg md5) never changes.
@Suite(.enabled(if: RawStreamTools.present, "needs ffmpeg, ffprobe and python3 with mutagen"))
struct RawStreamInteropTests {
    /// Extension, ffmpeg arguments, channels, codec, samples per packet.
    static let kinds: [String: (ext: String, arguments: [String], channels: Int, codec: String, samples: Int)] = [
        "aac-stereo": ("aac", ["-ac", "2", "-c:a", "aac", "-f", "adts"], 2, "AAC LC", 1024),
        "aac-mono-22k": ("aac", ["-ac", "1", "-ar", "22050", "-c:a", "aac", "-f", "adts"], 1, "AAC LC", 1024),
        "ac3-5.1": ("ac3", ["-ac", "6", "-c:a", "ac3"], 6, "AC-3", 1536),
        "ac3-stereo-48k": ("ac3", ["-ac", "2", "-ar", "48000", "-c:a", "ac3", "-b:a", "192k"], 2, "AC-3", 1536),
        "eac3-stereo": ("eac3", ["-ac", "2", "-c:a", "eac3", "-f", "eac3"], 2, "E-AC-3", 1536),
    ]

    static let mutagenReader = """
        import sys, json
        from mutagen.aac import AAC
        from mutagen.ac3 import AC3
        from mutagen.id3 import ID3
        out = {"tags": {}}
        try:
            # mutagen's AC3 reads only files that start with a frame (no ID3 tag in front).
            f = (AAC if sys.argv[1].endswith(".aac") else AC3)(sys.argv[1])
            out.update({"sample_rate": f.info.sample_rate, "channels": f.info.channels, "length": f.info.length})
        except Exception:
            pass
        try:
            tags = ID3(sys.argv[1])
            out["version"] = tags.version[1]
            for frame in tags.values():
                if hasattr(frame, "text"):
                    out["tags"][frame.HashKey] = [str(t) for t in frame.text]
            out["pictures"] = [len(p.data) for p in tags.getall("APIC")]
        except Exception:
            pass
        print(json.dumps(out))
        """

    static let mutagenTagger = """
        import sys
        from mutagen.id3 import ID3, TIT2, TPE1, TXXX
        tags = ID3()
        tags.add(TIT2(encoding=3, text=["Mutagen Tïtle"]))
        tags.add(TPE1(encoding=1, text=["Mutagen Artist"]))
        tags.add(TXXX(encoding=3, desc="MOOD", text=["calm"]))
        tags.save(sys.argv[1], v1=2, v2_version=3)
        """

    static func make(_ kind: String, in directory: URL) throws -> URL {
        let (ext, arguments, _, _, _) = try #require(Self.kinds[kind])
        let url = directory.appendingPathComponent("x.\(ext)")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1.5"] + arguments + [url.path])
        return url
    }

    static func probe(_ url: URL) throws -> (rate: Int, channels: Int, packets: Int, title: String?) {
        let output = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-count_packets", "-show_entries", "stream=sample_rate,channels,nb_read_packets:format_tags=title", "-of",
                "json", url.path,
            ])
        let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let tags = (json["format"] as? [String: Any])?["tags"] as? [String: String]
        return (
            Int(stream["sample_rate"] as? String ?? "") ?? -1, stream["channels"] as? Int ?? -1,
            Int(stream["nb_read_packets"] as? String ?? "") ?? -1, tags?["title"]
        )
    }

    static func md5(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a", "-f", "md5", "-"]).text
    }

    static func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    @Test(arguments: ["aac-stereo", "aac-mono-22k", "ac3-5.1", "ac3-stereo-48k", "eac3-stereo"])
    func readWriteAndReadBackElsewhere(kind: String) async throws {
        let (_, _, channels, codec, samples) = try #require(Self.kinds[kind])
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.make(kind, in: directory)
        let audio = try Self.md5(url)
        let stream = [UInt8](try Data(contentsOf: url))

        // Properties: ffprobe's packet count, mutagen's rate (and channels, but
        // for AC-3 with surround channels: mutagen skips a fixed 2 bits before
        // lfeon, where A/52 §5.4.2.4–5.4.2.6 has 0 to 4).
        var item = try await MediaItem.loaded(url)
        let probe = try Self.probe(url)
        let p = item.properties
        #expect(p.codec == codec && p.channels == channels && p.channels == probe.channels && p.sampleRate == probe.rate)
        #expect(abs((p.duration ?? 0) - Double(probe.packets * samples) / Double(probe.rate)) < 1e-9)
        let info = try Self.mutagen(url)
        #expect(info["sample_rate"] as? Int == p.sampleRate)
        if !kind.hasPrefix("ac3-5") { #expect(info["channels"] as? Int == p.channels) }
        #expect(abs((info["length"] as? Double ?? 0) - (p.duration ?? 0)) < 0.05)

        // Our tag: the full field set.
        item.metadata.title = "Tïtle ✓"
        item.metadata.artist = "Ärtist"
        item.metadata.album = "Album"
        item.metadata.trackNumber = 7
        item.metadata.date = "2020"
        item.metadata.artwork = [Artwork(data: Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 1, count: 400)), mimeType: "image/png")]
        try await item.save(options: SaveOptions(durability: .noSync))
        #expect(try Self.md5(url) == audio)
        let read = try Self.mutagen(url)
        let tags = try #require(read["tags"] as? [String: [String]])
        #expect(tags["TIT2"] == ["Tïtle ✓"] && tags["TPE1"] == ["Ärtist"] && tags["TALB"] == ["Album"] && tags["TRCK"] == ["7"])
        #expect(read["pictures"] as? [Int] == [404])
        #expect(try Self.probe(url).title == "Tïtle ✓")
        let after = try await MediaItem.loaded(url)
        #expect(after.fileType == item.fileType && after.properties == p)

        // Mutagen's tag (ID3v2.3 replacing ours, and ID3v1) read by us; a save keeps them.
        try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path])
        var tagged = try await MediaItem.loaded(url)
        #expect(tagged.metadata.title == "Mutagen Tïtle" && tagged.metadata.artist == "Mutagen Artist")
        #expect(tagged.metadata.items.contains { $0.keySpace == .id3v1 })
        #expect(tagged.properties == p)
        tagged.metadata.album = "Second"
        try await tagged.save(options: SaveOptions(durability: .noSync))
        // ffmpeg's AC-3 demuxer decodes the ID3v1 tag at the end as stream
        // bytes, so the frames are compared byte for byte: between the ID3v2
        // tag and the ID3v1 tag, exactly the stream ffmpeg wrote.
        let written = [UInt8](try Data(contentsOf: url))
        let tagSize = Int(written[6]) << 21 | Int(written[7]) << 14 | Int(written[8]) << 7 | Int(written[9])
        #expect(
            written.starts(with: Array("ID3".utf8)) && Array(written[written.count - 128..<written.count].prefix(3)) == Array("TAG".utf8))
        #expect(Array(written[(10 + tagSize)..<(written.count - 128)]) == stream)
        let again = try Self.mutagen(url)
        let againTags = try #require(again["tags"] as? [String: [String]])
        #expect(again["version"] as? Int == 3 && againTags["TALB"] == ["Second"] && againTags["TXXX:MOOD"] == ["calm"])
    }
}
