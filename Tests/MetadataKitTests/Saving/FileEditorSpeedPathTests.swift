import Foundation
import Testing

@testable import MetadataKit

/// The editor's short cuts: merged patches, small layout changes done in
/// place without fsync, and the cached journal lookup on load. Each must give
/// the same file, and the same safety, as the long way.
@Suite struct FileEditorSpeedPathTests {
    let original: [UInt8] = (0..<8192).map { UInt8(($0 * 7) % 251) }

    func makeFile(_ bytes: [UInt8]? = nil) throws -> (URL, FileSnapshot) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let url = directory.appendingPathComponent("file.bin")
        try Data(bytes ?? original).write(to: url)
        return (url, try FileSource(url: url).snapshot)
    }

    func contents(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    func inode(_ url: URL) throws -> UInt64 {
        try FileSource(url: url).snapshot.inode
    }

    var noSync: FileEditor {
        var editor = FileEditor()
        editor.durability = .noSync
        return editor
    }

    @Test func nearbyPatchesMergeAndUnchangedOnesAreDropped() throws {
        let (url, snapshot) = try makeFile()
        let patches: [(offset: Int64, bytes: [UInt8])] = [
            (offset: 100, bytes: [1, 2]), (offset: 300, bytes: [3]), (offset: 90, bytes: [4, 4, 4, 4, 4]),
            (offset: 92, bytes: [5]), // overlaps the one before: applied after it
            (offset: 5000, bytes: Array(original[5000..<5010])), // changes nothing
            (offset: 8000, bytes: [6]),
        ]
        let descriptor = open(url.path, O_RDONLY)
        defer { close(descriptor) }
        let (originals, writes) = try FileEditor.journaledWrites(of: patches, newSize: nil, in: descriptor, size: 8192, url: url)
        #expect(writes.map(\.offset) == [90, 8000], "90...300 merged, the unchanged patch dropped")
        #expect(originals.map(\.offset) == [90, 8000])
        #expect(originals[0].bytes == Array(original[90..<301]))

        try FileEditor().apply(.inPlace(patches), to: url, expecting: snapshot) { _ in }
        var expected = original
        expected[90..<95] = [4, 4, 5, 4, 4]
        expected[100..<102] = [1, 2]
        expected[300] = 3
        expected[8000] = 6
        #expect(try contents(url) == expected)
    }

    @Test func aPatchThatChangesNothingLeavesTheFileUntouched() throws {
        let (url, snapshot) = try makeFile()
        try FileEditor().apply(.inPlace([(offset: 10, bytes: Array(original[10..<20]))]), to: url, expecting: snapshot) { _ in
            Issue.record("nothing was written, so nothing is checked")
        }
        #expect(try FileSource(url: url).snapshot == snapshot, "not even the modification time changed")
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aSmallLayoutChangeWithoutSyncIsDoneInPlace() throws {
        let (url, snapshot) = try makeFile()
        let inode = try inode(url)
        // A tag that grows by 100 bytes at offset 16: everything after it moves.
        let plan = FileEditPlan.rewrite([
            .original(offset: 0, length: 16), .bytes(Array(repeating: 0xAB, count: 116)),
            .original(offset: 32, length: 8160),
        ])
        try noSync.apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(try contents(url) == Array(original[..<16]) + Array(repeating: 0xAB, count: 116) + Array(original[32...]))
        #expect(try self.inode(url) == inode, "same inode: written in place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["file.bin"])
    }

    @Test(
        .enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"),
        arguments: [FileEditor.Step.journalWrite, .patchWrite, .dataSync])
    func aFailedSmallLayoutChangeLeavesTheOriginal(step: FileEditor.Step) throws {
        let (url, snapshot) = try makeFile()
        var editor = noSync
        editor.failingStep = step
        let plan = FileEditPlan.rewrite([.bytes([1, 2, 3]), .original(offset: 0, length: 8192)])
        #expect(throws: MediaError.self) { try editor.apply(plan, to: url, expecting: snapshot) { _ in } }
        #expect(try contents(url) == original, "step \(step)")
        // A failed check also puts back the old tail and size.
        #expect(throws: MediaError.self) {
            try noSync.apply(plan, to: url, expecting: snapshot) { _ in throw MediaError(.malformed, "bad") }
        }
        #expect(try contents(url) == original)
    }

    @Test func aLayoutChangeWithSyncOrOfMoreThanTheLimitGoesThroughATemporaryFile() throws {
        let (url, snapshot) = try makeFile()
        let inode = try inode(url)
        let plan = FileEditPlan.rewrite([.bytes([1]), .original(offset: 0, length: 8192)])
        try FileEditor().apply(plan, to: url, expecting: snapshot) { _ in }
        #expect(try contents(url) == [1] + original)
        #expect(try self.inode(url) != inode, "fsync: rewritten")

        let big = [UInt8](repeating: 3, count: Int(FileEditor.smallTailLimit) + 1)
        let (large, largeSnapshot) = try makeFile(big)
        let largeInode = try self.inode(large)
        try noSync.apply(
            .rewrite([.bytes([1]), .original(offset: 0, length: Int64(big.count))]), to: large,
            expecting: largeSnapshot
        ) { _ in }
        #expect(try contents(large) == [1] + big)
        #expect(try self.inode(large) != largeInode, "a tail over the limit: rewritten")
    }

    /// In a batch, a small layout change made in place whose check fails gets
    /// its old tail and size back from the batch journal; the other file keeps
    /// its change.
    @Test func aBatchRestoresASmallLayoutChangeWhoseCheckFails() throws {
        let (first, firstSnapshot) = try makeFile()
        let (second, secondSnapshot) = try makeFile()
        let plan = FileEditPlan.rewrite([.original(offset: 0, length: 100), .bytes([1, 2, 3]), .original(offset: 100, length: 8092)])
        let results = FileEditor().applyBatch([
            FileEditor.BatchEdit(plan: plan, url: first, snapshot: firstSnapshot, verify: { _ in throw MediaError(.malformed, "bad") }),
            FileEditor.BatchEdit(plan: plan, url: second, snapshot: secondSnapshot, verify: { _ in }),
        ])
        #expect((try? results[0].get()) == nil && (try? results[1].get()) != nil)
        #expect(try contents(first) == original)
        #expect(try contents(second) == Array(original[..<100]) + [1, 2, 3] + Array(original[100...]))
    }

    /// Journals store fingerprints: the function must not change between
    /// versions (a journal left by a crash is read by the next version), and
    /// must see every byte.
    @Test func fingerprintsAreStableAndSeeEveryByte() {
        let bytes = (0..<100).map { UInt8($0 * 7 % 256) }
        let pinned = [Fingerprint.of([UInt8]()), Fingerprint.of(Array(bytes[..<3])), Fingerprint.of(bytes)]
        #expect(pinned == [0xEF7289FC8777A981, 0x87E3D07750E9849B, 0xE3195D22CAE5A7C8])
        var seen: Set<UInt64> = [Fingerprint.of(bytes)]
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 1
            seen.insert(Fingerprint.of(changed))
        }
        seen.insert(Fingerprint.of(bytes + [0]))
        #expect(seen.count == bytes.count + 2, "every one-bit change and a trailing zero change the fingerprint")
    }

    @Test func divergenceSkipsTheUnchangedStart() {
        let plan = FileEditPlan.rewrite([
            .original(offset: 0, length: 10), .original(offset: 10, length: 5),
            .bytes([1]), .original(offset: 15, length: 100),
        ])
        let found = plan.divergence()
        #expect(found?.offset == 15 && found?.rest.count == 2)
        #expect(FileEditPlan.rewrite([.original(offset: 5, length: 10)]).divergence()?.offset == 0)
        #expect(FileEditPlan.inPlace([]).divergence() == nil)
    }

    /// A folder listed once is trusted only while unchanged and only when its
    /// last change is old enough; a journal made later is still found.
    @Test func journalLookupSeesJournalsMadeAfterTheListing() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lookup = JournalLookup()
        let name = ".song.mp3.mdkit-journal"
        #expect(!lookup.exists(directory: directory.path, name: name), "new folder: checked directly")
        Thread.sleep(forTimeInterval: JournalLookup.racyInterval + 0.2)
        #expect(!lookup.exists(directory: directory.path, name: name), "listed now")
        #expect(!lookup.exists(directory: directory.path, name: name), "from the listing")
        try Data([1]).write(to: directory.appendingPathComponent(name))
        #expect(lookup.exists(directory: directory.path, name: name), "the folder changed: the new journal is seen")
        try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        #expect(!lookup.exists(directory: directory.path, name: name), "and its removal")
    }

    /// Lookups from several threads at once, over more folders than the cache
    /// keeps (so listings are closed while others are read): every answer is
    /// right. Seeded; the seed is in every failure message.
    @Test func concurrentJournalLookupsOverManyFoldersAreRight() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        let root = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let name = ".song.mp3.mdkit-journal"
        let folders = try (0..<(JournalLookup.capacity + 8)).map { index in
            let folder = root.appendingPathComponent("f\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            if index % 5 == 0 { try Data([1]).write(to: folder.appendingPathComponent(name)) }
            return folder.path
        }
        Thread.sleep(forTimeInterval: JournalLookup.racyInterval + 0.2) // old enough to be listed
        let lookup = JournalLookup()
        let wrong = NSLock()
        nonisolated(unsafe) var mistakes: [String] = []
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var generator = SplitMix64(state: seed &+ UInt64(thread))
            for _ in 0..<3000 {
                let index = Int(generator.next() % UInt64(folders.count))
                if lookup.exists(directory: folders[index], name: name) != (index % 5 == 0) {
                    wrong.withLock { mistakes.append("thread \(thread), folder \(index)") }
                }
            }
        }
        #expect(mistakes.isEmpty, "seed \(seed): \(mistakes.prefix(5))")
    }

    // MARK: RAM journal slots

    /// Writes a slot as a process that then died would have left it.
    func leaveSlot(for url: URL, journal: [UInt8]?, in store: VolatileJournalStore) throws -> String {
        let snapshot = try FileSource(url: url).snapshot
        var writer = ByteWriter()
        if let journal {
            writer.write(VolatileJournalStore.magic)
            writer.write(UInt32(1))
            writer.write(snapshot.device)
            writer.write(snapshot.inode)
            writer.write(UInt64(journal.count))
            writer.write(journal)
        } else {
            writer.write([UInt8](repeating: 0, count: 40)) // cleared
        }
        let path = store.directory + "/mdkit-journal-slot-test\(UInt64.random(in: 0...UInt64.max))"
        try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aDeadProcesssSlotIsRecoveredOnLoad() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot) = try makeFile()
        // The dead process had patched bytes 10..<14 and grown the file by 4.
        let journal = EditJournal(fileSize: 8192, regions: [(offset: 10, bytes: Array(original[10..<14]))])
        var damaged = original
        damaged[10..<14] = [0xFF, 0xFF, 0xFF, 0xFF]
        try Data(damaged + [1, 2, 3, 4]).write(to: url)
        let slot = try leaveSlot(for: url, journal: journal.encoded(), in: store)
        #expect(try FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
        #expect(try contents(url) == original, "old bytes and old size back")
        #expect(!FileManager.default.fileExists(atPath: slot), "the slot is removed")
        #expect(try !FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func emptyAndTornSlotsOfDeadProcessesAreRemovedAndChangeNothing() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot) = try makeFile()
        let empty = try leaveSlot(for: url, journal: nil, in: store)
        var torn = EditJournal(fileSize: 8192, regions: [(offset: 0, bytes: [9, 9])]).encoded()
        torn[torn.count - 1] ^= 0xFF // checksum no longer matches
        let tornSlot = try leaveSlot(for: url, journal: torn, in: store)
        #expect(try !FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
        #expect(try contents(url) == original)
        #expect(!FileManager.default.fileExists(atPath: empty) && !FileManager.default.fileExists(atPath: tornSlot))
    }

    /// A file damaged by an interrupted save, and the slot its dead process left.
    func leaveInterruptedSave(in store: VolatileJournalStore) throws -> (URL, FileSnapshot, damaged: [UInt8], slot: String) {
        let (url, snapshot) = try makeFile()
        var damaged = original
        damaged[100..<102] = [0xEE, 0xEE]
        try Data(damaged).write(to: url)
        let journal = EditJournal(fileSize: 8192, regions: [(offset: 100, bytes: Array(original[100..<102]))])
        return (url, snapshot, damaged, try leaveSlot(for: url, journal: journal.encoded(), in: store))
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aSlotOtherLoadsAreLookingAtIsStillRecovered() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot, _, slot) = try leaveInterruptedSave(in: store)
        // Another load (of another file) asks whether the slot's process is gone, and is slow to let go.
        let looking = open(slot, O_RDONLY)
        try #require(looking >= 0 && flock(looking, LOCK_SH | LOCK_NB) == 0)
        let letGo = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            close(looking)
        }
        letGo.start()
        #expect(try FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot), "recovered, not taken for a live save")
        #expect(try contents(url) == original)
        #expect(!FileManager.default.fileExists(atPath: slot))
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func theSlotOfALiveProcessThatIsNotSavingIsLeftAloneWithoutWaiting() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot, damaged, slot) = try leaveInterruptedSave(in: store)
        defer { unlink(slot) }
        // Its process is alive (it holds the slot's lock) but could not clear the slot after its save.
        let alive = open(slot, O_RDONLY)
        try #require(alive >= 0 && flock(alive, LOCK_EX | LOCK_NB) == 0)
        defer { close(alive) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Bool?
        Thread {
            result = try? FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot)
            done.signal()
        }.start()
        try #require(done.wait(timeout: .now() + 10) == .success, "the load waited for a process that is not saving")
        #expect(result == false)
        #expect(try contents(url) == damaged, "not recovered while its process lives")
        #expect(FileManager.default.fileExists(atPath: slot))
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aSlotBeingMadeIsNeverTakenAndRemovedOnlyWhenItsMakerDiedMaking() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot) = try makeFile()
        let making = store.directory + "/" + VolatileJournalStore.newSlotPrefix + "test\(UInt64.random(in: 0...UInt64.max))"
        try Data().write(to: URL(fileURLWithPath: making)) // not locked yet
        defer { unlink(making) }
        #expect(try !FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
        #expect(FileManager.default.fileExists(atPath: making), "its maker may lock it any moment")
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try !FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
        #expect(!FileManager.default.fileExists(atPath: making), "unlocked for over a second: its maker died")
        // A slot this process makes is locked before it gets its slot name.
        let slot = try store.write(EditJournal(fileSize: 8192, regions: [(offset: 0, bytes: [1])]), device: 1, inode: 2, url: url)
        #expect(slot.name.hasPrefix(VolatileJournalStore.slotPrefix))
        let other = open(store.directory + "/" + slot.name, O_RDONLY)
        #expect(other >= 0 && flock(other, LOCK_SH | LOCK_NB) != 0, "held by its process")
        close(other)
        store.clear(slot)
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aSlotOfAnotherFileIsLeftAloneUntilThatFileIsLoaded() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, snapshot) = try makeFile()
        let (other, otherSnapshot) = try makeFile()
        var damaged = original
        damaged[0] = original[0] ^ 0xFF
        try Data(damaged).write(to: url)
        let journal = EditJournal(fileSize: 8192, regions: [(offset: 0, bytes: [original[0]])])
        let slot = try leaveSlot(for: url, journal: journal.encoded(), in: store)
        defer { unlink(slot) }
        for _ in 0..<2 { // the second time from what the first one saw
            #expect(try !FileEditor.recoverVolatileIfNeeded(path: other.path, snapshot: otherSnapshot))
            #expect(FileManager.default.fileExists(atPath: slot), "kept for its own file's next load")
        }
        #expect(try contents(other) == original && contents(url) == damaged)
        #expect(try FileEditor.recoverVolatileIfNeeded(path: url.path, snapshot: snapshot))
        #expect(try contents(url) == original)
        #expect(!FileManager.default.fileExists(atPath: slot))
    }

    @Test(.enabled(if: Capabilities.ramJournalStore, "needs the RAM journal folder (/dev/shm; Darwin: the per-user temporary folder)"))
    func aSlotHoldsTheJournalAndItsFilesIdentity() throws {
        let store = try #require(VolatileJournalStore.shared)
        let (url, _) = try makeFile()
        let journal = EditJournal(fileSize: 8192, regions: [(offset: 3, bytes: [7, 7])])
        let slot = try store.write(journal, device: 0x1122, inode: 0x3344, url: url)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store.directory + "/" + slot.name)))
        store.clear(slot)
        var reader = ByteReader(bytes)
        #expect(try reader.readBytes(4) == VolatileJournalStore.magic && reader.readUInt32() == 1)
        #expect(try reader.readUInt64() == 0x1122 && reader.readUInt64() == 0x3344)
        let length = Int(try reader.readUInt64())
        #expect(EditJournal(decoding: try reader.readBytes(length)) == journal)
        // Saves without fsync leave the file as planned.
        for round in 0..<3 {
            let (file, snapshot) = try makeFile()
            try noSync.apply(.inPlace([(offset: 5, bytes: [UInt8(round)])]), to: file, expecting: snapshot) { _ in }
            #expect(try contents(file)[5] == UInt8(round))
        }
    }
}
