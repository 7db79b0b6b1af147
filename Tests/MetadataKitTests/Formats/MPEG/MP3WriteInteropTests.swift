import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Files made by ffmpeg, tagged by mutagen or eyeD3, saved by MetadataKit and
/// read back by mutagen, ffprobe and exiftool. Skipped when a tool is missing.
@Suite struct MP3WriteInteropTests {
    static let toolsPresent =
        ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("exiftool")
        && ToolCheck.has("python3:mutagen")

    /// A 1 s, 440 Hz, 64 kbit/s MP3 made by ffmpeg/LAME, in a new folder.
    static func makeMP3() throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.mp3")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                "-c:a", "libmp3lame", "-b:a", "64k", url.path,
            ])
        try Data(B.tinyPNG).write(to: url.deletingLastPathComponent().appendingPathComponent("cover.png"))
        return url
    }

    /// Tags with mutagen: a few fields, an iTunNORM comment, a TXXX, a POPM and a picture.
    static let mutagenTagger = """
        import sys
        from mutagen.id3 import ID3, TIT2, TPE1, TCON, COMM, TXXX, POPM, APIC, USLT
        path, version = sys.argv[1], int(sys.argv[2])
        tags = ID3(path)
        tags.add(TIT2(encoding=1, text=["Before ü"]))
        tags.add(TPE1(encoding=1, text=["Someone"]))
        tags.add(TCON(encoding=1, text=["Rock"]))
        tags.add(COMM(encoding=1, lang="eng", desc="iTunNORM", text=[" 0000044E 00000211"]))
        tags.add(TXXX(encoding=1, desc="MOOD", text=["calm"]))
        tags.add(USLT(encoding=1, lang="deu", desc="", text="la la"))
        tags.add(POPM(email="me@example.com", rating=196, count=3))
        tags.add(APIC(encoding=0, mime="image/png", type=3, desc="old", data=open(sys.argv[3], "rb").read()))
        tags.save(path, v2_version=version)
        """

    /// Prints the file's ID3v2 frames as JSON (mutagen translates v2.3 frames to v2.4 names).
    static let mutagenReader = """
        import sys, json
        from mutagen.id3 import ID3
        tags = ID3(sys.argv[1])
        out = {"version": tags.version[1]}
        for frame in tags.values():
            if frame.FrameID == "APIC":
                out[frame.HashKey] = {"mime": frame.mime, "type": int(frame.type), "desc": frame.desc, "size": len(frame.data)}
            elif frame.FrameID == "POPM":
                out[frame.HashKey] = [frame.rating, getattr(frame, "count", None)]
            elif hasattr(frame, "text"):
                out[frame.HashKey] = [str(t) for t in frame.text] if isinstance(frame.text, list) else [frame.text]
        print(json.dumps(out))
        """

    static func json(_ data: Data) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: data)
        if let array = object as? [[String: Any]], let first = array.first { return first }
        return try #require(object as? [String: Any])
    }

    static func audioMD5(_ url: URL) throws -> String {
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a", "-f", "md5", "-"]).text
    }

    /// The same after eyeD3 tagged the file (mutagen: ``everyFieldReadsBackElsewhere(tagger:version:text:)``).
    @Test(
        .enabled(if: toolsPresent && ToolCheck.has("eyeD3"), "needs ffmpeg, ffprobe, exiftool, mutagen and eyeD3"),
        arguments: [(3, "Björk Guðmundsdóttir"), (4, "Ünïcødé 日本語 🎵")])
    func everyFieldReadsBackAfterEyeD3(version: Int, text: String) async throws {
        try await everyFieldReadsBackElsewhere(tagger: "eyeD3", version: version, text: text)
    }

    @Test(
        .enabled(if: toolsPresent, "needs ffmpeg, ffprobe, exiftool and mutagen"),
        arguments: [("mutagen", 3, "ASCII"), ("mutagen", 3, "Ünïcødé 日本語 🎵"), ("mutagen", 4, "ASCII"), ("mutagen", 4, "Ünïcødé 日本語 🎵")])
    func everyFieldReadsBackElsewhere(tagger: String, version: Int, text: String) async throws {
        let url = try Self.makeMP3()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let cover = url.deletingLastPathComponent().appendingPathComponent("cover.png").path
        if tagger == "mutagen" {
            try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path, String(version), cover])
        } else {
            try TestSupport.runChecked(
                "eyeD3",
                [
                    "--quiet", "--no-color", version == 3 ? "--to-v2.3" : "--to-v2.4",
                    "-t", "Before", "-a", "Someone", "-G", "Rock", "--add-comment", "old comment",
                    "--add-image", cover + ":FRONT_COVER:old", url.path,
                ])
        }
        let md5 = try Self.audioMD5(url)
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int

        var item = MediaItem(url: url)
        try await item.load()
        let artwork = Artwork(data: Data(B.tinyPNG), pictureType: .frontCover, description: "Cover \(text)")
        ID3WriterTests.setEveryField(&item.metadata, text, artwork: [artwork])
        try await item.save()
        try await ID3WriterTests.checkEveryField(item.metadata, text, artwork: [artwork])
        #expect(try Self.audioMD5(url) == md5, "decoded audio unchanged")
        let sizeAfter = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        print("MP3 interop \(tagger) v2.\(version) \(text): \(sizeBefore) → \(sizeAfter) bytes")

        let genre = text == "ASCII" ? "Jazz" : "Genre \(text)"
        // mutagen
        let frames = try Self.json(try TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path]).standardOutput)
        #expect(frames["version"] as? Int == version)
        let expected: [String: String] = [
            "TIT2": "Title \(text)", "TPE1": "Artist \(text)", "TPE2": "Album artist \(text)", "TALB": "Album \(text)",
            "TIT1": "Grouping \(text)", "TCOM": "Composer \(text)", "TCON": genre, "TDRC": "2024", "TBPM": "128",
            "TRCK": "3/12", "TPOS": "1/2",
        ]
        for (key, value) in expected {
            #expect((frames[key] as? [String]) == [value], "mutagen \(key): \(String(describing: frames[key]))")
        }
        let comment = frames.first { $0.key.hasPrefix("COMM::") }?.value as? [String]
        #expect(comment == ["Comment \(text)"], "mutagen COMM: \(frames.keys.sorted())")
        let picture = frames["APIC:Cover \(text)"] as? [String: Any]
        #expect(picture?["mime"] as? String == "image/png" && picture?["type"] as? Int == 3 && picture?["size"] as? Int == B.tinyPNG.count)
        #expect(frames.keys.filter { $0.hasPrefix("APIC") }.count == 1, "the old picture was replaced")
        if tagger == "mutagen" {
            #expect(frames["COMM:iTunNORM:eng"] as? [String] == [" 0000044E 00000211"])
            #expect(frames["TXXX:MOOD"] as? [String] == ["calm"])
            #expect(frames["USLT::deu"] as? [String] == ["la la"])
            #expect((frames["POPM:me@example.com"] as? [Int]) == [196, 3])
        }

        // ffprobe
        let probe = try Self.json(
            try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path])
                .standardOutput)
        let tags = ((probe["format"] as? [String: Any])?["tags"] as? [String: String]) ?? [:]
        let lowered = Dictionary(tags.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        for (key, value) in [
            "title": "Title \(text)", "artist": "Artist \(text)", "album_artist": "Album artist \(text)",
            "album": "Album \(text)", "composer": "Composer \(text)", "genre": genre, "date": "2024",
            "track": "3/12", "disc": "1/2", "tbpm": "128", "comment": "Comment \(text)", "grouping": "Grouping \(text)",
        ] {
            #expect(lowered[key] == value, "ffprobe \(key): \(tags)")
        }

        // exiftool
        let exif = try Self.json(try TestSupport.runChecked("exiftool", ["-j", "-ID3:all", url.path]).standardOutput)
        func exifText(_ key: String) -> String? {
            if let string = exif[key] as? String { return string }
            if let number = exif[key] as? NSNumber { return number.stringValue }
            return nil
        }
        let exifExpected = [
            "Title": "Title \(text)", "Artist": "Artist \(text)", "Band": "Album artist \(text)",
            "Album": "Album \(text)", "Composer": "Composer \(text)", "Genre": genre,
            "BeatsPerMinute": "128", "Track": "3/12", "PartOfSet": "1/2", "Comment": "Comment \(text)",
        ]
        // exiftool reads v2.3 UTF-16 as UCS-2: characters beyond the BMP come out as "?"
        // (the same for files mutagen writes), so those values are not compared.
        let exifReadsText = version == 4 || text.unicodeScalars.allSatisfy { $0.value <= 0xFFFF }
        for (key, value) in exifExpected where exifReadsText || !value.contains(text) {
            #expect(exifText(key) == value, "exiftool \(key): \(exif)")
        }
        #expect(exifText(version == 3 ? "Year" : "RecordingTime") == "2024", "exiftool year: \(exif)")
    }

    /// A conversion 2.4 → 2.3 → 2.4 read by mutagen keeps the full date.
    @Test(.enabled(if: toolsPresent))
    func dateConversionReadsBackInMutagen() async throws {
        let url = try Self.makeMP3()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let md5 = try Self.audioMD5(url)
        var item = MediaItem(url: url)
        try await item.load()
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TDRC", value: .string("2024-05-01T12:30"), dataType: .latin1))
        try await item.save(options: SaveOptions(id3v2Version: .v2_3))
        let v23 = try Self.json(try TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path]).standardOutput)
        #expect(v23["version"] as? Int == 3)
        #expect(
            v23["TDRC"] as? [String] == ["2024-05-01 12:30:00"] || v23["TDRC"] as? [String] == ["2024-05-01 12:30"],
            "mutagen merges TYER/TDAT/TIME: \(v23)")
        try await item.save(options: SaveOptions(id3v2Version: .v2_4))
        let v24 = try Self.json(try TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path]).standardOutput)
        #expect(v24["version"] as? Int == 4 && v24["TDRC"] as? [String] == ["2024-05-01 12:30"])
        #expect(try Self.audioMD5(url) == md5)
    }
}
