import Foundation
import Testing

@testable import MetadataKit

private enum ASFTools {
    static let present =
        ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen") && ToolCheck.has("exiftool")
        && ToolCheck.has("mediainfo")
}

/// WMA and WMV files made by ffmpeg (`wmav2`, `wmv2`), tagged by mutagen:
/// read as mutagen reads them; after a save, mutagen, ffprobe, exiftool
/// and mediainfo read the new values, the decoded audio and video are
/// unchanged, and every attribute nobody changed is as it was.
@Suite(.enabled(if: ASFTools.present, "needs ffmpeg, ffprobe, exiftool, mediainfo and python3 mutagen"))
struct ASFInteropTests {
    static let fast = SaveOptions(durability: .noSync)
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A one-second file made by ffmpeg with a few `-metadata` tags.
    func make(video: Bool = false) throws -> URL {
        let url = directory.appendingPathComponent(video ? "v.wmv" : "a.wma")
        var arguments = ["-nostdin", "-v", "error", "-y"]
        if video { arguments += ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1"] }
        arguments += ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2"]
        if video { arguments += ["-c:v", "wmv2"] }
        arguments += ["-c:a", "wmav2", "-metadata", "title=Fïrst", "-metadata", "artist=Ärtist", "-metadata", "album=Älbum"]
        arguments += ["-metadata", "track=3", "-metadata", "genre=Shoegaze", url.path]
        try TestSupport.runChecked("ffmpeg", arguments)
        try Data(ID3Builder.tinyPNG).write(to: directory.appendingPathComponent("cover.png"))
        return url
    }

    /// Prints every attribute as [name, type, value, language, stream] and the stream info, as JSON.
    static let reader = """
        import sys, json
        from mutagen.asf import ASF
        f = ASF(sys.argv[1])
        out = []
        for name, v in f.tags:
            t = type(v).__name__.replace("ASF", "").replace("Attribute", "")
            if t in ("ByteArray", "GUID"):
                val = v.value.hex()
            elif t == "Bool":
                val = int(bool(v.value))
            else:
                val = v.value
            out.append([name, t, val, v.language, v.stream])
        info = f.info
        print(json.dumps({"tags": out, "length": info.length, "rate": info.sample_rate, "channels": info.channels,
                          "bitrate": info.bitrate}))
        """

    /// Tags with every type in every object, as mutagen places them.
    static let tagger = """
        import sys
        from mutagen.asf import ASF, ASFUnicodeAttribute, ASFByteArrayAttribute, ASFBoolAttribute, ASFDWordAttribute
        from mutagen.asf import ASFQWordAttribute, ASFWordAttribute, ASFGUIDAttribute
        import struct
        f = ASF(sys.argv[1])
        f["Description"] = [ASFUnicodeAttribute("Cömment")]
        f["WM/Composer"] = [ASFUnicodeAttribute("Cömposer 日本")]
        f["WM/Bool"] = [ASFBoolAttribute(True)]
        f["WM/DWord"] = [ASFDWordAttribute(4000000000)]
        f["WM/QWord"] = [ASFQWordAttribute(2**40 + 5)]
        f["WM/Word"] = [ASFWordAttribute(65535)]
        f["WM/Bytes"] = [ASFByteArrayAttribute(b"\\x00\\x01\\xff")]
        f["WM/GUID"] = [ASFGUIDAttribute(b"0123456789abcdef")]
        f["WM/PerStream"] = [ASFUnicodeAttribute("stream one", stream=1)]
        f["WM/Lang"] = [ASFUnicodeAttribute("language", language=0)]
        f["WM/Large"] = [ASFByteArrayAttribute(b"x" * 70000)]
        image = open(sys.argv[2], "rb").read()
        mime = "image/png".encode("utf-16-le") + b"\\x00\\x00"
        desc = "cover ü".encode("utf-16-le") + b"\\x00\\x00"
        f["WM/Picture"] = [ASFByteArrayAttribute(struct.pack("<bi", 3, len(image)) + mime + desc + image)]
        f.save()
        """

    func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    /// mutagen's attributes as "name=type:value".
    func mutagenTags(_ url: URL) throws -> [String] {
        let tags = try #require(try mutagen(url)["tags"] as? [[Any]])
        return tags.map { "\($0[0])=\($0[1]):\($0[2])" }
    }

    /// Our items in mutagen's terms ("name=type:value").
    static func asMutagen(_ items: [MetadataItem]) throws -> [String] {
        try items.map { item in
            let type: String
            switch item.dataType {
            case .utf16, .utf8: type = "Unicode"
            case .asfBool: type = "Bool"
            case .asfDWORD: type = "DWord"
            case .asfQWORD: type = "QWord"
            case .asfWORD: type = "Word"
            case .asfGUID: type = "GUID"
            default: type = "ByteArray"
            }
            let value: String
            switch item.value {
            case .data(let data): value = data.map { String(format: "%02x", $0) }.joined()
            case .picture: value = try ASFAttribute.encoded(item).data.map { String(format: "%02x", $0) }.joined()
            default: value = item.value.stringValue ?? ""
            }
            return "\(item.key)=\(type):\(value)"
        }
    }

    @Test(arguments: [false, true])
    func ffmpegFilesReadAsMutagenReadsThem(video: Bool) async throws {
        let url = try make(video: video)
        let item = try await MediaItem.loaded(url)
        #expect(try Self.asMutagen(item.metadata.items) == mutagenTags(url))
        #expect(item.metadata.title == "Fïrst" && item.metadata.artist == "Ärtist" && item.metadata.album == "Älbum")
        #expect(item.metadata.trackNumber == 3 && item.metadata.genre?.name == "Shoegaze")
        let info = try mutagen(url)
        #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 1e-6)
        #expect(item.properties.sampleRate == info["rate"] as? Int && item.properties.channels == info["channels"] as? Int)
        #expect(item.properties.codec == "WMA v2")
        if video {
            #expect(item.properties.width == 64 && item.properties.height == 48)
            #expect(item.properties.streams.map(\.mediaType) == [.video, .audio])
            #expect(item.fileType == .wmv)
        } else {
            #expect(item.properties.bitrate == info["bitrate"] as? Int)
            #expect(item.fileType == .wma)
        }
    }

    @Test func mutagensEveryTypeReadsBackAndSurvivesASave() async throws {
        let url = try make()
        let cover = directory.appendingPathComponent("cover.png").path
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, cover])
        let before = try mutagenTags(url)
        var item = try await MediaItem.loaded(url)
        #expect(try Self.asMutagen(item.metadata.items) == before)
        #expect(item.metadata.comments == "Cömment" && item.metadata.composer == "Cömposer 日本")
        let picture = try #require(item.metadata.artwork.first)
        #expect(picture.description == "cover ü" && picture.mimeType == "image/png")
        #expect(try await picture.data() == Data(ID3Builder.tinyPNG))

        let audio = try MediaChecks.decodedMD5(url)
        item.metadata.title = "Sëcond"
        try await item.save(options: Self.fast)
        let after = try mutagenTags(url)
        // ffmpeg's second title (`title`, which ffprobe shows) goes with the change.
        #expect(after == before.filter { !$0.hasPrefix("title=") }.map { $0.hasPrefix("Title=") ? "Title=Unicode:Sëcond" : $0 })
        // Stream numbers and languages as they were.
        let raw = try #require(try mutagen(url)["tags"] as? [[Any]])
        #expect(raw.first { $0[0] as? String == "WM/PerStream" }?[4] as? Int == 1)
        #expect(raw.first { $0[0] as? String == "WM/Lang" }?[3] as? Int == 0)
        #expect(try MediaChecks.decodedMD5(url) == audio)
    }

    @Test(arguments: [false, true])
    func everyFieldRoundTripsThroughTheOtherTools(video: Bool) async throws {
        let url = try make(video: video)
        let audio = try MediaChecks.decodedMD5(url)
        let picture = video ? try MediaChecks.decodedMD5(url, map: "0:V") : ""
        var item = try await MediaItem.loaded(url)
        let untouched = item.metadata.items.filter { $0.key == "WM/EncodingSettings" }
        item.metadata.title = "Tïtle ✓ 日本"
        item.metadata.artist = "Ärtist Ω"
        item.metadata.albumArtist = "Älbum Ärtist"
        item.metadata.album = "Älbum ✓"
        item.metadata.grouping = "Gröup"
        item.metadata.composer = "Cömposer"
        item.metadata.comments = "Cömment"
        item.metadata.genre = Genre(name: "Trïp-Hop")
        item.metadata.date = "2024"
        item.metadata.bpm = 128
        item.metadata.trackNumber = 4
        item.metadata.trackCount = 12
        item.metadata.discNumber = 1
        item.metadata.discCount = 2
        item.metadata.artwork = [Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .backCover, description: "bäck")]
        item.metadata.items += [
            MetadataItem(keySpace: .asf, key: "WM/Mood", value: .string("Fröhlich"), dataType: .utf16),
            MetadataItem(keySpace: .asf, key: "WM/IsCompilation", value: .integer(1), dataType: .asfBool),
            MetadataItem(keySpace: .asf, key: "WM/SharedUserRating", value: .integer(99), dataType: .asfDWORD),
            MetadataItem(keySpace: .asf, key: "WM/Q", value: .integer(1 << 40), dataType: .asfQWORD),
            MetadataItem(keySpace: .asf, key: "WM/W", value: .integer(7), dataType: .asfWORD),
            MetadataItem(keySpace: .asf, key: "WM/B", value: .data(Data([0, 1, 2])), dataType: .binary),
            MetadataItem(keySpace: .asf, key: "WM/G", value: .data(Data(repeating: 0xAA, count: 16)), dataType: .asfGUID),
        ]
        try await item.save(options: Self.fast)

        let tags = try mutagenTags(url)
        for expected in [
            "Title=Unicode:Tïtle ✓ 日本", "Author=Unicode:Ärtist Ω", "WM/AlbumArtist=Unicode:Älbum Ärtist", "WM/AlbumTitle=Unicode:Älbum ✓",
            "WM/ContentGroupDescription=Unicode:Gröup", "WM/Composer=Unicode:Cömposer", "Description=Unicode:Cömment",
            "WM/Genre=Unicode:Trïp-Hop", "WM/Year=Unicode:2024", "WM/BeatsPerMinute=Unicode:128", "WM/TrackNumber=Unicode:4/12",
            "WM/PartOfSet=Unicode:1/2", "WM/Mood=Unicode:Fröhlich", "WM/IsCompilation=Bool:1", "WM/SharedUserRating=DWord:99",
            "WM/Q=QWord:1099511627776", "WM/W=Word:7", "WM/B=ByteArray:000102", "WM/G=GUID:" + String(repeating: "aa", count: 16),
        ] {
            #expect(tags.contains(expected), "\(expected) in \(tags)")
        }
        let pictures = tags.filter { $0.hasPrefix("WM/Picture=") }
        #expect(pictures.count == 1 && pictures[0].hasPrefix("WM/Picture=ByteArray:04"))
        #expect(try Self.asMutagen(untouched).allSatisfy(tags.contains))

        let probe = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags=title,artist,album", "-of", "default=nw=1", url.path]
        ).text
        #expect(probe.contains("TAG:title=Tïtle ✓ 日本") && probe.contains("TAG:artist=Ärtist Ω") && probe.contains("TAG:album=Älbum ✓"))
        let exif = try TestSupport.runChecked("exiftool", ["-s", "-Title", "-Author", "-AlbumTitle", "-Mood", url.path]).text
        #expect(exif.contains("Tïtle ✓ 日本") && exif.contains("Ärtist Ω") && exif.contains("Älbum ✓") && exif.contains("Fröhlich"))
        let info = try TestSupport.runChecked("mediainfo", ["--Inform=General;%Title%|%Album%|%Performer%", url.path]).text
        #expect(info.contains("Tïtle ✓ 日本|Älbum ✓"), "\(info)")
        #expect(try MediaChecks.decodedMD5(url) == audio)
        if video { #expect(try MediaChecks.decodedMD5(url, map: "0:V") == picture) }
        let errors = try TestSupport.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).standardError
        #expect(errors.isEmpty, "\(errors)")

        // Read back by us: the same fields; a second small change is made in place.
        var reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Tïtle ✓ 日本" && reread.metadata.trackCount == 12 && reread.metadata.bpm == 128)
        #expect(reread.metadata.artwork.first?.pictureType == .backCover && reread.metadata.artwork.first?.description == "bäck")
        reread.metadata.album = "Short"
        try await reread.save(options: Self.fast)
        #expect(reread.lastSavePath == .inPlace)
        #expect(try mutagenTags(url).contains("WM/AlbumTitle=Unicode:Short"))
        #expect(try MediaChecks.decodedMD5(url) == audio)
    }

    @Test func mdkitSetsRawASFKeys() async throws {
        let url = try make()
        try #require(Capabilities.mdkit)
        let mdkit = try #require(TestSupport.mdkitExecutable)
        try TestSupport.runChecked(mdkit.path, ["write", url.path, "--set", "asf:WM/Mood=Rühig", "--set", "title=CLI ✓"])
        let tags = try mutagenTags(url)
        #expect(tags.contains("WM/Mood=Unicode:Rühig") && tags.contains("Title=Unicode:CLI ✓"))
        let read = try TestSupport.runChecked(mdkit.path, ["read", "--json", url.path]).text
        #expect(read.contains("\"asf\"") && read.contains("audio/x-ms-wma"))
    }
}
