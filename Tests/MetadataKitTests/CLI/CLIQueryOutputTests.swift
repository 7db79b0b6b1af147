import Foundation
import Testing

@testable import MetadataKit

/// `mdkit query`, `tracks` and `annotate` follow the conventions of every
/// command (README, CLI section): `--json` one array, `--jsonl` one object a
/// line, SQL types kept, one statement, `--quiet` wherever there is progress.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) struct CLIQueryOutputTests {
    func mdkit(_ arguments: [String], in directory: URL) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments, in: directory)
    }

    /// A folder with sample.m4a scanned into c.sqlite.
    func catalog() throws -> URL {
        let folder = try TestSupport.makeTemporaryDirectory()
        try FileManager.default.copyItem(
            at: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"), to: folder.appendingPathComponent("sample.m4a"))
        let scan = try mdkit(["scan", "--quiet", "--db", "c.sqlite", "."], in: folder)
        #expect(scan.status == 0, "\(scan.standardError)")
        return folder
    }

    @Test func jsonIsOneArrayWithSQLTypesAndJSONLinesOneObjectALine() throws {
        let folder = try catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sql = "select 1 as i, 2.5 as r, null as n, 'x\"\n' as t, x'00ff10' as b, track_number, duration from files"
        let json = try mdkit(["query", "--db", "c.sqlite", "--json", sql], in: folder)
        #expect(json.status == 0, "\(json.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [[String: Any]], "\(json.text)")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(json.text.contains("\"i\": 1,") && json.text.contains("\"track_number\": 3,"), "numbers, not strings: \(json.text)")
        #expect(row["r"] as? Double == 2.5)
        #expect(row["n"] is NSNull)
        #expect(row["t"] as? String == "x\"\n")
        #expect(row["b"] as? String == Data([0, 0xFF, 0x10]).base64EncodedString())
        #expect(row["track_number"] as? Int == 3, "\(json.text)")
        #expect(row.keys.contains("duration"))
        // --jsonl: one object per line.
        let lines = try mdkit(["query", "--db", "c.sqlite", "--jsonl", "select 1 as a union all select 2 order by 1"], in: folder)
        #expect(lines.status == 0)
        #expect(lines.text == "{\"a\":1}\n{\"a\":2}\n")
        let empty = try mdkit(["query", "--db", "c.sqlite", "--json", "select 1 as a where 0"], in: folder)
        #expect(empty.text == "[]\n")
        #expect(try mdkit(["query", "--db", "c.sqlite", "--json", "--jsonl", "select 1"], in: folder).status == 2)
    }

    @Test func moreThanOneStatementIsRefused() throws {
        let folder = try catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let two = try mdkit(["query", "--db", "c.sqlite", "select 1; delete from files"], in: folder)
        #expect(two.status == 2)
        #expect(two.text.isEmpty)
        #expect(two.standardError.contains("one SQL statement"), "\(two.standardError)")
        let count = try mdkit(["query", "--db", "c.sqlite", "select count(*) from files"], in: folder)
        #expect(count.text == "count(*)\n1\n", "the second statement did not run")
        // A trailing semicolon or comment is still one statement.
        #expect(try mdkit(["query", "--db", "c.sqlite", "select 7; -- done"], in: folder).text == "7\n7\n")
    }

    @Test func tableShowsTabsAndLineBreaksInValues() throws {
        let folder = try catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let table = try mdkit(["query", "--db", "c.sqlite", "select 'a\tb\nc' as v, 2.5 as r, null as n, x'0001' as b"], in: folder)
        #expect(table.status == 0)
        #expect(table.text == "v\tr\tn\tb\na\\tb\\nc\t2.5\t\tAAE=\n")
    }

    @Test func tracksHasJSONLinesAndAnnotateHasQuiet() throws {
        let folder = try catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try mdkit(["tracks", "--jsonl", "sample.m4a", "missing.mp4"], in: folder)
        #expect(lines.status == 1)
        let objects = lines.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 2 && lines.text.split(separator: "\n").count == 2, "\(lines.text)")
        #expect(objects.first?["path"] as? String == "sample.m4a")
        #expect(objects.last?["error"] is String)
        let json = #"{"groups": [{"start": 0, "duration": 0.5, "items": [{"identifier": "mdta/x", "dataType": "UTF-8", "value": "a"}]}]}"#
        try Data(json.utf8).write(to: folder.appendingPathComponent("a.json"))
        let annotate = try mdkit(["annotate", "sample.m4a", "o.m4a", "--annotations", "a.json", "--describes", "1", "--quiet"], in: folder)
        #expect(annotate.status == 0, "\(annotate.standardError)")
        #expect(annotate.standardError.isEmpty)
    }
}
