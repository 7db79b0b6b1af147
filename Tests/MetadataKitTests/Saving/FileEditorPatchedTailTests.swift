import Foundation
import Testing

@testable import MetadataKit

@Suite struct FileEditorPatchedTailTests {
    /// A header patch plus a tail replacement (RIFF/AIFF tags after the
    /// audio): both land, and a failed check puts back the patched bytes,
    /// the old tail and the old size.
    @Test func patchedTailAppliesAndRollsBackBothParts() throws {
        let original: [UInt8] = (0..<1000).map { UInt8($0 % 251) }
        for newTail in [[UInt8](repeating: 7, count: 300), [UInt8](repeating: 9, count: 10), []] {
            let directory = try TestSupport.makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("x.wav")
            try Data(original).write(to: url)
            let plan = FileEditPlan.patchedTail(patches: [(offset: 4, bytes: [1, 2, 3, 4])], offset: 900, bytes: newTail)
            #expect(plan.newSize(originalSize: 1000) == 900 + Int64(newTail.count))
            try FileEditor().apply(plan, to: url, expecting: try FileSource(url: url).snapshot) { _ in }
            var expected = Array(original[..<900]) + newTail
            expected[4..<8] = [1, 2, 3, 4]
            #expect([UInt8](try Data(contentsOf: url)) == expected)
            #expect(
                FileEditPlan.coalesced(plan.segments(originalSize: 1000))
                    == FileEditPlan.coalesced(
                        [.original(offset: 0, length: 4), .bytes([1, 2, 3, 4]), .original(offset: 8, length: 892), .bytes(newTail)]))

            try Data(original).write(to: url)
            #expect(throws: MediaError.self) {
                try FileEditor().apply(plan, to: url, expecting: try FileSource(url: url).snapshot) { _ in
                    throw MediaError(.malformed, "bad")
                }
            }
            #expect([UInt8](try Data(contentsOf: url)) == original)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["x.wav"])
            // A patch that overlaps the tail is refused before anything is written.
            let overlapping = FileEditPlan.patchedTail(patches: [(offset: 899, bytes: [0, 0])], offset: 900, bytes: newTail)
            #expect(throws: MediaError.self) {
                try FileEditor().apply(overlapping, to: url, expecting: try FileSource(url: url).snapshot) { _ in }
            }
            #expect([UInt8](try Data(contentsOf: url)) == original)
        }
    }
}
