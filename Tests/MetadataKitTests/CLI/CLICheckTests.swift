import Foundation
import Testing

@testable import MetadataKit

/// `mdkit check`, run as a process: output, exit status, --fix and --dry-run.
@Suite(.enabled(if: Capabilities.mdkit && CheckFixtures.available, "needs the mdkit binary, ffmpeg and mutagen"))
struct CLICheckTests {
    typealias F = CheckFixtures

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    @Test func exitStatusSaysCleanFindingsUsageOrUnreadable() throws {
        let folder = try F.folder()
        let clean = try F.mp3("clean.mp3", in: folder)
        let noise = folder.appendingPathComponent("noise.mp3")
        try Data("not audio at all".utf8).write(to: noise)
        let v1 = try F.v1Disagreeing(in: folder)

        let ok = try mdkit(["check", clean.path])
        #expect(ok.status == 0)
        #expect(ok.text == "")
        #expect(ok.standardError == "checked 1 file: 0 with findings, 0 findings (0 fixable)\n")

        let found = try mdkit(["check", v1.path])
        #expect(found.status == 1)
        #expect(found.text.hasPrefix("\(v1.path): warning id3.v1-disagrees at byte "))
        #expect(found.text.hasSuffix("(fixable)\n"))

        let unreadable = try mdkit(["check", clean.path, noise.path, v1.path])
        #expect(unreadable.status == 3)
        #expect(unreadable.standardError.contains("\(noise.path): error: "))
        #expect(!unreadable.text.contains("error"))

        for arguments in [
            ["check"], ["check", "--dry-run", clean.path], ["check", "--fix=no.such-code", clean.path],
            ["check", "--json", "--jsonl", clean.path], ["check", "--bogus", clean.path],
        ] {
            #expect(try mdkit(arguments).status == 2, "\(arguments)")
        }
        #expect(try mdkit(["check", "--help"]).text.contains("--fix=CODE"))
    }

    @Test func folderSummaryCountsByCode() throws {
        let folder = try F.folder()
        _ = try F.v1Disagreeing(in: folder)
        _ = try F.mimeMismatch("flac", in: folder)
        _ = try F.stacked("differ.mp3", secondTitle: "Old title", in: folder)
        let output = try mdkit(["check", folder.path])
        #expect(output.status == 1)
        // The stacked fixture's base file is sound; cover.jpg is not a media file.
        #expect(output.standardError.hasPrefix("checked 4 files: 3 with findings, 3 findings (2 fixable)\n"), "\(output.standardError)")
        #expect(output.standardError.contains("  id3.stacked            1\n"))
        #expect(output.standardError.contains("  id3.v1-disagrees       1 (1 fixable)\n"))
        #expect(output.standardError.contains("  picture.mime-mismatch  1 (1 fixable)\n"))
        #expect(output.text.contains("(not fixable: merging would drop the later tag's TIT2"))
    }

    @Test func jsonListsFindingsAndRepairs() throws {
        let folder = try F.folder()
        let url = try F.v1Disagreeing(in: folder)
        let output = try mdkit(["check", "--json", "--fix", url.path])
        #expect(output.status == 0, "every finding repaired: \(output.standardError)")
        let objects = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let object = try #require(objects.first)
        #expect(object["path"] as? String == url.path)
        let finding = try #require((object["findings"] as? [[String: Any]])?.first)
        #expect(finding["code"] as? String == "id3.v1-disagrees")
        #expect(finding["severity"] as? String == "warning")
        #expect(finding["fixable"] as? Bool == true)
        #expect(finding["byteOffset"] as? Int != nil)
        #expect((object["repairs"] as? [[String: Any]])?.map { $0["code"] as? String } == ["id3.v1-disagrees", "id3.v1-disagrees"])
        #expect(object["dryRun"] as? Bool == false)
        #expect((object["remaining"] as? [Any])?.isEmpty == true)

        let lines = try mdkit(["check", "--jsonl", url.path, url.path])
        #expect(lines.status == 0)
        #expect(lines.text.split(separator: "\n").count == 2)
    }

    @Test func dryRunShowsChangesAndWritesNothing() throws {
        let folder = try F.folder()
        let url = try F.v1Disagreeing(in: folder)
        let bytes = try Data(contentsOf: url)
        let output = try mdkit(["check", "--fix", "--dry-run", url.path])
        #expect(output.status == 1)
        #expect(output.text.contains("\(url.path): would fix id3.v1-disagrees: id3v1:title 'Old Title' → 'New Title'\n"))
        #expect(output.standardError.contains("would repair 1 file (2 changes)"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func fixRepairsOnlyTheCodesAsked() throws {
        let folder = try F.folder()
        // A file with both an ID3v1 out of step and a cover declared as PNG.
        let url = try F.v1Disagreeing(in: folder)
        try F.python(
            """
            import sys
            from mutagen.id3 import ID3, APIC
            v1 = open(sys.argv[1], 'rb').read()[-128:]
            t = ID3(sys.argv[1]); t.add(APIC(encoding=3, mime='image/png', type=3, desc='', data=open('cover.jpg', 'rb').read()))
            t.save(v1=0)
            open(sys.argv[1], 'ab').write(v1)
            """, in: folder, [url.path])
        let before = try F.streamHash(url)
        let output = try mdkit(["check", "--fix=picture.mime-mismatch", url.path])
        #expect(output.status == 1, "the ID3v1 finding is left")
        #expect(output.text.contains("fixed picture.mime-mismatch"))
        #expect(output.text.contains("warning id3.v1-disagrees"))
        #expect(try F.mutagenPicture(url, in: folder).mime == "image/jpeg")
        #expect(try F.streamHash(url) == before)
        let again = try mdkit(["check", "--fix", url.path])
        #expect(again.status == 0)
        #expect(try mdkit(["check", url.path]).status == 0)
    }
}
