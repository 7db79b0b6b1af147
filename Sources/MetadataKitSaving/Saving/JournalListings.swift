import MetadataKitBytes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The journals of folders many files are loaded from, from one listing of
/// each folder instead of an `access` per journal name per file.
///
/// Every load asks whether an interrupted save left a journal for its file
/// (`FileJournalStore.existingJournal`, and the store outside the
/// folder): three `access` calls, about a tenth of the time of reading a
/// small file's tags. A tool reading a folder's files one after another asks
/// the same folder hundreds of times and almost never finds one; once it has
/// loaded ``loadsBeforeListing`` files of a folder, the folder is listed once
/// (the names ending in `.mdkit-journal` kept) and the listing answers for
/// ``lifetime``.
///
/// What a listing can't see: a journal made after it, by a save of another
/// process that runs while this one reads the same folder — a read of a file
/// that is being saved is not protected from the save anyway (the load takes
/// the file's lock only when it finds a journal); the next listing, or the
/// next process, finds and replays it. So only commands that write nothing
/// (`mdkit read`) turn this on (``isEnabled``); a save never plans from a
/// listing.
///
/// A listing costs a look at every entry of the folder, so a large folder is
/// listed only once enough of its files were loaded to pay for it (at most
/// ``entriesPerLoad`` entries per load; a listing that would cost more stops,
/// and the folder is tried again after twice as many loads).
package final class JournalListings: @unchecked Sendable {
    /// The process's listings (off until ``isEnabled`` is set).
    package static let shared = JournalListings()

    /// How long a listing answers, in nanoseconds: one second.
    package static let lifetime: UInt64 = 1_000_000_000
    /// The loads of a folder's files (within a ``lifetime``) before it is listed.
    package static let loadsBeforeListing = 8
    /// The most folder entries a listing may look at per load it spares.
    package static let entriesPerLoad = 16
    /// The most folders remembered (older ones are forgotten first).
    static let folderLimit = 1024

    private struct Folder {
        var loads = 0
        var loadsToList = JournalListings.loadsBeforeListing
        var journals: Set<String>?
        var listedAt: UInt64 = 0
        var lastUsed: UInt64 = 0
        var isBeingListed = false
    }

    private let lock = Lock()
    private var folders: [String: Folder] = [:]
    private var enabled = false
    private let now: @Sendable () -> UInt64

    /// Listings with `now` as the clock (nanoseconds; tests pass their own).
    package init(now: @escaping @Sendable () -> UInt64 = JournalListings.monotonicNanoseconds) {
        self.now = now
    }

    /// Whether loads use listings. Set by a process that only reads, before
    /// it loads (see the type's documentation).
    package var isEnabled: Bool {
        get { lock.withLock { enabled } }
        set { lock.withLock { enabled = newValue } }
    }

    /// The names of the journals in the folder at `folder` (an absolute path,
    /// no trailing slash) from a listing made less than ``lifetime`` ago; nil
    /// when there is none (then ask the file system): listings are off, the
    /// folder has not been loaded from often enough, it can't be read, or
    /// another thread is listing it now.
    /// `folder` is made only when listings are on (it runs on every load).
    package func journals(in folder: @autoclosure () -> String) -> Set<String>? {
        guard isEnabled else { return nil }
        let folder = folder()
        let time = now()
        let step: Step = lock.withLock {
            var entry = folders[folder] ?? Folder()
            entry.lastUsed = time
            defer {
                folders[folder] = entry
                forgetOldFolders()
            }
            if let journals = entry.journals, time &- entry.listedAt < Self.lifetime { return .answer(journals) }
            entry.journals = nil
            entry.loads += 1
            guard entry.loads >= entry.loadsToList, !entry.isBeingListed else { return .answer(nil) }
            entry.isBeingListed = true
            return .list(budget: entry.loads * Self.entriesPerLoad)
        }
        let budget: Int
        switch step {
        case .answer(let journals): return journals
        case .list(let size): budget = size
        }
        let listing = Self.journalNames(in: folder, lookingAtMost: budget)
        return lock.withLock {
            var entry = folders[folder] ?? Folder()
            entry.isBeingListed = false
            switch listing {
            case .journals(let names):
                entry.journals = names
                entry.listedAt = time // before the listing began: what it can't have seen counts from then
            case .tooLarge:
                entry.loadsToList = entry.loads * 2
            case .unreadable:
                entry.loadsToList = entry.loads + Self.loadsBeforeListing
            }
            folders[folder] = entry
            forgetOldFolders()
            return entry.journals
        }
    }

    private enum Step {
        case answer(Set<String>?)
        case list(budget: Int)
    }

    /// Keeps at most ``folderLimit`` folders: the least recently used go.
    private func forgetOldFolders() {
        guard folders.count > Self.folderLimit else { return }
        let kept = folders.sorted { $0.value.lastUsed > $1.value.lastUsed }.prefix(Self.folderLimit / 2)
        folders = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }

    /// What listing a folder found.
    enum Listing {
        /// The names ending in `.mdkit-journal` (none: an empty set; a folder
        /// that does not exist has none).
        case journals(Set<String>)
        /// More entries than the budget: the listing stopped.
        case tooLarge
        /// The folder could not be read (other than missing).
        case unreadable
    }

    /// Lists `folder`, keeping the names that end in `.mdkit-journal`, and
    /// stops after `budget` entries.
    static func journalNames(in folder: String, lookingAtMost budget: Int) -> Listing {
        guard let directory = opendir(folder) else { return errno == ENOENT ? .journals([]) : .unreadable }
        defer { closedir(directory) }
        let suffix = Array(".mdkit-journal".utf8)
        var names: Set<String> = []
        var count = 0
        errno = 0
        while let entry = readdir(directory) {
            count += 1
            if count > budget { return .tooLarge }
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let length = raw.firstIndex(of: 0) ?? raw.count
                guard length > suffix.count, raw[0] == UInt8(ascii: "."),
                    raw[(length - suffix.count)..<length].elementsEqual(suffix)
                else { return nil }
                return String(decoding: raw[..<length], as: UTF8.self)
            }
            if let name { names.insert(name) }
        }
        return errno == 0 ? .journals(names) : .unreadable
    }

    /// The monotonic clock in nanoseconds.
    package static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
