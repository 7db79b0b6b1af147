import Foundation
import Testing

@testable import MetadataKit

/// The conventions of the README's CLI section, through the built mdkit:
/// overwrites as `cp`/`export` (`-y`), outputs in their input's format, a
/// named catalog's folder not made, write-protected files refused unless
/// `--force`, usage errors exit 2, failures 1 with the reason on stderr.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIConventionsTests {
    func mdkit(_ arguments: [String], in directory: URL) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments, in: directory)
    }

    /// A new folder holding a copy of the fixture `name` (valid/).
    func folder(with name: String) throws -> URL {
        let folder = try TestSupport.makeTemporaryDirectory()
        try FileManager.default.copyItem(
            at: TestSupport.fixtures.appendingPathComponent("valid/\(name)"), to: folder.appendingPathComponent(name))
        return folder
    }

    @Test func writeOutputRefusesAnExistingFileAndAnotherFormatsExtension() throws {
        let folder = try folder(with: "sample.flac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let mp3 = try mdkit(["write", "sample.flac", "--set", "title=x", "--output", "out.mp3"], in: folder)
        #expect(mp3.status == 2)
        #expect(mp3.standardError.contains(".mp3") && mp3.standardError.contains("FLAC"), "\(mp3.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp3").path))
        #expect(try mdkit(["write", "sample.flac", "--set", "title=x", "--output", "out.flac"], in: folder).status == 0)
        let written = try Data(contentsOf: folder.appendingPathComponent("out.flac"))
        let again = try mdkit(["write", "sample.flac", "--set", "title=y", "--output", "out.flac"], in: folder)
        #expect(again.status == 1)
        #expect(again.standardError.contains("-y"), "\(again.standardError)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("out.flac")) == written)
        #expect(try mdkit(["write", "sample.flac", "--set", "title=y", "--output", "out.flac", "-y"], in: folder).status == 0)
        #expect(try mdkit(["read", "--json", "out.flac"], in: folder).text.contains("\"title\": \"y\""))
    }

    @Test func aNamedCatalogsMissingFolderIsNotMade() throws {
        let folder = try folder(with: "sample.flac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scan = try mdkit(["scan", "--db", "missing/deeper/c.sqlite", "."], in: folder)
        #expect(scan.status == 3)
        #expect(scan.standardError.contains("missing/deeper"), "\(scan.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing").path))
        // The default location's folders are made.
        let data = folder.appendingPathComponent("data")
        let mdkit = try #require(TestSupport.mdkitExecutable).path
        let scanned = try TestSupport.run("/usr/bin/env", ["XDG_DATA_HOME=\(data.path)", mdkit, "scan", "--quiet", "."], in: folder)
        #expect(scanned.status == 0, "\(scanned.standardError)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("mdkit/library.sqlite").path))
    }

    @Test func aWriteProtectedFileIsRefusedUnlessForced() throws {
        let folder = try folder(with: "sample.flac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("sample.flac")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        let before = try Data(contentsOf: url)
        // Refused whoever runs it (root too, whom the system would let write).
        for arguments in [["write", "sample.flac", "--set", "title=y"], ["write", "sample.flac", ".", "--set", "title=y"]] {
            let refused = try mdkit(arguments, in: folder)
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("readOnly") && refused.standardError.contains("--force"), "\(refused.standardError)")
            #expect(try Data(contentsOf: url) == before)
        }
        let forced = try mdkit(["write", "sample.flac", "--set", "title=y", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try mdkit(["read", "--json", "sample.flac"], in: folder).text.contains("\"title\": \"y\""))
    }

    @Test func nothingToChangeIsAUsageErrorAndNoLyricsAFailure() throws {
        let folder = try folder(with: "sample.flac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let nothing = try mdkit(["write", "sample.flac"], in: folder)
        #expect(nothing.status == 2)
        #expect(nothing.standardError.contains("nothing to change"), "\(nothing.standardError)")
        for option in ["--lyrics", "--lrc"] {
            let lyrics = try mdkit(["read", option, "sample.flac"], in: folder)
            #expect(lyrics.status == 1)
            #expect(lyrics.text.isEmpty)
            #expect(lyrics.standardError == "sample.flac: no lyrics\n")
        }
    }

    @Test func exportSaysWhenTheRangePassesTheEnd() throws {
        let folder = try folder(with: "sample.m4a")
        defer { try? FileManager.default.removeItem(at: folder) }
        let end = try mdkit(["export", "sample.m4a", "cut.m4a", "--end", "100", "--quiet"], in: folder)
        #expect(end.status == 0)
        let lines = end.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--end 100") && lines[0].contains("1.000 s"), "\(end.standardError)")
        let start = try mdkit(["export", "sample.m4a", "late.m4a", "--start", "200"], in: folder)
        #expect(start.status == 1)
        #expect(start.standardError.contains("duration is 1.000 s"), "\(start.standardError)")
    }

    @Test func messagesGiveTheReasonOnce() throws {
        let folder = try folder(with: "sample.flac")
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try mdkit(["write", "sample.flac", "--artwork", "nonexist.jpg"], in: folder)
        #expect(image.status == 2)
        #expect(image.standardError.contains("nonexist.jpg: No such file or directory"), "\(image.standardError)")
        let empty = try mdkit(["write", "sample.flac", "--chapters", "/dev/null"], in: folder)
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("/dev/null is empty") && !empty.standardError.contains("UTF-8"), "\(empty.standardError)")
        try Data(#"{"chapters": ["#.utf8).write(to: folder.appendingPathComponent("bad.json"))
        let json = try mdkit(["write", "sample.flac", "--chapters", "bad.json"], in: folder)
        #expect(json.status == 2)
        #expect(json.standardError.components(separatedBy: "not valid JSON").count == 2, "\(json.standardError)")
        let mp3 = folder.appendingPathComponent("a.mp3")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: mp3)
        let binary = try mdkit(["write", "a.mp3", "--set", "id3:APIC=x"], in: folder)
        #expect(!binary.standardError.contains(".data)"), "\(binary.standardError)")
    }

    @Test func helpForACommandIsItsHelpAndTheFormatListIsAligned() throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for command in ["read", "write", "query"] {
            let help = try mdkit(["help", command], in: folder)
            #expect(help.status == 0)
            #expect(help.text == (try mdkit([command, "--help"], in: folder)).text)
        }
        let top = try mdkit(["--help"], in: folder).text
        let formats = top.components(separatedBy: "formats (detected from the first bytes):\n")[1].split(separator: "\n")
        #expect(formats.count == MediaFormat.all.count)
        let columns = Set(
            formats.map { line in
                line.dropFirst(2).drop { $0 != " " }.prefix { $0 == " " }.count + line.dropFirst(2).prefix { $0 != " " }.count
            })
        #expect(columns.count == 1, "names start in one column: \(formats)")
    }
}
