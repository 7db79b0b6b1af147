import Foundation
import Testing

@testable import MetadataKit

/// The findings of issue 32, each on a file made the way real ones are and
/// checked through the built `mdkit` and mutagen: impossible values refused
/// before anything is written, clearing clears every place (ID3v1 too), a
/// key stored in several MP4 atoms read whole and kept, an unusual but
/// legal stored value copied as it is.
@Suite struct FieldOperationTests {
    static let toolsPresent = TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen") && Capabilities.mdkit

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        try TestSupport.run(TestSupport.mdkitExecutable!.path, arguments)
    }

    /// An MP3 made by ffmpeg (ID3v2.3 and ID3v1, as `-write_id3v1 1` writes them).
    func makeMP3(_ extra: [String] = []) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.mp3")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.3", "-c:a", "libmp3lame", "-id3v2_version", "3",
                "-write_id3v1", "1", "-metadata", "title=Old Title", "-metadata", "artist=Old Artist", "-metadata", "track=3/10",
            ]
                + extra + [url.path])
        return url
    }

    /// mutagen's view of the file: ID3v2 frames and the ID3v1 tag.
    func mutagen(_ url: URL) throws -> [String: [String]] {
        let output = try TestSupport.runChecked(
            "/bin/sh",
            ["-c", "echo '\(url.path)' | python3 '\(TestSupport.packageRoot.path)/Tests/Tools/mutagen-dump.py'"])
        let object = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any]
        return object?["tags"] as? [String: [String]] ?? [:]
    }

    @Test(
        .enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")),
        arguments: [
            ("year", "2024-13-45", "a date"), ("year", "2024-02-30T25:61", "a date"), ("releaseDate", "2023-02-29", "a date"),
            ("originalYear", "99", "four digits"), ("trackNumber", "70000", "0 to 65535"), ("bpm", "-3", "whole number"),
            ("rating", "300", "0 to 100"), ("replayGainTrackGain", "loud", "gain in dB"), ("replayGainTrackPeak", "7", "peak"),
            ("musicBrainzReleaseId", "not-a-uuid", "UUID"), ("isrc", "US-RC1-76", "ISRC"), ("compilation", "maybe", "flag"),
        ])
    func impossibleValuesAreRefusedBeforeAnythingIsWritten(_ field: String, _ value: String, _ rule: String) throws {
        let url = try makeMP3()
        let before = try Data(contentsOf: url)
        let output = try mdkit(["write", url.path, "--set", "\(field)=\(value)"])
        #expect(output.status != 0, "\(field)=\(value) was accepted")
        #expect(output.standardError.contains(field) && output.standardError.contains(rule), "\(output.standardError)")
        #expect(try Data(contentsOf: url) == before, "the file changed")
    }

    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func legalDatesAreAccepted() throws {
        let url = try makeMP3(["-id3v2_version", "4"])
        for value in ["2024", "2024-02", "2024-02-29", "2024-02-29T23:59", "2024-02-29T23:59:59"] {
            let output = try mdkit(["write", url.path, "--set", "year=\(value)"])
            #expect(output.status == 0, "\(value): \(output.standardError)")
            #expect(try mdkit(["read", "--json", url.path]).text.contains("\"year\": \"\(value)\""), "\(value)")
        }
        #expect(try mdkit(["write", url.path, "--set", "year=2023-02-29"]).status != 0) // not a leap year
    }

    /// ID3v2.3 keeps a date as TYER (year), TDAT (day and month) and TIME
    /// (hours and minutes): a year and month alone, or seconds, have no
    /// place there. Refused whatever the file holds (a file whose TYER
    /// already held the year reported it saved, writing nothing).
    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func datesID3v23CannotHoldAreRefused() throws {
        let url = try makeMP3()
        for current in ["2001", "2024"] {
            #expect(try mdkit(["write", url.path, "--set", "year=\(current)"]).status == 0)
            let before = try Data(contentsOf: url)
            for value in ["2024-02", "2024-02-29T23:59:59"] {
                let output = try mdkit(["write", url.path, "--set", "year=\(value)"])
                #expect(output.status != 0 && output.standardError.contains("year '\(value)' reads back as"), "\(output.standardError)")
                #expect(try Data(contentsOf: url) == before)
            }
        }
        #expect(try mdkit(["write", url.path, "--set", "year=2024-02-29T23:59"]).status == 0)
    }

    @Test(
        .enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")),
        arguments: ["--set title=", "--remove title"])
    func clearingATitleClearsItInID3v1Too(_ operation: String) throws {
        let url = try makeMP3()
        #expect(try mutagen(url)["id3v1:title"] == ["Old Title"])
        let output = try mdkit(["write", url.path] + operation.split(separator: " ").map(String.init))
        #expect(output.status == 0, "\(output.standardError)")
        let tags = try mutagen(url)
        #expect(tags["id3:TIT2"] == nil && tags["id3v1:title"] == nil, "\(tags)")
        let read = try mdkit(["read", "--json", url.path]).text
        #expect(!read.contains("Old Title"), "\(read)")
        #expect(tags["id3:TPE1"] == ["Old Artist"] && tags["id3v1:artist"] == ["Old Artist"])
    }

    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func clearingTheTrackNumberClearsTheID3v1Track() throws {
        let url = try makeMP3()
        #expect(try mutagen(url)["id3v1:track"] == ["3"])
        #expect(try mdkit(["write", url.path, "--remove", "trackNumber"]).status == 0)
        let tags = try mutagen(url)
        #expect(tags["id3v1:track"] == nil, "\(tags)")
    }

    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func removingAllTagsWithAnEditIsAUsageError() throws {
        let url = try makeMP3()
        let before = try Data(contentsOf: url)
        let output = try mdkit(["write", url.path, "--remove-all-tags", "--set", "title=x"])
        #expect(output.status == 2 && output.standardError.contains("--remove-all-tags"), "\(output.standardError)")
        #expect(try Data(contentsOf: url) == before)
    }

    /// MP4 chapter tracks and Matroska ChapterAtoms have no link: a chapter
    /// url is refused there instead of being dropped; ID3 keeps it.
    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")), arguments: ["m4a", "mkv", "mp3"])
    func aChapterLinkIsKeptOrRefused(_ fileExtension: String) async throws {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.\(fileExtension)")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=2", url.path])
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.chapters = [
            Chapter(start: 0, titles: [.init("One")], url: "https://example.com/1"), Chapter(start: 1, titles: [.init("Two")]),
        ]
        if fileExtension == "mp3" {
            try await item.save()
            #expect(try await MediaItem.loaded(url).chapters.first?.url == "https://example.com/1")
        } else {
            await #expect {
                try await item.save()
            } throws: { error in
                "\(error)".contains("chapter 'One' has a url")
            }
            #expect(try Data(contentsOf: url) == before)
        }
    }

    /// The text of an ID3 frame as stored (mutagen without its v2.4 translation).
    func storedFrame(_ url: URL, _ id: String) throws -> String {
        let script =
            "import sys\nfrom mutagen.id3 import ID3\nt = ID3(sys.argv[1], translate=False)\nprint(t['\(id)'].text[0] if '\(id)' in t else '')"
        return try TestSupport.runChecked("python3", ["-c", script, url.path]).text.trimmingCharacters(in: .newlines)
    }

    /// Taggers that copy ISO dates store "2020-01-01T00:00:00.000Z" in an
    /// ID3v2.3 `TYER` (made here with ffmpeg's raw frame name); a save of
    /// another field keeps that frame as stored.
    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func anUnusualStoredYearSurvivesATitleChange() throws {
        let url = try makeMP3(["-metadata", "TYER=2020-01-01T00:00:00.000Z"])
        #expect(try storedFrame(url, "TYER") == "2020-01-01T00:00:00.000Z")
        let output = try mdkit(["write", url.path, "--set", "title=New"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try storedFrame(url, "TYER") == "2020-01-01T00:00:00.000Z")
        #expect(try storedFrame(url, "TIT2") == "New")
    }

    /// Some taggers store each artist in its own `©ART` atom; mutagen and
    /// exiftool show all of them. Made here from an ffmpeg M4A by giving its
    /// `ilst` three `©ART` atoms (the `moov` is at the end, so no chunk
    /// offset moves).
    func makeM4AWithThreeArtistAtoms() throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("x.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.3", "-c:a", "aac", "-metadata", "artist=A1",
                "-metadata", "title=T", url.path,
            ])
        let script = MatrixPreparation.artistAtoms(["A1", "A2", "A3"])
        try TestSupport.runChecked("python3", ["-c", script, url.path])
        return url
    }

    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func artistsInSeveralAtomsAreReadWholeAndKept() async throws {
        let url = try makeM4AWithThreeArtistAtoms()
        #expect(try mutagen(url)["mp4:©ART"] == ["A1", "A2", "A3"])
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.values(of: .artist) == ["A1", "A2", "A3"])
        // Another field changes: the three atoms stay as they were.
        item.metadata.title = "New"
        try await item.save()
        #expect(try mutagen(url)["mp4:©ART"] == ["A1", "A2", "A3"])
        #expect(try mutagen(url)["mp4:©nam"] == ["New"])
        // The artist changes: one value, as every reader sees it.
        let output = try mdkit(["write", url.path, "--set", "artist=Solo"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try mutagen(url)["mp4:©ART"] == ["Solo"])
    }
}

extension FieldOperationTests {
    /// Issue 32.8: the dry run shows every item the save adds, changes or
    /// removes — ID3v1 updates and removals, and the save reports them.
    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func dryRunListsEveryItemTheSaveChanges() throws {
        let url = try makeMP3()
        let before = try Data(contentsOf: url)
        let dry = try mdkit(["write", url.path, "--set", "title=New", "--dry-run"])
        #expect(dry.status == 0)
        for line in ["title: 'Old Title' → 'New'", "id3:TIT2: 'Old Title' → 'New'", "id3v1:title: 'Old Title' → 'New'"] {
            #expect(dry.text.contains("  \(line)\n"), "\(line) missing from \(dry.text)")
        }
        let removal = try mdkit(["write", url.path, "--id3v1", "remove", "--dry-run"])
        #expect(removal.text.contains("  - id3v1:title\n") && removal.text.contains("  - id3v1:artist\n"), "\(removal.text)")
        #expect(try Data(contentsOf: url) == before, "a dry run wrote")
        let saved = try mdkit(["write", url.path, "--id3v1", "remove"])
        #expect(saved.status == 0 && !saved.text.contains("0 changes") && saved.text.contains("saved ("), "\(saved.text)")
        #expect(try mutagen(url).keys.allSatisfy { !$0.hasPrefix("id3v1") }, "mutagen still finds ID3v1")
        #expect(try Data(contentsOf: url).count == before.count - 128)
    }
}

extension FieldOperationTests {
    /// Issue 32.7: LRC ID tags (`[ti:…]`) have no place in ID3 SYLT/USLT; the
    /// save says so, naming them, where it used to drop them without a word.
    @Test(.enabled(if: toolsPresent || TestSupport.missingUnderCI("ffmpeg, mutagen and mdkit")))
    func lrcLinesID3CannotKeepAreNamed() throws {
        let url = try makeMP3()
        let lrc = url.deletingLastPathComponent().appendingPathComponent("song.lrc")
        try Data("[ti:My Song]\n[ar:Someone]\n[00:00.50]Hello\n[00:01.00]World\n".utf8).write(to: lrc)
        for arguments in [["--dry-run"], []] {
            let output = try mdkit(["write", url.path, "--lyrics", lrc.path] + arguments)
            #expect(output.status == 0)
            #expect(output.text.contains("warning:") && output.text.contains("'[ti:My Song]', '[ar:Someone]'"), "\(output.text)")
        }
        #expect(try mdkit(["read", "--lrc", url.path]).text == "[00:00.50]Hello\n[00:01.00]World\n")
        // FLAC keeps the LRC text itself: no warning, and it reads back exactly.
        let flac = url.deletingLastPathComponent().appendingPathComponent("x.flac")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.3", flac.path])
        let saved = try mdkit(["write", flac.path, "--lyrics", lrc.path])
        #expect(saved.status == 0 && !saved.text.contains("warning"), "\(saved.text)")
        #expect(try mdkit(["read", "--lrc", flac.path]).text == "[ti:My Song]\n[ar:Someone]\n[00:00.50]Hello\n[00:01.00]World\n")
    }
}
