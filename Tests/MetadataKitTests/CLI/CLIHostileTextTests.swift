import Foundation
import Testing

@testable import MetadataKit

/// Text from strangers' files (terminal escape sequences, BEL, CR, NUL, NEL,
/// bidirectional overrides, 100 KB values, a file name with control
/// characters) through every human-readable output of the tool: no raw
/// control or bidirectional character reaches standard output or standard
/// error; the JSON outputs keep the exact values.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIHostileTextTests {
    static let title = "A\u{1B}[31mRED\u{1B}]0;pwned\u{7}B\rC\u{0}D"
    static let artist = "next\u{85}line \u{9B}31m evil\u{202E}3pm.exe \u{2066}x\u{2069}\tz\u{7F}"
    static let comment = String(repeating: "\u{1B}[2J\n", count: 20_000)
    static let lyrics = "line one\u{1B}[1A\nline two\u{7}"
    static let name = "bad\u{1B}]0;t\u{7}\u{202E}3pm\u{9}\u{85}.flac"

    /// The byte offsets in `bytes` of a C0 control other than a line feed, DEL, a
    /// C1 control, U+2028/9 or a bidirectional control, with what it is.
    static func unsafe(_ bytes: Data) -> [String] {
        var found: [String] = []
        let scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars
        for scalar in scalars {
            switch scalar.value {
            case 0x0A: continue
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
                found.append(String(scalar.value, radix: 16))
            default: continue
            }
        }
        return found
    }

    func mdkit(_ arguments: [String], in directory: URL) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments, in: directory)
    }

    /// The hostile file, its name hostile too, in a new folder.
    static func fixture() async throws -> (folder: URL, name: String) {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.flac"), to: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = title
        item.metadata.artist = artist
        item.metadata.comments = comment
        item.metadata.lyrics = lyrics
        item.chapters = [Chapter(start: 0, titles: [.init(title)])]
        try await item.save()
        return (folder, name)
    }

    @Test func noRawControlCharacterReachesATerminal() async throws {
        let (folder, name) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The table shows each value on one line, visibly.
        let table = try mdkit(["read", name], in: folder).text
        #expect(table.contains(#"title       A\x1b[31mRED\x1b]0;pwned\x07B\rC\x00D"#), "\(table)")
        #expect(table.contains(#"artist      next\u0085line \u009b31m evil\u202e3pm.exe \u2066x\u2069\tz\x7f"#), "\(table)")
        #expect(table.hasPrefix(#"bad\x1b]0;t\x07\u202e3pm\t\u0085.flac"# + "\n"), "\(table)")
        let runs: [[String]] = [
            ["read", name], ["read", "--items", name], ["read", "--lyrics", name], ["read", "--lrc", name],
            ["read", name, "missing\u{1B}[31m\u{202E}.mp3"], ["chapters", name], ["tracks", name],
            ["write", name, "--set", "comments=\(Self.title)"], ["write", "--dry-run", name, "--set", "title=\(Self.artist)"],
            ["write", "--verbose", name, "--set", "title=\(Self.artist)"], ["write", "missing\u{1B}]0;x\u{7}.mp3", "--set", "title=x"],
            ["write", name, "--artwork", "no\u{1B}[31m.jpg"], ["read", "--bogus\u{1B}[31m", name], ["frob\u{1B}[2J"],
            ["scan", "--db", "c.sqlite", "."], ["query", "--db", "c.sqlite", "select path, title, artist, comments from files"],
            ["query", "--db", "c.sqlite", "select 'a\u{1B}[31m\u{202E}' as \"b\u{7}\""], ["query", "--db", "c.sqlite", "select x\u{1B}"],
            ["export", name, "out.mp4"], ["timed", name], ["annotate", name, "o.mp4", "--annotations", "n\u{1B}o.json"],
        ]
        for arguments in runs {
            let output = try mdkit(arguments, in: folder)
            let shown = arguments.joined(separator: " ").debugDescription
            #expect(Self.unsafe(output.standardOutput).isEmpty, "stdout of \(shown): \(Self.unsafe(output.standardOutput))")
            #expect(Self.unsafe(Data(output.standardError.utf8)).isEmpty, "stderr of \(shown): \(output.standardError.debugDescription)")
        }
    }

    @Test func jsonKeepsTheExactValues() async throws {
        let (folder, name) = try await Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try mdkit(["read", "--json", name], in: folder)
        let object = try #require((try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])?.first)
        #expect(object["path"] as? String == name)
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["title"] as? String == Self.title)
        #expect(metadata["artist"] as? String == Self.artist)
        #expect(metadata["comments"] as? String == Self.comment)
        let lines = try mdkit(["read", "--jsonl", name], in: folder)
        let line = try #require(try JSONSerialization.jsonObject(with: lines.standardOutput) as? [String: Any])
        #expect((line["metadata"] as? [String: Any])?["title"] as? String == Self.title)
    }
}
