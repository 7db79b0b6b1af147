import Foundation
import Testing

@testable import MetadataKit

@Suite struct FileEditorTailTests {
    @Test func tailReplacementGrowsAndShrinksAndRollsBack() throws {
        let original: [UInt8] = (0..<1000).map { UInt8($0 % 251) }
        for newTail in [[UInt8](repeating: 7, count: 300), [UInt8](repeating: 9, count: 10)] {
            let directory = try TestSupport.makeTemporaryDirectory()
            let url = directory.appendingPathComponent("movie.mp4")
            try Data(original).write(to: url)
            let snapshot = try FileSource(url: url).snapshot
            try FileEditor().apply(.tail(offset: 900, bytes: newTail), to: url, expecting: snapshot) { _ in }
            #expect([UInt8](try Data(contentsOf: url)) == Array(original[..<900]) + newTail)
            // A failed check puts the old tail and size back.
            try Data(original).write(to: url)
            let again = try FileSource(url: url).snapshot
            #expect(throws: MediaError.self) {
                try FileEditor().apply(.tail(offset: 900, bytes: newTail), to: url, expecting: again) { _ in
                    throw MediaError(.malformed, "bad")
                }
            }
            #expect([UInt8](try Data(contentsOf: url)) == original)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["movie.mp4"])
        }
    }
}
