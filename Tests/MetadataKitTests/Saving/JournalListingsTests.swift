import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitSaving

/// Loads of a process that only reads ask a listing of the folder whether an
/// interrupted save left a journal (``JournalListings``): it must see every
/// journal that was there when it was made, nothing that is not one, and stop
/// answering after its lifetime; a large folder is listed only once enough of
/// its files were loaded.
@Suite struct JournalListingsTests {
    /// A clock the test moves (nanoseconds).
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var time: UInt64 = 1_000_000_000
        var now: UInt64 { lock.withLock { time } }
        func advance(by nanoseconds: UInt64) { lock.withLock { time += nanoseconds } }
    }

    func listings(_ clock: TestClock, enabled: Bool = true) -> JournalListings {
        let listings = JournalListings(now: { clock.now })
        listings.isEnabled = enabled
        return listings
    }

    func folder(holding names: [String]) throws -> URL {
        let directory = try TestSupport.makeTemporaryDirectory()
        for name in names { try Data("x".utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    @Test func nothingIsListedUntilEnabled() throws {
        let directory = try folder(holding: [".inode-5.mdkit-journal"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let off = listings(TestClock(), enabled: false)
        for _ in 0..<40 { #expect(off.journals(in: directory.path) == nil) }
    }

    @Test func aFolderIsListedAfterEnoughLoadsWithItsJournalsOnly() throws {
        let names = [".inode-5.mdkit-journal", ".Song.mp3.mdkit-journal", "song.mp3", ".hidden", "notes.mdkit-journal.txt"]
        let directory = try folder(holding: names)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let listings = listings(clock)
        for load in 1..<JournalListings.loadsBeforeListing {
            #expect(listings.journals(in: directory.path) == nil, "listed at load \(load)")
        }
        let journals: Set<String> = [".inode-5.mdkit-journal", ".Song.mp3.mdkit-journal"]
        #expect(listings.journals(in: directory.path) == journals)
        clock.advance(by: JournalListings.lifetime - 1)
        #expect(listings.journals(in: directory.path) == journals, "the listing answers for its lifetime")
    }

    @Test func aMissingFolderHasNoJournals() throws {
        let missing = try TestSupport.makeTemporaryDirectory().appendingPathComponent("missing")
        defer { try? FileManager.default.removeItem(at: missing.deletingLastPathComponent()) }
        let listings = listings(TestClock())
        var answer: Set<String>?
        for _ in 0..<JournalListings.loadsBeforeListing { answer = listings.journals(in: missing.path) }
        #expect(answer == [])
    }

    /// A folder of 300 entries costs more than 8 or 16 loads may spend
    /// (16 entries each): it is listed at the 32nd load.
    @Test func aLargeFolderIsListedOnlyOnceEnoughOfItWasLoaded() throws {
        let directory = try folder(holding: (0..<300).map { "file\($0).mp3" })
        defer { try? FileManager.default.removeItem(at: directory) }
        let listings = listings(TestClock())
        var firstListed: Int?
        for load in 1...40 where firstListed == nil {
            if listings.journals(in: directory.path) != nil { firstListed = load }
        }
        #expect(firstListed == 32)
    }

    /// The journal of a save interrupted after the listing was made is not
    /// seen until the listing expires; then it is, under either name.
    @Test func aJournalMadeAfterTheListingIsFoundOnceTheListingExpires() throws {
        let identity = JournalIdentityTests()
        let (file, other) = try identity.makeFileAndOtherName()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let clock = TestClock()
        let listings = listings(clock)
        let inode = try FileSource(url: file).snapshot.inode
        for _ in 0..<JournalListings.loadsBeforeListing {
            #expect(FileJournalStore.existingJournal(of: file.path, inode: inode, listings: listings) == nil)
        }
        try identity.crash(savingThrough: file)
        let journal = EditJournal.path(for: file.path, inode: inode)
        #expect(FileManager.default.fileExists(atPath: journal))
        #expect(FileJournalStore.existingJournal(of: file.path, inode: inode, listings: listings) == nil, "listed before the crash")
        #expect(FileJournalStore.existingJournal(of: file.path, inode: inode) == journal, "without listings")
        clock.advance(by: JournalListings.lifetime)
        #expect(FileJournalStore.existingJournal(of: file.path, inode: inode, listings: listings) == journal)
        #expect(FileJournalStore.existingJournal(of: other.path, inode: inode, listings: listings) == journal)
        // A journal under the name of earlier versions, from the listing too.
        try FileManager.default.moveItem(
            atPath: journal, toPath: file.deletingLastPathComponent().appendingPathComponent(".Song.bin.mdkit-journal").path)
        clock.advance(by: JournalListings.lifetime)
        let legacy = FileJournalStore.existingJournal(of: file.path, inode: inode, listings: listings)
        #expect(legacy?.hasSuffix("/.Song.bin.mdkit-journal") == true)
        // A listed journal that is gone since (replayed by an earlier load) is not found.
        try FileManager.default.removeItem(atPath: try #require(legacy))
        #expect(FileJournalStore.existingJournal(of: file.path, inode: inode, listings: listings) == nil)
    }

    /// `mdkit read` of a folder of twelve files, the last one left patched
    /// by an interrupted save: the read lists the folder and still finds the
    /// journal, puts the old bytes back and removes it.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
    func mdkitReadRecoversAnInterruptedSaveInAListedFolder() throws {
        let executable = try #require(TestSupport.mdkitExecutable)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = TestSupport.fixtures.appendingPathComponent("valid/sample.mp3")
        let original = try Data(contentsOf: sample)
        let files = (1...12).map { directory.appendingPathComponent(String(format: "%02d.mp3", $0)) }
        for file in files { try original.write(to: file) }
        // What a crash between patching and cleanup leaves: a journal holding
        // the old bytes of the tag's first 64 bytes after its header, and
        // those bytes zeroed.
        let last = try #require(files.last)
        let snapshot = try FileSource(url: last).snapshot
        let journal = EditJournal(fileSize: Int64(original.count), regions: [(offset: 10, bytes: [UInt8](original[10..<74]))])
        _ = try FileJournalStore().write(journal, of: snapshot, url: last)
        let descriptor = open(last.path, O_WRONLY)
        #expect(pwrite(descriptor, [UInt8](repeating: 0, count: 64), 64, 10) == 64)
        close(descriptor)
        #expect(try Data(contentsOf: last) != original)
        // The last file twice: its second load must not trip over the journal the first one replayed.
        let output = try TestSupport.run(executable.path, ["read", "--json"] + files.map(\.path) + [last.path])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try Data(contentsOf: last) == original, "the old bytes were put back")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".mdkit-journal") }
        #expect(left.isEmpty, "journals left: \(left)")
    }
}
