import Foundation
import Testing

@testable import MetadataKit

/// M4A files made by ffmpeg and tagged by mutagen or AtomicParsley, saved by
/// MetadataKit with every normalized field set, then read back by mutagen,
/// ffprobe and exiftool; the decoded audio and the chunk payloads must not change.
@Suite(
    .enabled(
        if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe") && TestSupport.hasTool("exiftool")
            && TestSupport.hasPythonModule("mutagen"), "needs ffmpeg, exiftool and mutagen"))
struct MP4WriteInteropTests {
    enum Tagger: String, CaseIterable { case ffmpeg, mutagen, atomicParsley }

    static let mutagenReader = """
        import sys, json
        from mutagen.mp4 import MP4
        tags = MP4(sys.argv[1]).tags or {}
        out = {}
        for key, values in tags.items():
            if not isinstance(values, list):
                values = [values]
            if key == "covr":
                out[key] = [len(bytes(v)) for v in values]
            elif key in ("trkn", "disk"):
                out[key] = [list(v) for v in values]
            elif key.startswith("----"):
                out[key] = [bytes(v).decode("utf-8") for v in values]
            else:
                out[key] = [v if isinstance(v, (str, int)) else str(v) for v in values]
        print(json.dumps(out))
        """

    static let mutagenTagger = """
        import sys
        from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm
        f = MP4(sys.argv[1])
        f["\\xa9nam"] = ["Before"]
        f["\\xa9ART"] = ["Someone"]
        f["----:com.apple.iTunes:MOOD"] = [MP4FreeForm(b"calm")]
        f["cpil"] = True
        f["covr"] = [MP4Cover(open(sys.argv[2], "rb").read(), imageformat=MP4Cover.FORMAT_PNG)]
        f.save()
        """

    func make(_ tagger: Tagger, moovFirst: Bool) throws -> URL {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("song.m4a")
        let cover = TestSupport.fixtures.appendingPathComponent("valid/cover.png")
        var arguments = ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", "-b:a", "64k"]
        if moovFirst { arguments += ["-movflags", "+faststart"] }
        if tagger == .ffmpeg { arguments += ["-metadata", "title=Before", "-metadata", "artist=Someone", "-metadata", "comment=old"] }
        try TestSupport.runChecked("ffmpeg", arguments + [url.path])
        switch tagger {
        case .ffmpeg: break
        case .mutagen: try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path, cover.path])
        case .atomicParsley:
            try TestSupport.runChecked(
                "AtomicParsley",
                [
                    url.path, "--title", "Before", "--artist", "Someone",
                    "--artwork", cover.path, "--overWrite",
                ])
        }
        return url
    }

    /// The same after AtomicParsley tagged the file (the other taggers: ``everyFieldReadsBackInOtherTools(tagger:moovFirst:)``).
    @Test(.enabled(if: TestSupport.hasTool("AtomicParsley"), "needs AtomicParsley"), arguments: [false, true])
    func everyFieldReadsBackAfterAtomicParsley(moovFirst: Bool) async throws {
        try await everyFieldReadsBackInOtherTools(tagger: .atomicParsley, moovFirst: moovFirst)
    }

    @Test(arguments: [Tagger.ffmpeg, .mutagen], [false, true])
    func everyFieldReadsBackInOtherTools(tagger: Tagger, moovFirst: Bool) async throws {
        let url = try make(tagger, moovFirst: moovFirst)
        let md5 = try MediaChecks.decodedMD5(url)
        let chunks = try MediaChecks.chunkSignatures(url)
        let cover = try Data(contentsOf: TestSupport.fixtures.appendingPathComponent("valid/cover.png"))
        var item = MediaItem(url: url)
        try await item.load()
        item.metadata.title = "Ünïcödé Title"
        item.metadata.artist = "Björk & Sigur Rós"
        item.metadata.albumArtist = "Various Artists"
        item.metadata.album = "日本のアルバム"
        item.metadata.grouping = "Grouping"
        item.metadata.composer = "Composer"
        item.metadata.comments = "Comment ✓"
        item.metadata.genre = Genre(name: "Dream Pop")
        item.metadata.date = "2023"
        item.metadata.bpm = 96
        item.metadata.trackNumber = 4
        item.metadata.trackCount = 11
        item.metadata.discNumber = 2
        item.metadata.discCount = 3
        item.metadata.artwork = [Artwork(data: cover)]
        try await item.save()

        // mutagen
        let tags =
            try JSONSerialization.jsonObject(
                with: TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path]).standardOutput) as? [String: Any] ?? [:]
        func strings(_ key: String) -> [String]? { tags[key] as? [String] }
        #expect(strings("\u{A9}nam") == ["Ünïcödé Title"])
        #expect(strings("\u{A9}ART") == ["Björk & Sigur Rós"])
        #expect(strings("aART") == ["Various Artists"])
        #expect(strings("\u{A9}alb") == ["日本のアルバム"])
        #expect(strings("\u{A9}grp") == ["Grouping"])
        #expect(strings("\u{A9}wrt") == ["Composer"])
        #expect(strings("\u{A9}cmt") == ["Comment ✓"])
        #expect(strings("\u{A9}gen") == ["Dream Pop"])
        #expect(strings("\u{A9}day") == ["2023"])
        #expect(tags["tmpo"] as? [Int] == [96])
        #expect(tags["trkn"] as? [[Int]] == [[4, 11]])
        #expect(tags["disk"] as? [[Int]] == [[2, 3]])
        #expect(tags["covr"] as? [Int] == [cover.count])
        if tagger == .mutagen {
            #expect(strings("----:com.apple.iTunes:MOOD") == ["calm"], "an item we did not touch survives")
            #expect(tags["cpil"] as? [Bool] == [true])
        }

        // ffprobe
        let probe = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path])
        let format = (try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])?["format"] as? [String: Any]
        let probed = format?["tags"] as? [String: String] ?? [:]
        #expect(probed["title"] == "Ünïcödé Title")
        #expect(probed["artist"] == "Björk & Sigur Rós")
        #expect(probed["album_artist"] == "Various Artists")
        #expect(probed["album"] == "日本のアルバム")
        #expect(probed["genre"] == "Dream Pop")
        #expect(probed["track"] == "4/11")
        #expect(probed["disc"] == "2/3")
        #expect(probed["date"] == "2023")
        #expect(probed["comment"] == "Comment ✓")
        #expect(probed["composer"] == "Composer")

        // exiftool
        let exif = try TestSupport.runChecked(
            "exiftool",
            [
                "-j", "-Title", "-Artist", "-Album", "-AlbumArtist", "-Genre",
                "-TrackNumber", "-DiskNumber", "-BeatsPerMinute", "-Composer", url.path,
            ])
        let exifTags = (try JSONSerialization.jsonObject(with: exif.standardOutput) as? [[String: Any]])?.first ?? [:]
        #expect(exifTags["Title"] as? String == "Ünïcödé Title")
        #expect(exifTags["Artist"] as? String == "Björk & Sigur Rós")
        #expect(exifTags["Album"] as? String == "日本のアルバム")
        #expect(exifTags["AlbumArtist"] as? String == "Various Artists")
        #expect(exifTags["Genre"] as? String == "Dream Pop")
        #expect(exifTags["TrackNumber"] as? String == "4 of 11")
        #expect(exifTags["DiskNumber"] as? String == "2 of 3")
        #expect(exifTags["BeatsPerMinute"] as? Int == 96)

        // The audio did not move or change.
        #expect(try MediaChecks.decodedMD5(url) == md5)
        #expect(try MediaChecks.chunkSignatures(url) == chunks)
        #expect(try TestSupport.run("ffprobe", ["-v", "error", url.path]).standardError.isEmpty)
    }
}
