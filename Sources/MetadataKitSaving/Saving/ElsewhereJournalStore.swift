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

/// Journals of saves whose own folder can't be written (a sandboxed app's
/// file, ``FileEditor/storeWithoutFolder(_:snapshot:url:)``): files in a
/// folder of the user's own outside it, `mdkit-UID/` (mode 0700) in
/// ``Platform/journalFolderElsewhere`` — Linux's `/dev/shm`, Darwin's per-user
/// temporary folder.
///
/// A journal there is named after the file's device and inode,
/// `.dev-D.inode-N.mdkit-journal` (this folder, unlike the file's own, does
/// not pin the file's volume), and is written, synced and removed like a
/// journal beside the file (``FileJournalStore``). Every load asks for its
/// file's name there (one `access`); the folder is trusted only while it is
/// the user's own and closed to others, as anyone could otherwise plant a
/// journal for a file they can't write.
struct ElsewhereJournalStore: JournalStore {
    /// The store, or nil when the system has no such folder.
    package static let shared: ElsewhereJournalStore? = Platform.journalFolderElsewhere.map {
        ElsewhereJournalStore(directory: "\($0)/mdkit-\(geteuid())")
    }

    /// The store's folder (made when a save first needs it).
    package let directory: String

    /// The path of the journal of the file with this device and inode.
    package func path(device: UInt64, inode: UInt64) -> String { pathBuffer(device: device, inode: inode).string }

    /// ``path(device:inode:)`` as bytes (speed: every load checks it).
    private func pathBuffer(device: UInt64, inode: UInt64) -> JournalPathBuffer {
        var buffer = JournalPathBuffer(capacity: directory.utf8.count + 64)
        buffer.append(directory.utf8)
        buffer.append("/.dev-".utf8)
        buffer.append(decimal: device)
        buffer.append(".inode-".utf8)
        buffer.append(decimal: inode)
        buffer.append(".mdkit-journal".utf8)
        return buffer
    }

    /// Makes the folder when it is missing; returns its device, or nil when
    /// it can't be made or is not the user's own, closed to others.
    package func prepare() -> UInt64? {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { return nil }
        return ownFolderDevice()
    }

    /// The folder's device while it is a folder of this user that no one else
    /// may enter; nil otherwise (or when it is missing).
    private func ownFolderDevice() -> UInt64? {
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        return Platform.deviceNumber(info.st_dev)
    }

    package func write(_ journal: EditJournal, of file: FileSnapshot, url: URL) throws -> String {
        try EditJournal.create(journal, at: path(device: file.device, inode: file.inode))
    }

    /// Durable (with fsync; only allowed when the folder is on disk, on the
    /// file's volume): the journal and the folder naming it.
    package func sync(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(path: path)
        try FileIO.sync(path: directory)
    }

    package func remove(_ path: String) { unlink(path) }

    func syncRemoval(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(path: directory)
    }

    package func keep(_ path: String) {}

    /// Recovers the file at `path` (device, inode) from a journal this store
    /// holds for it, if there is one; true when its old bytes were put back.
    func recoverPending(path: String, device: UInt64, inode: UInt64, listings: JournalListings = .shared) throws -> Bool {
        let listed = listings.journals(in: directory)
        if listed?.isEmpty == true { return false }
        var buffer = pathBuffer(device: device, inode: inode)
        guard buffer.exists(among: listed, nameStart: directory.utf8.count + 1), ownFolderDevice() != nil else { return false }
        let journalPath = buffer.string
        return try JournalRecovery.replay(
            fileAt: path, durable: Platform.journalFolderElsewhereIsOnDisk,
            reading: {
                FileManager.default.contents(atPath: journalPath).map { [UInt8]($0) }
            }, remove: { unlink(journalPath) })
    }
}
