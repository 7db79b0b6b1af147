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

/// Journals as files beside the saved file: `.inode-N.mdkit-journal`, named
/// after the file's inode (``EditJournal/location(for:inode:)``), so that any
/// spelling of the file's name finds it — written and synced before the file
/// is touched, removed when the save is done. A batch writes one journal per
/// folder and hard-links it under each file's journal name
/// (``EditJournal/encodeBatch(_:)``); recovery reads both kinds, and the
/// `.NAME.mdkit-journal` journals of earlier versions.
struct FileJournalStore: JournalStore {
    func write(_ journal: EditJournal, of file: FileSnapshot, url: URL) throws -> String {
        let path = EditJournal.path(for: url.path, inode: file.inode)
        do {
            try FileIO.createFile(URL(fileURLWithPath: path, isDirectory: false), holding: journal.encoded())
        } catch {
            unlink(path)
            throw error
        }
        return path
    }

    func sync(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(path: path)
        try FileIO.syncFolder(of: url)
    }

    func remove(_ path: String) { unlink(path) }

    func syncRemoval(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.syncFolder(of: url)
    }

    func keep(_ path: String) {}

    /// Recovers the file at `path` (with this inode) from a journal beside
    /// it, if there is one; true when its old bytes were put back.
    /// Every load asks (one `access` per name), and almost never finds one.
    static func recoverPending(path: String, inode: UInt64) throws -> Bool {
        let directory = EditJournal.folder(of: path)
        let prefix = directory.isEmpty ? "" : directory == "/" ? "/" : directory + "/"
        let names = [EditJournal.location(for: path, inode: inode).name, EditJournal.legacyName(for: path)]
        guard let journalPath = names.lazy.map({ prefix + $0 }).first(where: { access($0, F_OK) == 0 }) else { return false }
        return try JournalRecovery.replay(
            fileAt: path, durable: true,
            reading: {
                FileManager.default.contents(atPath: journalPath).map { [UInt8]($0) }
            }, remove: { unlink(journalPath) })
    }

    /// ``recoverPending(path:inode:)`` for the file at `path` as it is now
    /// (false when it can't be `stat`ed: nothing to recover).
    static func recoverPending(path: String) throws -> Bool {
        guard let identity = Platform.identity(ofFileAt: path) else { return false }
        return try recoverPending(path: path, inode: identity.inode)
    }
}
