import Foundation
import Testing

@testable import MetadataKit

/// `mdkit write`'s input checks and what it shows: artwork that is no image,
/// dates with a syntax, a key given twice, `--remove-all-tags`, `--dry-run`.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIWriteInputTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    /// A copy of the sample `name` in a new directory (the caller removes the directory).
    func copy(_ name: String) throws -> URL {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(name)"), to: url)
        return url
    }

    @Test func artworkThatIsNoImageIsRefusedUnlessItsTypeIsGiven() async throws {
        let mp3 = try copy("sample.mp3")
        defer { try? FileManager.default.removeItem(at: mp3.deletingLastPathComponent()) }
        let before = try Data(contentsOf: mp3)
        let text = mp3.deletingLastPathComponent().appendingPathComponent("notes.txt")
        try Data("not a picture\n".utf8).write(to: text)
        let wav = mp3.deletingLastPathComponent().appendingPathComponent("sound.wav")
        try Data(RIFFBuilder.wave([])).write(to: wav)
        for file in [text, wav] {
            let output = try mdkit(["write", mp3.path, "--artwork", file.path])
            #expect(output.status == 2)
            #expect(
                output.standardError.contains("not a JPEG, PNG, GIF, BMP or WebP image") && output.standardError.contains("--artwork-mime"))
            #expect(try Data(contentsOf: mp3) == before)
        }
        let output = try mdkit(["write", mp3.path, "--artwork", text.path, "--artwork-mime", "text/plain"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try await MediaItem.loaded(mp3).metadata.artwork.map(\.mimeType) == ["text/plain"])
        #expect(try mdkit(["write", mp3.path, "--artwork-mime", "image/png"]).status == 2, "needs a preceding --artwork")
    }

    @Test func aDateWithASyntaxRefusesOtherText() async throws {
        for name in ["sample.mp3", "sample.m4a"] {
            let url = try copy(name)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let before = try Data(contentsOf: url)
            let output = try mdkit(["write", url.path, "--set", "year=notayear"])
            #expect(output.status == 1)
            #expect(
                output.standardError.contains("invalidValue: year 'notayear'") && output.standardError.contains("yyyy-MM-dd"),
                "\(name): \(output.standardError)")
            #expect(try Data(contentsOf: url) == before)
            #expect(try mdkit(["write", url.path, "--set", "year=2024-05-01"]).status == 0)
            #expect(try await MediaItem.loaded(url).metadata.date == "2024-05-01")
        }
        // Vorbis DATE is free text to readers, but a save writes dates only (docs/FIELDS.md): the same rule.
        let flac = try copy("sample.flac")
        defer { try? FileManager.default.removeItem(at: flac.deletingLastPathComponent()) }
        let refused = try mdkit(["write", flac.path, "--set", "year=spring 1999"])
        #expect(refused.status != 0 && refused.standardError.contains("year 'spring 1999' is not a date"), "\(refused.standardError)")
    }

    @Test func timestampSyntax() {
        for good in ["2024", "2024-05", "2024-05-01", "2024-05-01T12", "2024-05-01T12:30", "2024-05-01T12:30:59", "2024-05-01T12:30:59Z"] {
            #expect(DateMetadataConverter.isTimestamp(good), "\(good)")
        }
        for bad in [
            "", "notayear", "24", "2024-5-1", "2024/05/01", "2024-05-01 12:30", "2024Z", "20245", "２０２４", "2\u{301}024",
            "2024-05-01T12:30:59ZZ",
        ] {
            #expect(!DateMetadataConverter.isTimestamp(bad), "\(bad)")
        }
    }

    @Test func aKeyGivenTwiceIsAUsageError() throws {
        for pair in [["vorbis:MOOD=a", "vorbis:mood=b"], ["title=a", "title=b"], ["id3:TXXX:MOOD=a", "id3:TXXX:MOOD=b"]] {
            let output = try mdkit(["write", "x.flac", "--set", pair[0], "--set", pair[1]])
            #expect(output.status == 2 && output.standardError.contains("given twice"), "\(pair)")
        }
        #expect(try mdkit(["write", "x.flac", "--set", "title=a", "--remove", "title"]).status == 2)
        #expect(try mdkit(["export", "x.mp4", "y.mp4", "--set", "title=a", "--set", "title=b"]).status == 2)
    }

    @Test func removeAllTagsShowsAndCountsWhatItRemoves() async throws {
        let mp3 = try copy("sample.mp3")
        defer { try? FileManager.default.removeItem(at: mp3.deletingLastPathComponent()) }
        let before = try Data(contentsOf: mp3)
        let dry = try mdkit(["write", mp3.path, "--remove-all-tags", "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.text.contains("would change") && dry.text.contains("title: 'Sine in A' → (none)"), "\(dry.text)")
        #expect(try Data(contentsOf: mp3) == before)
        // The dry run lists every raw item the save removes.
        let items = try await MediaItem.loaded(mp3).metadata.items.count
        #expect(items >= 15 && dry.text.split(separator: "\n").filter { $0.hasPrefix("  - ") }.count == items, "\(dry.text)")
        let real = try mdkit(["write", mp3.path, "--remove-all-tags"])
        let removed = real.text.split(separator: "\n").filter { $0.hasPrefix("  ") }.count
        #expect(real.status == 0 && removed >= 15)
        #expect(real.text.contains("saved (\(removed) changes)") && real.text.contains("title: 'Sine in A' → (none)"), "\(real.text)")
        let item = try await MediaItem.loaded(mp3)
        #expect(item.metadata.items.isEmpty)
        #expect(try mdkit(["write", mp3.path, "--remove-all-tags", "--dry-run"]).text.contains("no changes"))
    }

    @Test func dryRunShowsARawKeyChangingAsOneChange() throws {
        let mp3 = try copy("sample.mp3")
        defer { try? FileManager.default.removeItem(at: mp3.deletingLastPathComponent()) }
        #expect(try mdkit(["write", mp3.path, "--set", "id3:TXXX:MOOD=a"]).status == 0)
        let output = try mdkit(["write", mp3.path, "--set", "id3:TXXX:MOOD=b", "--dry-run"])
        #expect(output.text.contains("id3:TXXX:MOOD: 'a' → 'b'"), "\(output.text)")
        #expect(!output.text.contains("+ id3:TXXX:MOOD") && !output.text.contains("- id3:TXXX:MOOD"))
        let added = try mdkit(["write", mp3.path, "--set", "id3:TXXX:COLOUR=red", "--remove", "id3:TXXX:MOOD", "--dry-run"])
        #expect(added.text.contains("+ id3:TXXX:COLOUR = red") && added.text.contains("- id3:TXXX:MOOD"), "\(added.text)")
    }

    /// ID3v2 allows one APIC per description (frames §4.14).
    @Test func picturesOnAnMP3GetUniqueDescriptions() async throws {
        let mp3 = try copy("sample.mp3")
        defer { try? FileManager.default.removeItem(at: mp3.deletingLastPathComponent()) }
        let cover = TestSupport.fixtures.appendingPathComponent("valid/cover.png").path
        let output = try mdkit(["write", mp3.path, "--artwork", cover, "--artwork", cover, "--artwork-type", "back", "--artwork", cover])
        #expect(output.status == 0, "\(output.standardError)")
        let pictures = try await MediaItem.loaded(mp3).metadata.artwork
        #expect(pictures.map(\.description) == ["", "2", "3"])
        #expect(pictures.map(\.pictureType) == [.frontCover, .backCover, .frontCover])
        if TestSupport.hasPythonModule("mutagen") {
            // mutagen keys APIC frames by description: three keys, three pictures.
            let keys = try TestSupport.runChecked(
                "python3",
                [
                    "-c",
                    """
                    import sys, mutagen.id3
                    print(sorted(k for k in mutagen.id3.ID3(sys.argv[1]).keys() if k.startswith('APIC')))
                    """, mp3.path,
                ]
            ).text
            #expect(keys.trimmingCharacters(in: .whitespacesAndNewlines) == "['APIC:', 'APIC:2', 'APIC:3']")
        }
        // Descriptions given by the caller are kept, repeats numbered.
        var item = try await MediaItem.loaded(mp3)
        let png = try Data(contentsOf: URL(fileURLWithPath: cover))
        item.metadata.artwork = [
            Artwork(data: png, description: "Cover"), Artwork(data: png, description: "Cover"), Artwork(data: png, description: "Back"),
        ]
        try await item.save(options: SaveOptions(durability: .noSync))
        #expect(try await MediaItem.loaded(mp3).metadata.artwork.map(\.description) == ["Cover", "Cover (2)", "Back"])
    }
}
