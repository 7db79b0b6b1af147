import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Recovery on load: an in-place save that was interrupted (a killed process,
/// a power cut) is finished from its journal — from the file beside the saved
/// file (``FileJournalStore``) or, for a file whose folder can't be written,
/// from the store outside it (``ElsewhereJournalStore``) — both through
/// ``JournalRecovery/replay(fileAt:durable:reading:remove:)``.
extension FileEditor {
    /// Opens the file at `path` for reading after finishing any save of it
    /// that was interrupted. The one recovery call a load makes.
    package static func openRecovered(path: String) throws -> FileSource {
        var source: FileSource
        do {
            // Opened first, not following a link: a link is found without an `lstat` per load.
            source = try FileSource(path: path, followingSymbolicLink: false)
            if try FileJournalStore.recoverPending(path: path, inode: source.snapshot.inode) {
                source = try FileSource(path: path) // the recovery changed it: read it anew
            }
        } catch is FileSource.SymbolicLinkFound {
            // A save through a symbolic link journals beside the link's target.
            try recoverIfNeeded(path: symbolicLinkTarget(path) ?? path)
            source = try FileSource(path: path)
        }
        guard try recoverElsewhereIfNeeded(path: path, snapshot: source.snapshot) else { return source }
        return try FileSource(path: path) // the recovery changed it: read it anew
    }

    /// Restores a file whose in-place save was interrupted from the journal
    /// beside it; removes a journal that was never completed (the file was not
    /// touched then). Does nothing when there is no journal.
    static func recoverIfNeeded(at url: URL) throws {
        try recoverIfNeeded(path: url.path)
    }

    /// ``recoverIfNeeded(at:)`` for a path.
    static func recoverIfNeeded(path: String) throws {
        _ = try FileJournalStore.recoverPending(path: path)
    }

    /// Recovers from the journal an interrupted save of a file whose folder
    /// can't be written left outside that folder (``ElsewhereJournalStore``);
    /// true when there was one.
    static func recoverElsewhereIfNeeded(path: String, snapshot: FileSnapshot) throws -> Bool {
        try ElsewhereJournalStore.shared?.recoverPending(path: path, device: snapshot.device, inode: snapshot.inode) ?? false
    }
}
