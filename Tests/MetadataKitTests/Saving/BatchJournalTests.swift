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

    /// A batch journal's parts are made one by one and its checksum over
    /// them in pieces: entries of sizes that don't fall on the fingerprint's
    /// 32-byte blocks must decode, each under its own name.
    @Test func aBatchOfOddSizedJournalsDecodesEveryEntry() {
        var entries: [(name: String, journal: EditJournal)] = []
        for index in 0..<7 {
            let bytes = (0..<(index * 13 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            entries.append(("inode-\(1000 + index)", EditJournal(fileSize: 4096, regions: [(offset: Int64(index * 100), bytes: bytes)])))
        }
        let batch = EditJournal.encodeBatch(entries)
        for entry in entries {
            #expect(EditJournal.decode(batch, fileName: entry.name) == entry.journal, "\(entry.name)")
        }
        var torn = batch
        torn[torn.count / 2] ^= 0x40
        #expect(EditJournal.decode(torn, fileName: entries[0].name) == nil, "a changed byte fails the batch's checksum")
    }

    /// The fingerprint of bytes given in pieces is that of the bytes joined,
    /// however they are cut (the batch journal's checksum is made so).
    @Test func aFingerprintInPiecesEqualsTheWhole() {
        let seed = UInt64(Date().timeIntervalSince1970) % 100_000
        var random = SplitMix64(state: seed)
        for length in [0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100, 257, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            for _ in 0..<20 {
                var stream = Fingerprint.Stream()
                var start = 0
                while start < length {
                    let end = min(length, start + Int(random.next() % 70))
                    bytes[start..<end].withUnsafeBytes { stream.update($0) }
                    start = end
                }
                #expect(stream.finish() == Fingerprint.of(bytes), "length \(length), seed \(seed)")
            }
        }
    }
}
