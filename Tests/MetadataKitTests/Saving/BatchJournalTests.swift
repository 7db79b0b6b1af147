import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

@Suite struct BatchJournalTests {
    @Test func aBatchJournalLinkedUnderTwoNamesRecoversEachFile() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let original: [UInt8] = Array(repeating: 0x11, count: 100)
        var urls: [URL] = []
        var entries: [(name: String, journal: EditJournal)] = []
        for name in ["one.bin", "two.bin"] {
            let url = directory.appendingPathComponent(name)
            try Data(original).write(to: url)
            urls.append(url)
            entries.append((name, EditJournal(fileSize: 100, regions: [(offset: 10, bytes: Array(original[10..<20]))])))
        }
        let batch = directory.appendingPathComponent(".mdkit-batch-test")
        try Data(EditJournal.encodeBatch(entries)).write(to: batch)
        for url in urls {
            #expect(link(batch.path, EditJournal.path(for: url.path)) == 0)
            var patched = original
            patched[10..<20] = ArraySlice(repeating: 0xEE, count: 10)
            try Data(patched + [1, 2, 3]).write(to: url) // half-applied: new bytes and a longer file
        }
        unlink(batch.path)
        for url in urls {
            try FileEditor.recoverIfNeeded(at: url)
            #expect([UInt8](try Data(contentsOf: url)) == original)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["one.bin", "two.bin"])
        #expect(EditJournal.decode(EditJournal.encodeBatch(entries), fileName: "three.bin") == nil)
    }
}
