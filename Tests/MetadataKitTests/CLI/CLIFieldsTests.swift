import Foundation
import Testing

@testable import MetadataKit

/// `mdkit fields`, the larger field set in `read`/`write`, and lyrics
/// (`read --lyrics`/`--lrc`, `write --lyrics FILE.lrc`), run as a process.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIFieldsTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    func copy(_ fixture: String) throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent(fixture)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/\(fixture)"), to: url)
        return url
    }

    func json(_ output: TestSupport.Output) throws -> Any {
        try JSONSerialization.jsonObject(with: output.standardOutput)
    }

    @Test func fieldsListsEveryFieldWithTheRegistrysKeys() throws {
        let output = try mdkit(["fields", "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let fields = try #require((try json(output) as? [String: Any])?["fields"] as? [[String: Any]])
        #expect(fields.compactMap { $0["name"] as? String } == MetadataField.allCases.map(\.rawValue))
        for entry in fields {
            let field = try #require(MetadataField(rawValue: entry["name"] as? String ?? ""))
            #expect(entry["kind"] as? String == field.kind.rawValue)
            let keys = entry["keys"] as? [String: [String]] ?? [:]
            for space in Set(MetadataKeyMap.standard.keys[field]?.map(\.keySpace) ?? []) {
                let expected = MetadataKeyMap.standard.keys[field]!.filter { $0.keySpace == space }.map(\.key)
                #expect(keys[space.rawValue] == expected, "\(field) \(space)")
            }
        }
        let table = try mdkit(["fields"]).text
        #expect(table.contains("musicBrainzReleaseId (text)\n  id3: TXXX:MusicBrainz Album Id\n"))
        let markdown = try mdkit(["fields", "--markdown"]).text
        let documented = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/FIELDS.md"), encoding: .utf8)
        #expect(documented.hasSuffix(markdown), "docs/FIELDS.md ends with `mdkit fields --markdown` (make it again)")
    }

    @Test func everyFieldIsSetByNameAndReadBackAsJSON() async throws {
        for fixture in ["sample.mp3", "sample.m4a", "sample.flac"] {
            let url = try copy(fixture)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let format = try #require(MediaFormat.all.first { $0.extensions.contains(url.pathExtension) })
            let fields = MetadataField.allCases.filter { field in
                // (`year` is a timestamp in ID3 and MP4: the CLI tests cover it.)
                field.kind == .text && field != .date
                    && MetadataKeyMap.standard.keys[field]?.contains { $0.keySpace == format.keySpaces[0] } ?? false
            }
            // Fields with a rule (dates, IDs, ISRC, gains: docs/FIELDS.md) get a value that keeps it.
            func value(_ field: MetadataField) -> String {
                FieldRules.rule(for: field) != nil ? PicardMapping.values(field, seed: 3)[0] : "\(field.rawValue) ü"
            }
            var arguments = ["write", url.path]
            for field in fields { arguments += ["--set", "\(field.rawValue)=\(value(field))"] }
            arguments += ["--set", "compilation=yes", "--set", "rating=60"]
            let written = try mdkit(arguments)
            #expect(written.status == 0, "\(fixture): \(written.standardError)")
            let objects = try #require(try json(try mdkit(["read", "--json", url.path])) as? [[String: Any]])
            let metadata = try #require(objects.first?["metadata"] as? [String: Any])
            for field in fields { #expect(metadata[field.rawValue] as? String == value(field), "\(fixture) \(field)") }
            #expect(metadata["compilation"] as? Bool == true && metadata["rating"] as? Int == 60, "\(fixture)")
            #expect(metadata["gapless"] == nil && metadata["movementNumber"] == nil, "absent fields are absent")
            let removed = try mdkit(["write", url.path, "--remove", "compilation", "--remove", "isrc"])
            #expect(removed.status == 0, "\(removed.standardError)")
            let after = try #require(
                (try json(try mdkit(["read", "--json", url.path])) as? [[String: Any]])?.first?["metadata"] as? [String: Any])
            #expect(after["compilation"] == nil && after["isrc"] == nil && after["label"] as? String == "label ü")
        }
    }

    @Test func severalValuesAreAStringAndAListInLists() async throws {
        let url = try copy("sample.flac")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var item = try await MediaItem.loaded(url)
        item.metadata.setValues(["Ann", "Bob ü"], for: .artist)
        item.metadata.setValues(["Solo"], for: .composer)
        try await item.save(options: SaveOptions(durability: .noSync))
        let objects = try #require(try json(try mdkit(["read", "--json", url.path])) as? [[String: Any]])
        let metadata = try #require(objects.first?["metadata"] as? [String: Any])
        // One JSON type per field: a string (joined), and the values one by one in "lists".
        #expect(metadata["artist"] as? String == "Ann; Bob ü" && metadata["composer"] as? String == "Solo")
        let lists = try #require(objects.first?["lists"] as? [String: [String]])
        #expect(lists == ["artist": ["Ann", "Bob ü"]])
        let table = try mdkit(["read", url.path]).text
        #expect(table.contains("artist") && table.contains("Ann; Bob ü"))
    }

    static let lrc = "[ar:Someone]\n[00:01.50]Erste Zeile ü\n[00:03.25]second line\n[01:02.00]日本語\n"

    @Test func lyricsFromAnLRCFileRoundTripExactly() async throws {
        for fixture in ["sample.mp3", "sample.m4a", "sample.flac"] {
            let url = try copy(fixture)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let lrcFile = url.deletingLastPathComponent().appendingPathComponent("song.lrc")
            let text = fixture == "sample.mp3" ? Self.lrc.replacingOccurrences(of: "[ar:Someone]\n", with: "") : Self.lrc
            try Data(text.utf8).write(to: lrcFile)
            let written = try mdkit(["write", url.path, "--lyrics", lrcFile.path])
            #expect(written.status == 0, "\(fixture): \(written.standardError)")
            #expect(try mdkit(["read", "--lrc", url.path]).text == text, "\(fixture): the LRC comes back exactly")
            let lines = try mdkit(["read", "--lyrics", url.path]).text
            #expect(lines == "[00:01.50] Erste Zeile ü\n[00:03.25] second line\n[01:02.00] 日本語\n", "\(fixture)")
            let item = try await MediaItem.loaded(url)
            #expect(item.timedLyrics?.map(\.time) == [1.5, 3.25, 62], "\(fixture)")
            if fixture == "sample.mp3" {
                #expect(item.metadata.lyrics == "Erste Zeile ü\nsecond line\n日本語", "USLT holds the plain text")
                let sylt = try #require(item.metadata.synchronizedLyrics.first)
                #expect(sylt.timestampFormat == SynchronizedLyrics.milliseconds && sylt.contentType == 1 && sylt.language == "eng")
            }
        }
        let notLRC = try TestSupport.makeTemporaryDirectory().appendingPathComponent("plain.lrc")
        defer { try? FileManager.default.removeItem(at: notLRC.deletingLastPathComponent()) }
        try Data("just words\n".utf8).write(to: notLRC)
        #expect(try mdkit(["write", try copy("sample.flac").path, "--lyrics", notLRC.path]).status == 2)
    }
}
