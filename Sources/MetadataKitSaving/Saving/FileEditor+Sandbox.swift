import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Saves of a file whose folder can't be written: a sandboxed app (iOS, the
/// Mac App Store) may be handed a file — a security-scoped URL — but not its
/// folder, so neither a journal nor a temporary file can go beside it.
///
/// The folder is asked first (``isFolderWritable``). When it can't be
/// written, the save is made in place (same-size patches, or a tail
/// replacement of at most ``hardLinkTailLimit``) with its undo journal in the
/// journal store outside the folder (``ElsewhereJournalStore``: the app's
/// temporary folder on Darwin, `/dev/shm` on Linux), which every load
/// checks; or it is refused (`readOnly`) before anything is written — never
/// a half-done save. A save with fsync needs that store on disk and on the
/// file's volume (Darwin's per-user temporary folder, for a file of the
/// user's own volume), so that the synced journal outlives a power cut with
/// the file.
extension FileEditor {
    /// Whether a file can be created in a folder; ``Platform/canCreateFiles(in:)``.
    /// Tests bind it to say "not writable" where the file system can't (root
    /// writes to a folder of mode 0555).
    @TaskLocal static var isFolderWritable: @Sendable (String) -> Bool = { Platform.canCreateFiles(in: $0) }

    /// Why a save of a file on `fileDevice` whose folder can't be written is
    /// refused; nil when its journal can go to the store: without fsync any
    /// store will do, with fsync one on disk (`storeOnDisk`) on the file's
    /// device. (The decision alone, tested with every combination.)
    static func refusalWithoutFolder(
        durability: SaveDurability, store: (device: UInt64, onDisk: Bool)?, fileDevice: UInt64
    ) -> String? {
        guard let store else { return "and there is no journal folder elsewhere" }
        guard durability == .full else { return nil }
        guard store.onDisk else { return "and the journal folder elsewhere does not survive a power cut (RAM)" }
        guard store.device == fileDevice else { return "and the journal folder elsewhere is on another volume" }
        return nil
    }

    /// The store a save must journal in when the file's folder at `folder`
    /// can't be written; nil when the folder can. Throws `readOnly` when the
    /// save can't be made safely (nothing was written).
    func storeWithoutFolder(_ folder: String, snapshot: FileSnapshot, url: URL) throws -> ElsewhereJournalStore? {
        guard !Self.isFolderWritable(folder) else { return nil }
        let store = ElsewhereJournalStore.shared
        let device = store?.prepare()
        if let reason = Self.refusalWithoutFolder(
            durability: durability, store: device.map { ($0, Platform.journalFolderElsewhereIsOnDisk) },
            fileDevice: snapshot.device)
        {
            throw Self.folderRefusal(reason, url: url)
        }
        return store
    }

    /// The `readOnly` error of a save refused because its folder can't be written.
    static func folderRefusal(_ reason: String, url: URL) -> MediaError {
        MediaError(
            .readOnly,
            "the file's folder can't be written (a sandboxed app may be given a file without its folder), "
                + "\(reason); nothing was written", path: url.path)
    }
}
