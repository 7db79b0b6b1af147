import Foundation
import Testing

@testable import MetadataKit

private enum APETools {
    static let present =
        ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen") && ToolCheck.has("wavpack")
        && ToolCheck.has("mpcenc")
}

/// WavPack (the `wavpack` tool and ffmpeg), Musepack SV8 (`mpcenc`) and
/// TrueAudio (ffmpeg) files tagged by mutagen, and the hand-built streams:
/// we read what mutagen wrote and the properties it reads; after our save
/// mutagen and ffprobe read the new values, untouched items are unchanged
/// and the decoded audio is the same. Needs ffmpeg, ffprobe, wavpack, mpcenc
/// and python3 mutagen (failing under `CI=true` when one is missing).
@Suite(.enabled(if: APETools.present, "needs ffmpeg, ffprobe, wavpack, mpcenc and python3 mutagen"))
struct APEInteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// `kind`: wavpack, wavpack-hybrid, wavpack-ffmpeg, musepack, tta.
    func make(_ kind: String) throws -> URL {
        let wav = directory.appendingPathComponent("a.wav")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2", wav.path])
        let ext = kind.hasPrefix("wavpack") ? "wv" : kind == "musepack" ? "mpc" : "tta"
        let url = directory.appendingPathComponent("a.\(ext)")
        switch kind {
        case "wavpack": try TestSupport.runChecked("wavpack", ["-q", "-y", wav.path, "-o", url.path])
        case "wavpack-hybrid": try TestSupport.runChecked("wavpack", ["-q", "-y", "-b3", wav.path, "-o", url.path])
        case "wavpack-ffmpeg":
            try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav.path, "-c:a", "wavpack", url.path])
        case "musepack": try TestSupport.runChecked("mpcenc", ["--silent", "--overwrite", wav.path, url.path])
        default:
            try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav.path, "-c:a", "tta", "-f", "tta", url.path])
        }
        return url
    }

    /// Tags with mutagen's APEv2 class (`mutagen.File` gives TrueAudio
    /// files ID3 tags): several values, non-ASCII text, a picture, a
    /// binary item and an external locator.
    static let tagger = """
        import sys
        import mutagen
        from mutagen.apev2 import APEv2, APENoHeaderError, APEValue, BINARY, EXTERNAL
        try: f = APEv2(sys.argv[1])
        except APENoHeaderError: f = APEv2()
        f["Title"] = "Tïtle ✓ 日本"
        f["Artist"] = ["Ärtist One", "Artist Two"]
        f["Album"] = "Album"
        f["Track"] = "3/12"
        f["Year"] = "2021"
        f["Genre"] = "Shoegaze"
        f["Custom"] = "keep me"
        f["Cover Art (Front)"] = APEValue(b"cover.png\\0" + open(sys.argv[2], "rb").read(), BINARY)
        f["Blob"] = APEValue(b"\\x00\\x01\\xff", BINARY)
        f["Link"] = APEValue("http://example.com/ü", EXTERNAL)
        f.save(sys.argv[1])
        """

    /// Prints the tags (lowercased keys: kind and values; binary: size and
    /// the text before the first zero) and the stream info as JSON.
    static let reader = """
        import sys, json
        import mutagen
        from mutagen.apev2 import APEv2, APENoHeaderError
        f = mutagen.File(sys.argv[1])
        try: ape = APEv2(sys.argv[1])
        except APENoHeaderError: ape = {}
        tags = {}
        for key, value in ape.items():
            kind = type(value).__name__
            if kind == "APEBinaryValue":
                tags[key.lower()] = [kind, len(value.value), value.value.split(b"\\0", 1)[0].decode("utf-8", "replace")]
            elif kind == "APETextValue":
                tags[key.lower()] = [kind] + list(value)
            else:
                tags[key.lower()] = [kind, str(value)]
        info = f.info
        print(json.dumps({"type": type(f).__name__, "tags": tags, "length": info.length, "rate": info.sample_rate,
            "channels": getattr(info, "channels", None), "bits": getattr(info, "bits_per_sample", None)}))
        """

    func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    func tags(_ url: URL) throws -> [String: [Any]] {
        try #require(try mutagen(url)["tags"] as? [String: [Any]])
    }

    /// Our properties agree with mutagen's.
    func expectSameProperties(_ item: MediaItem, _ info: [String: Any], _ what: String) throws {
        let length = try #require(info["length"] as? Double)
        #expect(abs((item.properties.duration ?? -1) - length) < 0.001, "\(what): \(item.properties.duration ?? -1) vs \(length)")
        #expect(item.properties.sampleRate == info["rate"] as? Int, "\(what)")
        if let channels = info["channels"] as? Int { #expect(item.properties.channels == channels, "\(what)") }
        if let bits = info["bits"] as? Int, bits > 0 { #expect(item.properties.bitsPerSample == bits, "\(what)") }
    }

    @Test(arguments: ["wavpack", "wavpack-hybrid", "wavpack-ffmpeg", "musepack", "tta"])
    func mutagenTagsReadBackAndSavesKeepTheAudio(kind: String) async throws {
        let url = try make(kind)
        let cover = directory.appendingPathComponent("cover.png")
        try Data(ID3Builder.tinyPNG).write(to: cover)
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, cover.path])
        let md5 = try MediaChecks.decodedMD5(url)

        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
        try expectSameProperties(item, try mutagen(url), kind)
        #expect(item.properties.bitrate ?? 0 > 0)
        func raw(_ key: String) -> MetadataItem? { item.metadata.items.first { $0.keySpace == .ape && $0.key == key } }
        #expect(raw("TITLE")?.value == .string("Tïtle ✓ 日本"))
        #expect(raw("ARTIST")?.value == .strings(["Ärtist One", "Artist Two"]))
        #expect(raw("BLOB")?.value == .data(Data([0, 1, 255])))
        #expect(raw("LINK")?.dataType == .apeLocator && raw("LINK")?.value == .string("http://example.com/ü"))
        #expect(item.metadata.trackNumber == 3 && item.metadata.trackCount == 12 && item.metadata.date == "2021")
        let picture = try #require(item.metadata.artwork.first)
        #expect(picture.description == "cover.png")
        #expect(try await picture.data() == Data(ID3Builder.tinyPNG))

        item.metadata.title = "Néw tïtle ✓"
        item.metadata.album = String(repeating: "Älbum ", count: 300)
        item.metadata.comments = "Cömment"
        item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .backCover, description: "back.png"))
        try await item.save()

        let after = try tags(url)
        #expect(after["title"]?.last as? String == "Néw tïtle ✓")
        #expect(after["album"]?.last as? String == String(repeating: "Älbum ", count: 300))
        // TrueAudio: a new field goes to ID3v2 (what TagLib and mutagen read there).
        #expect(after["comment"]?.last as? String == (kind == "tta" ? nil : "Cömment"))
        if kind == "tta" { #expect(try id3Frames(url)["COMM"] == ["Cömment"]) }
        #expect(after["artist"]?.dropFirst().compactMap { $0 as? String } == ["Ärtist One", "Artist Two"])
        #expect(after["custom"]?.last as? String == "keep me")
        #expect(after["track"]?.last as? String == "3/12")
        #expect(after["link"]?.first as? String == "APEExtValue")
        #expect(after["blob"]?.first as? String == "APEBinaryValue" && after["blob"]?[1] as? Int == 3)
        #expect(after["cover art (front)"]?.last as? String == "cover.png")
        #expect(after["cover art (back)"]?.last as? String == "back.png")
        #expect(try MediaChecks.decodedMD5(url) == md5, "the decoded audio changed")
        let probed = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "default=nw=1:nk=1", url.path])
        #expect(probed.text.trimmingCharacters(in: .whitespacesAndNewlines) == "Néw tïtle ✓")
        try expectSameProperties(try await MediaItem.loaded(url), try mutagen(url), kind)
    }

    /// Files with no tag get one that mutagen reads: APEv2, and in
    /// TrueAudio ID3v2 (mutagen's and TagLib's `TrueAudio` read no APE tag).
    @Test(arguments: ["wavpack", "musepack", "tta"])
    func newTagsAreReadByMutagen(kind: String) async throws {
        let url = try make(kind)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == nil) // ffmpeg's TTA muxer writes an APE tag with ENCODER
        item.metadata.title = "Fïrst"
        item.metadata.trackNumber = 2
        item.metadata.trackCount = 5
        try await item.save()
        if kind == "tta" {
            let frames = try id3Frames(url)
            #expect(frames["TIT2"] == ["Fïrst"] && frames["TRCK"] == ["2/5"], "\(frames)")
            #expect(try tags(url)["title"] == nil)
        } else {
            let after = try tags(url)
            #expect(after["title"]?.last as? String == "Fïrst" && after["track"]?.last as? String == "2/5")
        }
    }

    /// A Musepack file (mpcenc) given a leading ID3v2 tag by mutagen's `ID3`
    /// beside its APE tag, as some taggers do: the ID3v2 title is read, a
    /// new title reaches both tags (exiftool shows no stale one), and
    /// removing every tag removes the ID3v2 tag too; the audio is kept.
    @Test func aMusepackFilesLeadingID3v2TagIsReadUpdatedAndRemoved() async throws {
        #expect(TestSupport.hasTool("exiftool"))
        let url = try make("musepack")
        let script = """
            import sys
            from mutagen.apev2 import APEv2
            from mutagen.id3 import ID3, TIT2, TPE1
            ape = APEv2(); ape["Title"] = "Old title"; ape.save(sys.argv[1])
            tags = ID3(); tags.add(TIT2(encoding=3, text="Old title")); tags.add(TPE1(encoding=3, text="ID3 artist"))
            tags.save(sys.argv[1])
            """
        try TestSupport.runChecked("python3", ["-c", script, url.path])
        let md5 = try MediaChecks.decodedMD5(url)
        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
        #expect(item.metadata.title == "Old title" && item.metadata.artist == "ID3 artist")
        item.metadata.title = "Néw title"
        try await item.save()
        // exiftool reads the ID3v2 tag of such a file (and not its APE tag).
        let exif = try TestSupport.runChecked("exiftool", ["-G1", "-s", "-Title", url.path]).text
        #expect(exif.contains("ID3v2") && exif.contains("Néw title") && !exif.contains("Old title"), "\(exif)")
        #expect(try id3Frames(url)["TIT2"] == ["Néw title"])
        let ape = try TestSupport.runChecked(
            "python3", ["-c", "import sys\nfrom mutagen.apev2 import APEv2\nprint(APEv2(sys.argv[1])['Title'])", url.path])
        #expect(ape.text.trimmingCharacters(in: .whitespacesAndNewlines) == "Néw title")
        #expect(try MediaChecks.decodedMD5(url) == md5, "the decoded audio changed")

        var cleared = try await MediaItem.loaded(url)
        try await cleared.save(options: SaveOptions(removesAllTags: true))
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.prefix(3)) != Array("ID3".utf8), "the ID3v2 tag is gone")
        #expect(try await MediaItem.loaded(url).metadata.items.isEmpty)
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }

    /// The APEv2 items mutagen reads, by their key as stored.
    func apeItems(_ url: URL) throws -> [String: String] {
        let script = """
            import sys, json
            from mutagen.apev2 import APEv2
            print(json.dumps({k: str(v) for k, v in APEv2(sys.argv[1]).items()}))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: String])
    }

    /// A WavPack file whose year mutagen stored as `DATE` (as foobar2000
    /// writes it): read as the year, changed there (no `YEAR` beside it);
    /// new fields take the names TagLib and Picard use.
    @Test func anAPEDateIsTheYearAndNewFieldsTakePicardsNames() async throws {
        let url = try make("wavpack")
        try TestSupport.runChecked(
            "python3",
            [
                "-c", "import sys\nfrom mutagen.apev2 import APEv2\na = APEv2()\na['Date'] = '2009'\na['Title'] = 'T'\na.save(sys.argv[1])",
                url.path,
            ])
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.date == "2009")
        item.metadata.date = "2010"
        item.metadata.remixer = "Mix Person"
        item.metadata.website = "https://example.com/"
        item.metadata.releaseType = "album"
        item.metadata.releaseStatus = "official"
        item.metadata.originalArtist = "First Singer"
        item.metadata.albumArtist = "Band"
        try await item.save()
        let items = try apeItems(url)
        #expect(items["Date"] == "2010" && items["YEAR"] == nil && items["Year"] == nil, "\(items)")
        #expect(items["MIXARTIST"] == "Mix Person" && items["WEBLINK"] == "https://example.com/", "\(items)")
        #expect(items["MUSICBRAINZ_ALBUMTYPE"] == "album" && items["MUSICBRAINZ_ALBUMSTATUS"] == "official", "\(items)")
        #expect(items["ORIGINAL ARTIST"] == "First Singer" && items["ALBUM ARTIST"] == "Band", "\(items)")
        let reread = try await MediaItem.loaded(url)
        #expect(
            reread.metadata.date == "2010" && reread.metadata.remixer == "Mix Person" && reread.metadata.website == "https://example.com/")
    }

    /// The text of each ID3v2 frame mutagen reads at the start of the file
    /// (comments by their frame ID alone).
    func id3Frames(_ url: URL) throws -> [String: [String]] {
        let script = """
            import sys, json
            from mutagen.id3 import ID3
            tags = ID3(sys.argv[1])
            print(json.dumps({f.FrameID: [str(t) for t in f.text] for f in tags.values() if hasattr(f, "text")}))
            """
        let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: [String]])
    }

    /// The hand-built streams: mutagen reads the same properties, and the
    /// tags we write.
    @Test(arguments: APEBuilder.streams.filter { $0.name != "musepack-sv5" })
    func handBuiltStreamsAgreeWithMutagen(stream: APEBuilder.Stream) async throws {
        let url = directory.appendingPathComponent("a.\(stream.pathExtension)")
        try Data(stream.bytes + APEBuilder.richTag(picture: ID3Builder.tinyPNG)).write(to: url)
        var item = try await MediaItem.loaded(url)
        let info = try mutagen(url)
        try expectSameProperties(item, info, stream.name)
        item.metadata.title = "Händ ✓"
        try await item.save()
        let after = try tags(url)
        #expect(after["title"]?.last as? String == "Händ ✓")
        #expect(after["custom thing"]?.last as? String == "keep me")
        #expect(after["artist"]?.dropFirst().compactMap { $0 as? String } == ["Ärtist One", "Artist Two"])
    }
}
