import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

private enum FLACOggTools {
    static let present = ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen")
}

/// FLAC, Ogg Vorbis, Ogg Opus, Speex and FLAC-in-Ogg files made by ffmpeg and
/// tagged by mutagen: read back exactly; after a save, mutagen and ffprobe
/// read the new values, the decoded audio is unchanged, ffmpeg decodes
/// without a message and (Ogg) every page has a right CRC and sequence
/// number. Skipped when ffmpeg, ffprobe or mutagen is missing.
@Suite(.enabled(if: FLACOggTools.present, "needs ffmpeg, ffprobe and python3 mutagen"))
struct FLACOggInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// `kind`: flac, vorbis, opus, speex, oggflac.
    func make(_ kind: String) throws -> URL {
        let url = try FLACOggBuilder.ffmpegSine(kind, in: directory, channels: 2)
        try Data(ID3Builder.tinyPNG).write(to: directory.appendingPathComponent("cover.png"))
        return url
    }

    /// Tags the file with mutagen: several values, non-ASCII text, a picture.
    static let tagger = """
        import sys, base64
        import mutagen
        from mutagen.flac import Picture
        f = mutagen.File(sys.argv[1])
        if f.tags is None: f.add_tags()
        f.tags.clear()
        f["TITLE"] = ["Tïtle ✓ 日本"]
        f["ARTIST"] = ["Ärtist One", "Artist Two"]
        f["ALBUM"] = ["Album"]
        f["TRACKNUMBER"] = ["3"]
        f["TRACKTOTAL"] = ["12"]
        f["DATE"] = ["2021-05-01"]
        f["GENRE"] = ["Shoegaze"]
        f["CUSTOM"] = ["keep me"]
        pic = Picture()
        pic.type = 3; pic.mime = "image/png"; pic.desc = "cover ü"; pic.width = 3; pic.height = 2; pic.depth = 24
        pic.data = open(sys.argv[2], "rb").read()
        if hasattr(f, "add_picture"):
            f.add_picture(pic)
        else:
            f["METADATA_BLOCK_PICTURE"] = [base64.b64encode(pic.write()).decode("ascii")]
        f.save()
        """

    /// Prints tags (lowercased keys), pictures and the length as JSON.
    static let reader = """
        import sys, json, base64
        import mutagen
        from mutagen.flac import Picture
        f = mutagen.File(sys.argv[1])
        tags = {}
        for key, value in (f.tags or {}).items() if not isinstance(f.tags, list) else f.tags:
            tags.setdefault(key.lower(), []).extend(value if isinstance(value, list) else [value])
        pics = list(getattr(f, "pictures", []))
        for text in tags.pop("metadata_block_picture", []):
            pics.append(Picture(base64.b64decode(text)))
        out = {"tags": tags, "pictures": [[p.type, p.mime, p.desc, len(p.data)] for p in pics], "length": f.info.length}
        print(json.dumps(out))
        """

    func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    /// The titles ffprobe sees: the audio stream's tags (Ogg) and the format's (FLAC).
    func ffprobeTitles(_ url: URL) throws -> [String] {
        let output = try TestSupport.runChecked(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries",
                "format_tags=title:stream_tags=title", "-of", "default=nw=1:nk=1", url.path,
            ])
        return output.text.split(separator: "\n").map(String.init)
    }

    @Test(arguments: ["flac", "oggflac"])
    func mutagenTagsReadBackAndSavesStayValid(kind: String) async throws {
        let url = try make(kind)
        let cover = directory.appendingPathComponent("cover.png").path
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, cover])
        let md5 = try MediaChecks.decodedMD5(url)
        let lengthBefore = try #require(try mutagen(url)["length"] as? Double)

        // Read exactly what mutagen wrote.
        var item = try await MediaItem.loaded(url)
        let items = item.metadata.items
        func value(_ key: String) -> MetadataValue? { items.first { $0.keySpace == .vorbis && $0.key == key }?.value }
        #expect(value("TITLE") == .string("Tïtle ✓ 日本"))
        #expect(value("ARTIST") == .strings(["Ärtist One", "Artist Two"]))
        #expect(value("CUSTOM") == .string("keep me"))
        #expect(item.metadata.title == "Tïtle ✓ 日本")
        #expect(item.metadata.trackNumber == 3 && item.metadata.trackCount == 12)
        #expect(item.metadata.date == "2021-05-01" && item.metadata.genre?.name == "Shoegaze")
        let picture = try #require(item.metadata.artwork.first)
        #expect(picture.pictureType == .frontCover && picture.mimeType == "image/png" && picture.description == "cover ü")
        #expect(try await picture.data() == Data(ID3Builder.tinyPNG))
        #expect(picture.width == 3 && picture.height == 2)
        let duration = try #require(item.properties.duration)
        #expect(abs(duration - lengthBefore) < 0.001)

        // Small change, then a large one (new pages / rewrite).
        for round in 0..<2 {
            item.metadata.title = round == 0 ? "Néw ✓" : "Néw again"
            item.metadata.album = round == 0 ? "Älbum" : String(repeating: "Long album name ", count: 5000)
            item.metadata.trackCount = 20
            if round == 1 {
                item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .backCover, description: "back"))
            }
            try await item.save()
            let tags = try mutagen(url)
            let text = try #require(tags["tags"] as? [String: [String]])
            #expect(text["title"] == [round == 0 ? "Néw ✓" : "Néw again"])
            #expect(text["artist"] == ["Ärtist One", "Artist Two"])
            #expect(text["tracknumber"] == ["3"] && text["tracktotal"] == ["20"])
            #expect(text["custom"] == ["keep me"])
            #expect(text["album"]?.first?.hasPrefix(round == 0 ? "Älbum" : "Long album") == true)
            let pictures = try #require(tags["pictures"] as? [[Any]])
            #expect(pictures.count == round + 1)
            #expect(pictures.first?[2] as? String == "cover ü")
            let length = try #require(tags["length"] as? Double)
            #expect(abs(length - lengthBefore) < 0.000001)
            #expect(try ffprobeTitles(url).contains(round == 0 ? "Néw ✓" : "Néw again"))
            #expect(try MediaChecks.decodedMD5(url) == md5)
            let errors = try TestSupport.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).standardError
            #expect(errors.isEmpty, "\(errors)")
            if kind != "flac" { #expect(try B.pageProblems(url).isEmpty) }
            item = try await MediaItem.loaded(url)
        }
    }

    @Test(.enabled(if: Capabilities.ffmpegEncodes("libvorbis"), "needs ffmpeg with libvorbis (Homebrew's has none)"))
    func mutagenTagsReadBackAndSavesStayValidInVorbis() async throws {
        try await mutagenTagsReadBackAndSavesStayValid(kind: "vorbis")
    }

    @Test(.enabled(if: Capabilities.ffmpegEncodes("libopus"), "needs ffmpeg with libopus"))
    func mutagenTagsReadBackAndSavesStayValidInOpus() async throws {
        try await mutagenTagsReadBackAndSavesStayValid(kind: "opus")
    }

    @Test(.enabled(if: Capabilities.ffmpegEncodes("libspeex"), "needs ffmpeg with libspeex"))
    func mutagenTagsReadBackAndSavesStayValidInSpeex() async throws {
        try await mutagenTagsReadBackAndSavesStayValid(kind: "speex")
    }

    @Test(
        .enabled(
            if: Capabilities.ffmpegEncodes("libvorbis") && Capabilities.ffmpegEncodes("libopus"),
            "needs ffmpeg with libvorbis and libopus"))
    func propertiesMatchMutagenAndFFprobe() async throws {
        for kind in ["flac", "vorbis", "opus"] {
            let url = try make(kind)
            let item = try await MediaItem.loaded(url)
            let length = try #require(try mutagen(url)["length"] as? Double)
            #expect(abs((item.properties.duration ?? 0) - length) < 0.001, "\(kind)")
            #expect(item.properties.channels == 2)
            let rate = try TestSupport.runChecked(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=sample_rate", "-of",
                    "default=nw=1:nk=1", url.path,
                ]
            ).text
            #expect(Int(rate.trimmingCharacters(in: .whitespacesAndNewlines)) == item.properties.sampleRate, "\(kind)")
            #expect(item.properties.codec == ["flac": "FLAC", "vorbis": "Vorbis", "opus": "Opus"][kind])
        }
    }

    @Test(
        .enabled(
            if: Capabilities.ffmpegEncodes("libtheora") && Capabilities.ffmpegEncodes("libvorbis"),
            "needs ffmpeg with libtheora and libvorbis"))
    func theoraAndVorbisMultiplexedKeepsTheVideoStream() async throws {
        let url = directory.appendingPathComponent("v.ogv")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:v", "libtheora",
                "-c:a", "libvorbis", "-metadata:s:a:0", "title=Audio", "-metadata:s:v:0", "title=Before", url.path,
            ])
        let audio = try MediaChecks.decodedMD5(url)
        let video = try MediaChecks.decodedMD5(url, map: "0:v")
        var item = try await MediaItem.loaded(url)
        // The Theora stream leads the file: its comment is the tags (mutagen.File reads it with OggTheora).
        #expect(item.properties.codec == "Theora")
        #expect(item.metadata.title == "Before")
        #expect(item.metadata.items.first { $0.key == "Vorbis/TITLE" }?.value == .string("Audio"))
        item.metadata.title = "After"
        // Under 64 KiB: ffmpeg's Theora decoder refuses a longer comment packet (16-bit extradata lengths).
        item.metadata.comments = String(repeating: "grow the header pages ", count: 2000)
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try MediaChecks.decodedMD5(url) == audio)
        #expect(try MediaChecks.decodedMD5(url, map: "0:v") == video)
        #expect(try ffprobeTitles(url).contains("Audio"))
        let videoTitles = try TestSupport.runChecked(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_tags=title", "-of", "default=nw=1:nk=1", url.path])
        #expect(videoTitles.text.split(separator: "\n").contains("After"), "\(videoTitles.text)")
        let errors = try TestSupport.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).standardError
        #expect(errors.isEmpty, "\(errors)")
    }
}
