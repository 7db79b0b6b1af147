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

/// Answers "is there a journal named N in folder D?" for every load, cheaply.
///
/// Every ``MediaItem/load()`` must look for the journal of an interrupted
/// save, two of them (beside the file, and in the RAM file system for saves
/// without fsync); most of the time there is none. An `access(2)` per name
/// walks the whole path each time, which was a tenth of the time of reading a
/// small file. Instead, a folder is listed once (only journal names are kept)
/// and a descriptor to it stays open; the next lookup in that folder costs one
/// `fstat` of that descriptor, and the listing is used while the folder's
/// modification and change times are what they were when it was listed
/// (creating, removing or renaming an entry changes the modification time;
/// renaming the folder itself changes its change time; a removed folder has no
/// links left).
///
/// File-system timestamps are coarse (a clock tick), so an entry made in the
/// same tick as the listing could go unseen: a listing is only trusted when the
/// folder's times are more than ``racyInterval`` (``coarseRacyInterval`` for
/// whole-second timestamps) older than the moment it was listed. A folder
/// changed more recently than that is not cached; its names are checked
/// directly with `access(2)`, or listed anew.
///
/// Speed only: the journal check every load makes costs an `fstat` of a cached folder instead of an `access(2)`.
///
/// Loads run on several threads at once and nearly all lookups hit a valid
/// listing, so that path takes a shared (read) lock: two threads checking
/// their folders never wait for each other's `fstat`. Listing, replacing and
/// closing take the exclusive lock. The folder closed when the cache is full
/// is the one listed first.
final class JournalLookup: @unchecked Sendable {
    static let shared = JournalLookup()

    /// How old a folder's last change must be before its listing is trusted:
    /// longer than a timestamp tick (Linux stamps files from a clock that
    /// ticks every 1–10 ms).
    static let racyInterval: Double = 0.05
    /// The same for file systems that keep whole seconds (FAT keeps two).
    static let coarseRacyInterval: Double = 2.5
    /// Folders kept open at most (the oldest is closed beyond this).
    static let capacity = 32

    private struct Listing {
        var descriptor: Int32
        var modified: timespec
        var changed: timespec
        var journals: Set<String>
        /// When it was listed (the value of `uses` then).
        var listedAt: Int
    }

    /// Shared for lookups of valid listings, exclusive for every change.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t> = {
        let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
        return lock
    }()
    private var listings: [String: Listing] = [:]
    /// Folders found changed too recently to list, with the time (seconds
    /// since 1970) before which they are not tried again: lookups there go
    /// straight to `access(2)` (a folder being written to — saves, the RAM
    /// journal folder — would otherwise be opened in vain on every lookup).
    private var racyUntil: [String: Double] = [:]
    private var uses = 0

    /// Whether `directory/name` exists, for journal names (`.inode-N.mdkit-journal`
    /// or `mdkit-journal-…`). `directory` is the folder's path without the
    /// trailing slash ("" for the current folder).
    func exists(directory: String, name: String) -> Bool {
        if let names = cachedNames(in: directory) { return !names.isEmpty && names.contains(name) }
        return access((directory.isEmpty ? "" : directory + "/") + name, F_OK) == 0
    }

    /// The first of `names` (journal names) that exists in `directory`; nil
    /// when none does. One look at the cached listing for all of them;
    /// `names` is only made when the folder holds journals or has no valid
    /// listing (speed: every load asks, and the folder almost never has one).
    func firstExisting(directory: String, names: () -> [String]) -> String? {
        if let listed = cachedNames(in: directory) {
            return listed.isEmpty ? nil : names().first { listed.contains($0) }
        }
        let prefix = directory.isEmpty ? "" : directory == "/" ? "/" : directory + "/"
        return names().first { access(prefix + $0, F_OK) == 0 }
    }

    /// The journal names in `directory`: from the cached listing while it is
    /// valid, else listed now (and cached when the folder has settled); nil
    /// when the folder cannot be listed.
    func names(in directory: String) -> Set<String>? {
        if let names = cachedNames(in: directory) { return names }
        return Self.journalNames(in: directory.isEmpty ? "." : directory)
    }

    /// The cached listing of `directory` if it is (or can now be made) valid;
    /// nil when the folder changed too recently to trust a listing.
    private func cachedNames(in directory: String) -> Set<String>? {
        // Nearly always: a valid listing, checked under the shared lock (no
        // listing is closed while it is held).
        pthread_rwlock_rdlock(lock)
        if let listing = listings[directory], isValid(listing) {
            pthread_rwlock_unlock(lock)
            return listing.journals
        }
        pthread_rwlock_unlock(lock)
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        uses += 1
        if let found = listings.index(forKey: directory) { // another thread may have listed it meanwhile
            let listing = listings.values[found]
            if isValid(listing) { return listing.journals }
            close(listing.descriptor)
            listings.remove(at: found)
        }
        if let until = racyUntil[directory], Self.now() < until { return nil }
        racyUntil[directory] = nil
        guard let listing = list(directory) else { return nil }
        listings[directory] = listing
        if listings.count > Self.capacity, let oldest = listings.min(by: { $0.value.listedAt < $1.value.listedAt }) {
            close(oldest.value.descriptor)
            listings[oldest.key] = nil
        }
        return listing.journals
    }

    /// Lists the journal names of `directory`, or nil when it changed too
    /// recently to trust a listing (or cannot be listed).
    private func list(_ directory: String) -> Listing? {
        let path = directory.isEmpty ? "." : directory
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        var now = timespec()
        guard fstat(descriptor, &info) == 0, clock_gettime(CLOCK_REALTIME, &now) == 0 else {
            close(descriptor)
            return nil
        }
        let lastChange = max(Self.seconds(info.modificationTime), Self.seconds(info.changeTime))
        // Whole-second times (no nanoseconds at all): a file system with
        // coarse timestamps; else they tick at least every ``racyInterval``.
        let coarse = info.modificationTime.tv_nsec == 0 && info.changeTime.tv_nsec == 0
        let interval = coarse ? Self.coarseRacyInterval : Self.racyInterval
        guard Self.seconds(now) - lastChange > interval, let journals = Self.journalNames(in: path) else {
            close(descriptor)
            if racyUntil.count < Self.capacity { racyUntil[directory] = lastChange + interval }
            return nil
        }
        // A change between the fstat and the listing is caught next time: the
        // times kept are the ones from before the listing.
        return Listing(
            descriptor: descriptor, modified: info.modificationTime, changed: info.changeTime, journals: journals, listedAt: uses)
    }

    /// Whether `listing` still describes its folder: the folder exists and its
    /// modification and change times are the ones it was listed with.
    private func isValid(_ listing: Listing) -> Bool {
        var info = stat()
        return fstat(listing.descriptor, &info) == 0 && info.st_nlink > 0 && Self.same(info.modificationTime, listing.modified)
            && Self.same(info.changeTime, listing.changed)
    }

    /// The names in the folder at `path` that end in `.mdkit-journal` or
    /// start with `mdkit-journal-`; nil when it can't be listed. A name is
    /// made a `String` only when its bytes match: a folder of music has
    /// hundreds of other names.
    private static func journalNames(in path: String) -> Set<String>? {
        var names = Set<String>()
        let listed = forEachEntry(in: path) { name in
            if name.starts(with: journalPrefix) || name.suffix(journalSuffix.count).elementsEqual(journalSuffix) {
                names.insert(String(decoding: name, as: UTF8.self))
            }
        }
        return listed ? names : nil
    }

    private static let journalPrefix = Array("mdkit-journal-".utf8)
    private static let journalSuffix = Array(".mdkit-journal".utf8)

    /// The names in the folder at `path`, without `.` and `..`; nil when it
    /// can't be listed.
    static func entryNames(in path: String) -> [String]? {
        var names: [String] = []
        let listed = forEachEntry(in: path) { name in
            if !name.elementsEqual(".".utf8) && !name.elementsEqual("..".utf8) {
                names.append(String(decoding: name, as: UTF8.self))
            }
        }
        return listed ? names : nil
    }

    /// Calls `body` with the bytes of every name in the folder at `path`
    /// (`readdir(3)` order); false when it can't be listed.
    private static func forEachEntry(in path: String, _ body: (Slice<UnsafeRawBufferPointer>) -> Void) -> Bool {
        guard let stream = opendir(path) else { return false }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            withUnsafeBytes(of: entry.pointee.d_name) { raw in body(raw.prefix { $0 != 0 }) }
        }
        return true
    }

    /// The time now, in seconds since 1970.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return seconds(time)
    }

    private static func same(_ a: timespec, _ b: timespec) -> Bool { a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec }
    static func seconds(_ time: timespec) -> Double { Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 }
}
