import Foundation
import Testing

@testable import MetadataKit

/// `mdkit write`, run as a process.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIWriteTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    func copyOfSamples() throws -> (URL, URL) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let mp3 = directory.appendingPathComponent("a.mp3"), m4a = directory.appendingPathComponent("b.m4a")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: mp3)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"), to: m4a)
        return (mp3, m4a)
    }

    func metadata(_ url: URL) async throws -> Metadata {
        var item = MediaItem(url: url)
        try await item.load()
        return item.metadata
    }

    @Test func setsFieldsAndRawKeysInBothFormats() async throws {
        let (mp3, m4a) = try copyOfSamples()
        for (url, raw) in [(mp3, "id3:TXXX:MOOD"), (m4a, "itunes:----:com.apple.iTunes:MOOD")] {
            let output = try mdkit([
                "write", url.path, "--set", "title=Neu", "--set", "trackNumber=7",
                "--remove", "comments", "--set", "genre=Jazz", "--set", "\(raw)=Happy",
            ])
            #expect(output.status == 0, "\(output.standardError)")
            let metadata = try await metadata(url)
            #expect(metadata.title == "Neu" && metadata.trackNumber == 7 && metadata.trackCount == 12)
            #expect(metadata.comments == nil && metadata.genre?.name == "Jazz")
            #expect(metadata.items.contains { "\($0.keySpace.rawValue):\($0.key)" == raw && $0.value == .string("Happy") })
        }
    }

    @Test func aKeySpaceTheFormatCannotHoldFailsThatFileOnly() async throws {
        let (mp3, m4a) = try copyOfSamples()
        let before = try Data(contentsOf: mp3)
        let output = try mdkit(["write", mp3.path, m4a.path, "--set", "itunes:----:com.apple.iTunes:MOOD=Happy"])
        #expect(output.status == 1)
        #expect(output.standardError.contains("\(mp3.path): error: invalidValue: mp3 files can't hold 'itunes:----:com.apple.iTunes:MOOD'"))
        #expect(try Data(contentsOf: mp3) == before)
        #expect(try await metadata(m4a).items.contains { $0.key == "----:com.apple.iTunes:MOOD" && $0.value == .string("Happy") })
    }

    @Test func dryRunWritesNothing() throws {
        let (mp3, _) = try copyOfSamples()
        let before = try Data(contentsOf: mp3)
        let output = try mdkit(["write", mp3.path, "--set", "title=Other", "--dry-run"])
        #expect(output.status == 0)
        #expect(output.text.contains("title: 'Sine in A' → 'Other'"))
        #expect(try Data(contentsOf: mp3) == before)
    }

    /// `--field NAME=KEY` names a custom field that `--set`/`--remove`
    /// edit; `--dry-run` lists it as a field change; the write stores it
    /// under the key of the file's kind.
    @Test func customFieldsAreListedAndWritten() async throws {
        let (mp3, _) = try copyOfSamples()
        let flac = mp3.deletingLastPathComponent().appendingPathComponent("c.flac")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: flac)
        let fields = ["--field", "energy=id3:TXXX:ENERGY", "--field", "energy=vorbis:ENERGY"]
        let before = try Data(contentsOf: mp3)
        var output = try mdkit(["write", mp3.path, flac.path, "--set", "energy=high", "--dry-run"] + fields)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.text.contains("\(mp3.path): would change\n  energy: (none) → 'high'\n  + id3:TXXX:ENERGY = high\n"), "\(output.text)")
        #expect(output.text.contains("\(flac.path): would change\n  energy: (none) → 'high'\n  + vorbis:ENERGY = high\n"), "\(output.text)")
        #expect(try Data(contentsOf: mp3) == before)

        output = try mdkit(["write", mp3.path, flac.path, "--set", "energy=high"] + fields)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.text == "\(mp3.path): saved (1 change)\n\(flac.path): saved (1 change)\n")
        let schema = try MetadataSchemaTests.schema()
        for url in [mp3, flac] {
            #expect(try await MediaItem(contentsOf: url, schema: schema).metadata[custom: "energy"] == .text("high"))
        }
        output = try mdkit(["write", mp3.path, "--remove", "energy", "--dry-run"] + fields)
        #expect(output.text.contains("  energy: 'high' → (none)\n  - id3:TXXX:ENERGY\n"), "\(output.text)")

        // A custom name needs its --field; a standard field's name or a key the key map holds can't be one.
        output = try mdkit(["write", mp3.path, "--set", "energy=low"])
        #expect(output.status == 2 && output.standardError.contains("--field energy=KEY"), "\(output.standardError)")
        #expect(try mdkit(["write", mp3.path, "--field", "mood=vorbis:ENERGY", "--set", "title=x"]).status == 2)
        #expect(try mdkit(["write", mp3.path, "--field", "energy=id3:TIT2", "--set", "energy=x"]).status == 2)
        #expect(try mdkit(["write", mp3.path, "--field", "energy", "--set", "energy=x"]).status == 2)
        #expect(try await MediaItem(contentsOf: mp3, schema: schema).metadata[custom: "energy"] == .text("high"))
    }

    @Test func outputLeavesTheOriginal() async throws {
        let (_, m4a) = try copyOfSamples()
        let before = try Data(contentsOf: m4a)
        let copy = m4a.deletingLastPathComponent().appendingPathComponent("copy.m4a")
        let output = try mdkit(["write", m4a.path, "--set", "album=Copied", "--output", copy.path])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try Data(contentsOf: m4a) == before)
        #expect(try await metadata(copy).album == "Copied")
    }

    @Test func artworkAndID3Options() async throws {
        let (mp3, _) = try copyOfSamples()
        let cover = TestSupport.fixtures.appendingPathComponent("valid/cover.png").path
        var output = try mdkit([
            "write", mp3.path, "--artwork", cover, "--artwork-type", "back", "--artwork", cover,
            "--id3v2-version", "3", "--id3v1", "add",
        ])
        #expect(output.status == 0, "\(output.standardError)")
        var item = MediaItem(url: mp3)
        try await item.load()
        #expect(item.metadata.artwork.map(\.pictureType) == [.backCover, .frontCover])
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 && $0.key == "title" })
        #expect(try Data(contentsOf: mp3).prefix(4) == Data([0x49, 0x44, 0x33, 3]))
        output = try mdkit(["write", mp3.path, "--remove-artwork"])
        #expect(output.status == 0)
        #expect(try await metadata(mp3).artwork.isEmpty)
    }

    @Test func usageErrors() throws {
        #expect(try mdkit(["write"]).status == 2)
        #expect(try mdkit(["write", "x.mp3", "--set", "bpm=fast"]).status == 2)
        #expect(try mdkit(["write", "x.mp3", "--set", "nosuchfield=1"]).status == 2)
        #expect(try mdkit(["write", "x.mp3", "--id3v2-version", "5"]).status == 2)
        #expect(try mdkit(["write", "a.mp3", "b.mp3", "--output", "c.mp3"]).status == 2)
        #expect(try mdkit(["write", "--help"]).status == 0)
    }
}
