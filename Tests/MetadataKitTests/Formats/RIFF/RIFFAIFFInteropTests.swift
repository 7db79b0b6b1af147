import Foundation
import Testing

@testable import MetadataKit

enum RIFFAIFFTools {
    static let present =
        ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("exiftool")
        && ToolCheck.has("python3:mutagen")
}

/// WAV, AIFF and AIFF-C files made by ffmpeg (with its LIST/INFO or AIFF
/// text chunks) and tagged by mutagen (ID3 chunks), read by MetadataKit,
/// saved, and read back by mutagen, ffprobe and exiftool; the decoded audio
/// must not change. Skipped when a tool is missing.
@Suite(.enabled(if: RIFFAIFFTools.present, "needs ffmpeg, ffprobe, exiftool and python3 with mutagen"))
struct RIFFAIFFInteropTests {

    /// Container and ffmpeg codec of each kind of file.
    static let kinds: [String: (ext: String, arguments: [String], codec: String)] = [
        "wav-s16": ("wav", ["-c:a", "pcm_s16le"], "PCM"),
        "wav-f32": ("wav", ["-c:a", "pcm_f32le"], "PCM float"),
        "aiff-s16": ("aiff", ["-c:a", "pcm_s16be"], "PCM"),
        "aifc-sowt": ("aifc", ["-f", "aiff", "-c:a", "pcm_s16le"], "PCM"),
        "aifc-f32": ("aifc", ["-f", "aiff", "-c:a", "pcm_f32be"], "PCM float"),
    ]

    static let mutagenTagger = """
        import sys
        from mutagen.wave import WAVE
        from mutagen.aiff import AIFF
        from mutagen.id3 import TIT2, TPE1, TCON, TXXX
        path, container = sys.argv[1], sys.argv[2]
        f = (WAVE if container == "wav" else AIFF)(path)
        f.add_tags()
        f.tags.add(TIT2(encoding=3, text=["Mutagen Tïtle"]))
        f.tags.add(TPE1(encoding=1, text=["Mutagen Artist"]))
        f.tags.add(TCON(encoding=3, text=["Rock"]))
        f.tags.add(TXXX(encoding=3, desc="MOOD", text=["calm"]))
        f.save(v2_version=4 if container == "wav" else 3)
        """

    static let mutagenReader = """
        import sys, json
        from mutagen.wave import WAVE
        from mutagen.aiff import AIFF
        f = (WAVE if sys.argv[2] == "wav" else AIFF)(sys.argv[1])
        out = {}
        if f.tags is not None:
            out["version"] = f.tags.version[1]
            for frame in f.tags.values():
                if hasattr(frame, "text"):
                    out[frame.HashKey] = [str(t) for t in frame.text]
        print(json.dumps(out))
        """

    static func json(_ data: Data) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: data)
        if let array = object as? [[String: Any]], let first = array.first { return first }
        return try #require(object as? [String: Any])
    }

    static func ffprobe(_ url: URL) throws -> (tags: [String: String], duration: Double) {
        let output = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration:format_tags", "-of", "json", url.path])
        let format = try #require(try json(output.standardOutput)["format"] as? [String: Any])
        var tags: [String: String] = [:]
        for (key, value) in format["tags"] as? [String: String] ?? [:] { tags[key.lowercased()] = value }
        return (tags, Double(format["duration"] as? String ?? "") ?? -1)
    }

    static func exiftoolValues(_ url: URL) throws -> [String: String] {
        let output = try TestSupport.runChecked("exiftool", ["-j", "-G1", "-charset", "UTF8", url.path])
        return try json(output.standardOutput).compactMapValues { $0 as? String }
    }

    @Test(arguments: [
        ("wav-s16", true, false), ("wav-s16", true, true), ("wav-f32", false, true), ("wav-f32", false, false),
        ("aiff-s16", true, false), ("aiff-s16", true, true), ("aiff-s16", false, false),
        ("aifc-sowt", true, false), ("aifc-f32", false, true),
    ])
    func readSaveAndReadBackElsewhere(kind: String, ffmpegTags: Bool, mutagenTags: Bool) async throws {
        let (ext, codecArguments, codec) = try #require(Self.kinds[kind])
        let isWAV = ext == "wav"
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("x.\(ext)")
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5"] + codecArguments
        if ffmpegTags {
            let tags =
                isWAV
                ? [
                    "title=Ffmpeg Tïtle", "artist=Ffmpeg Artist", "album=Ffmpeg Album", "comment=Ffmpeg comment",
                    "genre=Jazz", "date=2019", "track=4",
                ]
                : ["title=Ffmpeg Tïtle", "author=Ffmpeg Author", "comment=Ffmpeg comment", "copyright=2019 Me"]
            arguments += tags.flatMap { ["-metadata", $0] }
        }
        try TestSupport.runChecked("ffmpeg", arguments + [url.path])
        if mutagenTags {
            try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path, isWAV ? "wav" : "aiff"])
        }

        // Read exactly what the tools wrote.
        var item = MediaItem(url: url)
        try await item.load()
        let probe = try Self.ffprobe(url)
        #expect(abs((item.properties.duration ?? 0) - probe.duration) < 0.001)
        #expect(item.properties.codec == codec && item.properties.sampleRate == 44_100 && item.properties.channels == 1)
        let m = item.metadata
        if mutagenTags {
            #expect(m.title == "Mutagen Tïtle" && m.artist == "Mutagen Artist" && m.genre?.name == "Rock")
            #expect(m.items.contains { $0.keySpace == .id3 && $0.key == "TXXX:MOOD" && $0.value == .string("calm") })
        } else if ffmpegTags {
            #expect(m.title == "Ffmpeg Tïtle" && m.comments == "Ffmpeg comment")
        }
        if ffmpegTags && isWAV {
            #expect(m.album == "Ffmpeg Album" && m.date == "2019" && m.trackNumber == 4)
            #expect(m.artist == (mutagenTags ? "Mutagen Artist" : "Ffmpeg Artist"))
        }
        if ffmpegTags && !isWAV {
            #expect(m.items.contains(MetadataItem(keySpace: .aiff, key: "AUTH", value: .string("Ffmpeg Author"), dataType: .utf8)))
            #expect(m.items.contains(MetadataItem(keySpace: .aiff, key: "(c) ", value: .string("2019 Me"), dataType: .utf8)))
        }
        let md5 = try MediaChecks.decodedMD5(url)

        // Save new values.
        let title = "Nüew Tïtle ✓"
        item.metadata.title = title
        item.metadata.artist = "New Artist"
        item.metadata.album = "Plain Album"
        item.metadata.comments = "New comment"
        item.metadata.genre = Genre(name: "Blues")
        item.metadata.date = "2024"
        item.metadata.trackNumber = 5
        item.metadata.trackCount = 12
        try await item.save(options: SaveOptions(durability: .noSync))
        let saved = item.metadata
        #expect(saved.title == title && saved.artist == "New Artist" && saved.album == "Plain Album")
        #expect(saved.comments == "New comment" && saved.genre?.name == "Blues" && saved.date == "2024")
        #expect(saved.trackNumber == 5 && saved.trackCount == 12)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        if ffmpegTags && !isWAV {
            #expect(saved.items.contains { $0.key == "(c) " && $0.value == .string("2019 Me") })
        }

        // mutagen: the ID3 chunk parses and holds what we read from it.
        let mutagen = try Self.json(
            TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path, isWAV ? "wav" : "aiff"]).standardOutput)
        let id3Items = saved.items.filter { $0.keySpace == .id3 }
        #expect(mutagen.isEmpty == id3Items.isEmpty)
        for item in id3Items where ["TIT2", "TPE1", "TALB", "TCON", "TRCK", "TXXX:MOOD"].contains(item.key) {
            #expect(mutagen[item.key] as? [String] == item.value.stringValues, "\(item.key)")
        }
        if mutagenTags {
            #expect(mutagen["TXXX:MOOD"] as? [String] == ["calm"])
            #expect(mutagen["version"] as? Int == (isWAV ? 4 : 3))
        }

        // ffprobe: ffmpeg 5 reads LIST/INFO (not an ID3 chunk after data) in WAV; text chunks and ID3 in AIFF.
        let after = try Self.ffprobe(url)
        #expect(abs(after.duration - probe.duration) < 0.000_001)
        if !isWAV || saved.items.contains(where: { $0.key == "INAM" }) {
            #expect(after.tags["title"] == title)
        }
        if !isWAV || saved.items.contains(where: { $0.key == "IPRD" }) {
            #expect(after.tags["album"] == "Plain Album")
        }

        // exiftool reads every tag; it decodes INFO/AIFF text as Latin-1/Mac Roman, so only ASCII is compared there.
        let exif = try Self.exiftoolValues(url)
        #expect(exif.values.contains("Plain Album"), "\(exif)")
        #expect(exif.values.contains("New comment"), "\(exif)")
        if saved.items.contains(where: { $0.key == "TIT2" }) {
            #expect(exif.contains { $0.key.hasPrefix("ID3") && $0.key.hasSuffix(":Title") && $0.value == title }, "\(exif)")
        }
    }

    /// A save that only changes a same-length value in ffmpeg's INFO list is
    /// a patch of those bytes: everything else in the file is unchanged.
    @Test func sameLengthInfoEditPatchesOnlyThoseBytes() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("x.wav")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le",
                "-metadata", "title=Title One", url.path,
            ])
        let before = [UInt8](try Data(contentsOf: url))
        var item = MediaItem(url: url)
        try await item.load()
        item.metadata.title = "Title Two"
        try await item.save(options: SaveOptions(durability: .noSync))
        let after = [UInt8](try Data(contentsOf: url))
        #expect(after.count == before.count)
        #expect(zip(before, after).filter { $0 != $1 }.count == 3) // "One" → "Two"
        #expect(try Self.ffprobe(url).tags["title"] == "Title Two")
    }
}
