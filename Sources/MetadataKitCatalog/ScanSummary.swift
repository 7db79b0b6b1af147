import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The counts of one scan.
public struct ScanSummary: Sendable, Equatable {
    /// Files the walk found.
    public var seen = 0
    /// Files left as they were in the catalog (size, mtime and inode unchanged).
    public var unchanged = 0
    /// Files read (including those that failed).
    public var read = 0
    /// Files recognised as renamed or moved, kept with their row (not reread).
    public var moved = 0
    /// Files that could not be read (stored with their error).
    public var errors = 0
    /// Paths the walk could not go through (unreadable folders, vanished entries, loops).
    public var problems = 0
    /// Files gone between the walk and their reading (not stored).
    public var vanished = 0
    /// Rows removed by `prune` because their file is gone.
    public var pruned = 0

    /// All counts zero.
    public init() {}
}

/// What a scan reports as it goes, on its own threads (in no fixed order).
public enum ScanEvent: Sendable {
    /// A path the walk could not go through, with the reason.
    case problem(path: String, message: String)
    /// A file was read (or failed to be).
    case read(path: String, result: Result<MediaItem, any Error>)
    /// A file vanished between the walk and its reading.
    case vanished(path: String)
}

/// Counters of a running scan, for a progress line: read them from any thread.
public final class ScanProgress: @unchecked Sendable {
    /// The counters at one moment.
    public struct Snapshot: Sendable {
        /// Files found so far (the walk runs ahead of the reading).
        public var found = 0
        /// Files dealt with: read, unchanged or moved.
        public var done = 0
        /// Bytes of the files read.
        public var bytes: Int64 = 0
        /// Files that could not be read.
        public var errors = 0
        /// Whether the walk has finished (``found`` is then the total).
        public var walkFinished = false
    }

    private let lock = Lock()
    private var current = Snapshot()

    /// Counters at zero.
    public init() {}

    /// The counters now.
    public var snapshot: Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func update(_ change: (inout Snapshot) -> Void) {
        lock.lock()
        change(&current)
        lock.unlock()
    }
}
