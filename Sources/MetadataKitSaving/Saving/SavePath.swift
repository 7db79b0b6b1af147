import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a save changed the file, cheapest first; ``MediaItem/lastSavePath``
/// says which one the last save took.
public enum SavePath: String, Sendable, Hashable, CaseIterable {
    /// Nothing needed writing.
    case unchanged
    /// Bytes patched in place (a tag that fit its space, or a small tail
    /// replaced), with an undo journal.
    case inPlace
    /// Whole blocks inserted in the middle of the file (Linux
    /// `FALLOC_FL_INSERT_RANGE`, ext4 and XFS) and the new metadata written
    /// into them, with an undo journal: the payload was not moved or copied.
    case insertion
    /// A new file beside the original sharing the payload's blocks
    /// (`FICLONERANGE`, btrfs and XFS; a whole-file `fclonefileat` on APFS,
    /// with only what moved or changed written), renamed over it.
    case cloneRewrite
    /// A new file beside the original with every byte copied
    /// (`copy_file_range` where the system has it), renamed over it.
    case rewrite
}

/// Where a ``FileEditor`` notes the path its last save took (a class, so the
/// editor's methods stay non-mutating; locked, as a batch stages files on
/// several threads).
package final class SavePathRecorder: @unchecked Sendable {
    private let lock = Lock()
    private var stored: SavePath?

    /// The path of the last save; nil before one.
    package var path: SavePath? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
