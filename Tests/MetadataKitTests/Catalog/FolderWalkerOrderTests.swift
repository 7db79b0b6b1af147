import Foundation
import MetadataKit
import Testing

@testable import MetadataKitCatalog

/// The walk's name order is byte order (the catalog's `ORDER BY path`, which
/// the run-at-a-time lookup relies on), as `LC_ALL=C ls` sorts: names that
/// are prefixes of others, digits and dots around them, and multi-byte UTF-8.
@Suite struct FolderWalkerOrderTests {
    @Test func namesComeInByteOrderAsCLocaleLsSortsThem() throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        var generator = SplitMix64(state: seed)
        var names: Set<String> = ["a", "a.mp3", "a0", "a-", "ab", "A", "Z", "é", "e", "f", "東京", "東", "ä.mp3", "a b", "~x", "0"]
        let alphabet = Array("aAbB0.-_ éü東✓")
        while names.count < 300 {
            names.insert(String((0..<Int.random(in: 1...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        names = names.filter { $0 != "." && $0 != ".." }
        if !Capabilities.caseSensitiveTemporaryFolder {
            // APFS, HFS+: `a` and `A` would be one file; keep one name of each such group.
            var seen = Set<String>()
            names = names.filter { seen.insert($0.lowercased()).inserted }
        }
        let root = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in names { #expect(FileManager.default.createFile(atPath: root.appendingPathComponent(name).path, contents: Data())) }
        let walked = try #require(FolderWalker.entries(of: root.path))
        let expected = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(walked == expected, "seed \(seed)")
        if TestSupport.hasTool("ls") {
            // GNU ls quotes names on request only; BSD ls (Darwin) prints them as they are when not on a terminal.
            let options = Capabilities.gnuLs ? ["-1a", "--quoting-style=literal"] : ["-1a"]
            let listed = try TestSupport.runChecked("env", ["LC_ALL=C", "ls"] + options + [root.path]).text
            let lines = listed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter {
                !$0.isEmpty && $0 != "." && $0 != ".."
            }
            #expect(walked == lines, "seed \(seed)")
        }
    }
}
