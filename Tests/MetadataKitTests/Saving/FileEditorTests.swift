import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

@Suite struct FileEditorTests {
    let original: [UInt8] = (0..<4096).map { UInt8($0 % 251) }

    func makeFile() throws -> (URL, FileSnapshot) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.bin")
        try Data(original).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        return (url, try FileSource(url: url).snapshot)
    }

    func contents(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    func strayFiles(beside url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0 != url.lastPathComponent }
    }

    @Test func inPlacePatchChangesOnlyThePatchedBytes() throws {
        let (url, snapshot) = try makeFile()
        try FileEditor().apply(
            .inPlace([(offset: 10, bytes: [1, 2, 3]), (offset: 4000, bytes: [9])]),
            to: url, expecting: snapshot
        ) { _ in }
        var expected = original
        expected[10...12] = [1, 2, 3]
        expected[4000] = 9
        #expect(try contents(url) == expected)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test func rewriteKeepsPermissionsAndCopiesSegments() throws {
        let (url, snapshot) = try makeFile()
        let plan = FileEditPlan.rewrite([.bytes([7, 7]), .original(offset: 100, length: 50), .bytes([8])])
        try FileEditor().apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(try contents(url) == [7, 7] + original[100..<150] + [8])
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o640)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test(arguments: FileEditor.Step.allCases)
    func failureAtAnyStepLeavesTheOriginal(step: FileEditor.Step) throws {
        for plan in [
            FileEditPlan.inPlace([(offset: 5, bytes: [0xEE, 0xEE])]), .rewrite([.bytes([1]), .original(offset: 0, length: 4096)]),
        ] {
            let (url, snapshot) = try makeFile()
            var editor = FileEditor()
            editor.failingStep = step
            let applies: Bool =
                switch (plan, step) {
                case (.inPlace, .journalWrite), (.inPlace, .journalSync), (.inPlace, .patchWrite), (.inPlace, .dataSync): true
                case (.rewrite, .temporaryWrite), (.rewrite, .temporarySync), (.rewrite, .rename): true
                default: false
                }
            if applies {
                #expect(throws: MediaError.self) { try editor.apply(plan, to: url, expecting: snapshot) { _ in } }
                #expect(try contents(url) == original, "step \(step)")
                #expect(try strayFiles(beside: url).isEmpty, "step \(step)")
            }
        }
    }

    @Test func failedVerificationRestoresTheOriginal() throws {
        for plan in [FileEditPlan.inPlace([(offset: 5, bytes: [0xEE])]), .rewrite([.bytes([1])])] {
            let (url, snapshot) = try makeFile()
            let error = #expect(throws: MediaError.self) {
                try FileEditor().apply(plan, to: url, expecting: snapshot) { _ in
                    throw MediaError(.malformed, "bad box")
                }
            }
            #expect(error?.code == .verificationFailed)
            #expect(try contents(url) == original)
            #expect(try strayFiles(beside: url).isEmpty)
        }
    }

    @Test func aFileChangedSinceLoadIsRefused() throws {
        let (url, snapshot) = try makeFile()
        try Data(original + [1]).write(to: url)
        let error = #expect(throws: MediaError.self) {
            try FileEditor().apply(.inPlace([(offset: 0, bytes: [1])]), to: url, expecting: snapshot) { _ in }
        }
        #expect(error?.code == .fileChanged)
    }

    @Test(.enabled(if: getuid() != 0, "root may write any file"))
    func aReadOnlyFileIsRefused() throws {
        let (url, snapshot) = try makeFile()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        let error = #expect(throws: MediaError.self) {
            try FileEditor().apply(.inPlace([(offset: 0, bytes: [1])]), to: url, expecting: snapshot) { _ in }
        }
        #expect(error?.code == .readOnly)
    }

    @Test func aCompleteJournalIsRolledBackAfterACrash() throws {
        let (url, _) = try makeFile()
        // What a crash between patching and cleanup leaves: a journal and a patched file.
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 100, bytes: Array(original[100..<110]))])
        try Data(journal.encoded()).write(to: EditJournal.url(for: url))
        var patched = original
        patched[100..<105] = [0, 0, 0, 0, 0]
        try Data(patched).write(to: url)
        try FileEditor.recoverIfNeeded(at: url)
        #expect(try contents(url) == original)
        #expect(try strayFiles(beside: url).isEmpty)
    }

    @Test func aTornJournalIsDiscardedAndTheFileKept() throws {
        let (url, _) = try makeFile()
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 100, bytes: [0, 0, 0, 0])]).encoded()
        for cut in [0, 10, journal.count - 1] {
            try Data(journal[..<cut]).write(to: EditJournal.url(for: url))
            try FileEditor.recoverIfNeeded(at: url)
            #expect(try contents(url) == original)
            #expect(try strayFiles(beside: url).isEmpty)
        }
    }

    @Test func journalRoundTrips() {
        let journal = EditJournal(fileSize: 99, regions: [(offset: 3, bytes: [1, 2]), (offset: 50, bytes: [])])
        #expect(EditJournal(decoding: journal.encoded()) == journal)
        let withNewBytes = EditJournal(
            fileSize: 99, regions: [(offset: 3, bytes: [1, 2])], written: [(offset: 3, bytes: [5, 6, 7])],
            newSize: 100)
        #expect(EditJournal(decoding: withNewBytes.encoded()) == withNewBytes)
        #expect(EditJournal(decoding: withNewBytes.encoded()) != journal)
    }

    /// A version 2 journal knows what the save wrote, sector by sector: a
    /// file whose sectors each hold the old or the new bytes (the save was cut
    /// at a page or sector boundary) is restored; a file someone changed after
    /// the crash (or a write torn inside a sector) is left as it is, and the
    /// journal goes.
    @Test func aJournalIsOnlyAppliedToTheFileItsSaveLeft() throws {
        let old = Array(original[500..<1600]), new = (0..<1100).map { UInt8(($0 * 13 + 7) % 256) }
        let journal = EditJournal(fileSize: 4096, regions: [(offset: 500, bytes: old)], written: [(offset: 500, bytes: new)])
        func mix(newUpTo cut: Int) -> [UInt8] { Array(new[..<cut]) + Array(old[cut...]) }
        var foreign = new
        foreign[700] ^= 0xFF
        for (state, restored) in [
            (mix(newUpTo: 12), true), (mix(newUpTo: 524), true), (new, true), (old, true),
            (mix(newUpTo: 300), false), (foreign, false),
        ] {
            let (url, _) = try makeFile()
            var file = original
            file[500..<1600] = state[...]
            try Data(file).write(to: url)
            try Data(journal.encoded()).write(to: EditJournal.url(for: url))
            try FileEditor.recoverIfNeeded(at: url)
            #expect(try contents(url) == (restored ? original : file))
            #expect(try strayFiles(beside: url).isEmpty)
        }
        // A file of another size than the save's old and new ones is another file.
        let (url, _) = try makeFile()
        try Data(original + [0]).write(to: url)
        try Data(journal.encoded()).write(to: EditJournal.url(for: url))
        try FileEditor.recoverIfNeeded(at: url)
        #expect(try contents(url) == original + [0])
    }

    /// A tail replacement interrupted at a page or sector boundary — the file
    /// between its old and new size, the new tail partly written, or (after a
    /// power cut) new space still zero — is rolled back; so is a shrinking one.
    @Test func anInterruptedTailReplacementIsRolledBack() throws {
        let oldTail = Array(original[4000...]), newTail = [UInt8](repeating: 0xAB, count: 300)
        let growing = EditJournal(
            fileSize: 4096, regions: [(offset: 4000, bytes: oldTail)],
            written: [(offset: 4000, bytes: newTail)], newSize: 4300)
        let grown = Array(original[..<4000]) + newTail
        let states: [[UInt8]] = [
            original, // nothing written yet
            Array(original[..<4000]) + Array(newTail[..<96]), // first sector written
            grown, // all written, not yet cleaned up
            Array(original[..<4000]) + Array(newTail[..<96]) + [UInt8](repeating: 0, count: 204), // power cut: zeros
        ]
        for state in states {
            let (url, _) = try makeFile()
            try Data(state).write(to: url)
            try Data(growing.encoded()).write(to: EditJournal.url(for: url))
            try FileEditor.recoverIfNeeded(at: url)
            #expect(try contents(url) == original, "\(state.count) bytes")
        }
        let shrinking = EditJournal(
            fileSize: 4096, regions: [(offset: 1000, bytes: Array(original[1000...]))],
            written: [(offset: 1000, bytes: [1, 2, 3])], newSize: 1003)
        var cut = original
        cut[1000..<1003] = [1, 2, 3]
        for state in [cut, Array(cut[..<1003])] { // before and after the truncation
            let (url, _) = try makeFile()
            try Data(state).write(to: url)
            try Data(shrinking.encoded()).write(to: EditJournal.url(for: url))
            try FileEditor.recoverIfNeeded(at: url)
            #expect(try contents(url) == original, "\(state.count) bytes")
        }
    }

    @Test func sectorsOfARegionFollowTheFilesSectors() {
        #expect(EditJournal.blocks(at: 500, length: 1100) == [0..<12, 12..<524, 524..<1036, 1036..<1100])
        #expect(EditJournal.blocks(at: 1024, length: 512) == [0..<512])
        #expect(EditJournal.blocks(at: 7, length: 0).isEmpty)
    }

    @Test func saveToAnotherFileLeavesTheOriginal() throws {
        let (url, snapshot) = try makeFile()
        let destination = url.deletingLastPathComponent().appendingPathComponent("copy.bin")
        try FileEditor().write(.inPlace([(offset: 1, bytes: [0xAA])]), from: url, expecting: snapshot, to: destination) { _ in }
        var expected = original
        expected[1] = 0xAA
        #expect(try contents(destination) == expected)
        #expect(try contents(url) == original)
    }
}
