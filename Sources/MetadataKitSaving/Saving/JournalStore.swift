import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the undo journal (``EditJournal``) of an in-place save is kept while
/// the save runs: a file beside the saved file (``FileJournalStore``), or, when
/// the file's folder can't be written, a file in a folder outside it
/// (``ElsewhereJournalStore``).
///
/// ``FileEditor`` writes every in-place save through one routine against this
/// protocol: write the journal, sync it, patch the file, sync it, check it,
/// remove the journal and sync that removal — or, when a step fails, put the
/// old bytes back and remove the journal (``keep(_:)`` it when even that
/// fails). Both stores recover an interrupted save the same way
/// (``JournalRecovery/replay(fileAt:durable:reading:remove:)``).
protocol JournalStore {
    /// A written journal, to sync, remove or keep.
    associatedtype Entry

    /// Writes `journal`, the undo journal of `file` (the open file at `url`);
    /// leaves nothing behind when it throws.
    func write(_ journal: EditJournal, of file: FileSnapshot, url: URL) throws -> Entry
    /// Makes the written journal durable before the file is touched (only when `durable`).
    func sync(_ entry: Entry, url: URL, durable: Bool) throws
    /// Removes the journal: its save is done, or undone.
    func remove(_ entry: Entry)
    /// Makes the removal durable (only when `durable`).
    func syncRemoval(_ entry: Entry, url: URL, durable: Bool) throws
    /// Leaves the journal for the next load to recover from: the old bytes
    /// could not be put back.
    func keep(_ entry: Entry)
}

/// The one recovery routine, for journals of both stores.
enum JournalRecovery {
    /// Finishes an interrupted save of the file at `path` from its journal:
    /// locks the file (a save still running holds the lock and removes its
    /// journal when done, so only a journal still there afterwards is one to
    /// recover from), reads the journal's bytes (`reading`; nil when it is
    /// gone), then either replays it — the old bytes and size back, synced
    /// when `durable` — or discards it: a torn journal (its checksum fails:
    /// the file was not touched yet) and a journal whose sector fingerprints
    /// don't match the file (someone changed the file since, or another file
    /// took its inode: ``EditJournal/matchesInterruptedSave(_:)``) are
    /// removed and the file left as it is. True when the old bytes were put back.
    static func replay(fileAt path: String, durable: Bool, reading: () throws -> [UInt8]?, remove: () -> Void) throws -> Bool {
        let url = URL(fileURLWithPath: path, isDirectory: false)
        let descriptor = try FileIO.open(url, flags: O_RDWR)
        defer { close(descriptor) }
        // A save still running holds the lock: waited for, as long as a save waits.
        try FileEditor.lock(descriptor, exclusive: true, waitingAtMost: FileEditor.defaultLockWaitLimit, path: path)
        guard let bytes = try reading() else { return false }
        var info = stat()
        let key = fstat(descriptor, &info) == 0 ? [EditJournal.identityKey(inode: UInt64(info.st_ino))] : []
        guard let journal = EditJournal.decode(bytes, names: key + [url.lastPathComponent]),
            journal.matchesInterruptedSave(descriptor)
        else {
            remove()
            return false
        }
        try journal.restore(into: descriptor, url: url)
        if durable {
            guard Platform.sync(descriptor) == 0 else {
                throw MediaError(.io, "cannot sync the recovered file: \(systemErrorText())", path: path)
            }
        }
        remove()
        return true
    }
}
