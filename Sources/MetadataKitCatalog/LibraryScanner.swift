import MetadataKit

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

/// Scans folders into a catalog, incrementally.
///
/// Three stages run at once, joined by bounded queues (memory stays flat in
/// the number of files):
/// 1. a walker thread walks the roots and looks every file up in the catalog
///    (its own connection): a file whose size, mtime and inode are as
///    recorded is left alone (unless ``Options/full``); a new path whose
///    inode and size belong to a row whose file is gone is that row's file,
///    renamed or moved: the row keeps its id (and is not reread when the
///    mtime is unchanged too);
/// 2. reading workers (``Options/workers``) load the files with
///    `MediaItem.load()` and make their ``CatalogRecord``s (hashing artwork);
/// 3. one writer thread applies the changes in transactions of a few hundred
///    files (or every half second), so an interrupted scan leaves whole
///    batches; the next scan finds the files it stored unchanged and reads the rest.
///
/// With ``Options/prune``, rows under the roots whose file no longer exists
/// are removed at the end (a file that exists but was not walked — excluded,
/// or in an unreadable folder — keeps its row).
public struct LibraryScanner: Sendable {
    /// How a scan walks, reads and writes.
    public struct Options: Sendable {
        /// Which files the walk gives (``FolderWalker/Options``).
        public var walker = FolderWalker.Options()
        /// Reread every file, changed or not.
        public var full = false
        /// Remove the rows of files that are gone.
        public var prune = false
        /// Reading workers; defaults to the number of processors.
        public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Changes per transaction at most.
        public var batchSize = 512

        /// The defaults: changed files only, nothing pruned, one reader per processor.
        public init() {}
    }

    /// How this scanner scans.
    public var options: Options
    /// Opens a connection to the catalog (called once per stage that needs
    /// one); nil to scan without a catalog (every file read, nothing stored).
    public var openCatalog: (@Sendable () throws(CatalogError) -> any Catalog)?
    /// The counters, for a progress line.
    public let progress = ScanProgress()

    /// A scanner with `options` that stores into the catalogs `openCatalog` opens (nil: nothing stored).
    public init(options: Options = Options(), openCatalog: (@Sendable () throws(CatalogError) -> any Catalog)?) {
        self.options = options
        self.openCatalog = openCatalog
    }

    /// One file to read.
    struct Job: Sendable {
        var path: String
        var status: FileStatus
        /// The row the file keeps, when the catalog has one for it.
        var id: Int64?
        /// Its place among the files read, in walk order (for ``scan(_:events:inWalkOrder:write:)``).
        var sequence = 0
    }

    /// Files read out of order that an ordered scan holds at most (besides those being read).
    var orderWindow: Int { max(256, options.workers * 64) }

    /// Scans `roots` (folders or files; relative paths are taken from the
    /// working directory and stored absolute). `events` is called from the
    /// scan's threads. Throws when the catalog fails (what was committed stays).
    public func scan(_ roots: [String], events: @escaping @Sendable (ScanEvent) -> Void = { _ in }) async throws(CatalogError)
        -> ScanSummary
    {
        try await scan(roots, events: events, ordered: nil, render: nil)
    }

    /// Scans as ``scan(_:events:)`` and also renders each file read (or that
    /// failed) with `render`, on the reading workers' threads, in parallel;
    /// `write` gets the rendered bytes in walk order, a run at a time, one call
    /// at a time. What was read out of order waits in a buffer of a few
    /// hundred files at most (the walk waits for room), so memory stays flat.
    public func scan(
        _ roots: [String], events: @escaping @Sendable (ScanEvent) -> Void = { _ in },
        inWalkOrder render: @escaping @Sendable (ScanEvent) -> [UInt8]?, write: @escaping @Sendable ([UInt8]) -> Void
    ) async throws(CatalogError) -> ScanSummary {
        let ordered = ReorderBuffer<[UInt8]>(window: orderWindow) { runs in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(runs.reduce(0) { $0 + $1.count })
            for run in runs { bytes += run }
            write(bytes)
        }
        return try await scan(roots, events: events, ordered: ordered, render: render)
    }

    /// Runs the scan; cancelling its task stops it: the walk hands out no
    /// further file and each reader finishes the file it reads, then the
    /// scan throws ``CatalogError/Code/cancelled`` (what was committed stays).
    private func scan(
        _ roots: [String], events: @escaping @Sendable (ScanEvent) -> Void, ordered: ReorderBuffer<[UInt8]>?,
        render: (@Sendable (ScanEvent) -> [UInt8]?)?
    ) async throws(CatalogError) -> ScanSummary {
        let state = ScanState()
        let result = await withTaskCancellationHandler {
            do throws(CatalogError) {
                return Result<ScanSummary, CatalogError>.success(
                    try await scan(roots, events: events, ordered: ordered, render: render, state: state))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            state.fail(CatalogError(.cancelled, "the scan was cancelled"))
        }
        return try result.get()
    }

    private func scan(
        _ roots: [String], events: @escaping @Sendable (ScanEvent) -> Void, ordered: ReorderBuffer<[UInt8]>?,
        render: (@Sendable (ScanEvent) -> [UInt8]?)?, state: ScanState
    ) async throws(CatalogError) -> ScanSummary {
        let roots = roots.map(Self.absolutePath)
        // One thread at a time uses it: this task, the writer thread, this task again.
        let writerHandOff = (try openCatalog?()).map { HandOff(value: $0) }
        let writerCatalog = writerHandOff?.value
        let scanID = try writerCatalog?.beginScan(roots: roots)
        let jobs = BlockingQueue<Job>(capacity: options.workers * 16)
        let changes = BlockingQueue<CatalogChange>(capacity: options.batchSize * 2)

        async let walked: Void = Self.onThread {
            walk(roots, into: jobs, changes: changes, state: state, ordered: ordered, events: events)
        }
        async let written: Void = Self.onThread {
            if let writerHandOff { write(changes, to: writerHandOff.value, state: state) }
        }
        let storing = writerHandOff != nil
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, options.workers) {
                group.addTask {
                    await read(jobs, into: changes, storing: storing, state: state, ordered: ordered, render: render, events: events)
                }
            }
        }
        await walked
        changes.close()
        await written
        if let failure = state.failure { throw failure }
        var summary = state.summary
        if let writerCatalog, let scanID {
            if options.prune { summary.pruned = try Self.prune(roots, in: writerCatalog) }
            try writerCatalog.finishScan(scanID, summary: summary)
        }
        return summary
    }

    // MARK: The stages

    private func walk(
        _ roots: [String], into jobs: BlockingQueue<Job>, changes: BlockingQueue<CatalogChange>, state: ScanState,
        ordered: ReorderBuffer<[UInt8]>?, events: @Sendable (ScanEvent) -> Void
    ) {
        defer {
            jobs.close()
            progress.update { $0.walkFinished = true }
        }
        let catalog: (any Catalog)?
        do throws(CatalogError) {
            catalog = try openCatalog?()
        } catch {
            return state.fail(error)
        }
        var claimed: Set<Int64> = [] // rows a renamed file took in this walk
        let lookup = catalog.map { EntryLookup(catalog: $0) }
        // A catalog with no row of this host (a first scan) has no row a renamed file could take:
        // no lookup by identity per new file.
        var mayHaveMoved = false
        if let catalog {
            do throws(CatalogError) {
                mayHaveMoved = try !catalog.entries(from: "", limit: 1).isEmpty
            } catch {
                return state.fail(error)
            }
        }
        var sequence = 0
        /// Hands `job` to the readers, numbered in walk order.
        func enqueue(_ job: Job) {
            var job = job
            job.sequence = sequence
            ordered?.waitForRoom(sequence)
            sequence += 1
            jobs.put(job)
        }
        let walker = FolderWalker(options: options.walker)
        for root in roots {
            walker.walk(root) { entry in
                guard state.failure == nil else { return }
                switch entry {
                case .problem(let path, let message):
                    state.count { $0.problems += 1 }
                    events(.problem(path: path, message: message))
                case .file(let path, let status):
                    state.count { $0.seen += 1 }
                    progress.update { $0.found += 1 }
                    guard let catalog else { return enqueue(Job(path: path, status: status)) }
                    do throws(CatalogError) {
                        if let known = try lookup?.entry(path: path) {
                            guard options.full || status.differs(from: known.status) else {
                                state.count { $0.unchanged += 1 }
                                progress.update { $0.done += 1 }
                                return
                            }
                            enqueue(Job(path: path, status: status, id: known.id))
                        } else if mayHaveMoved,
                            let renamed = try catalog.entries(identity: status.identity).first(where: { row in
                                row.status.size == status.size && !claimed.contains(row.id)
                                    && FileStatus(path: row.path, followingLinks: false) == nil
                            })
                        {
                            claimed.insert(renamed.id)
                            if !options.full && renamed.status.modificationTimeNanoseconds == status.modificationTimeNanoseconds {
                                state.count { $0.moved += 1 }
                                progress.update { $0.done += 1 }
                                changes.put(.move(id: renamed.id, path: path, status: status))
                            } else {
                                enqueue(Job(path: path, status: status, id: renamed.id))
                            }
                        } else {
                            enqueue(Job(path: path, status: status))
                        }
                    } catch {
                        state.fail(error)
                    }
                }
            }
        }
    }

    private func read(
        _ jobs: BlockingQueue<Job>, into changes: BlockingQueue<CatalogChange>, storing: Bool, state: ScanState,
        ordered: ReorderBuffer<[UInt8]>?, render: (@Sendable (ScanEvent) -> [UInt8]?)?, events: @Sendable (ScanEvent) -> Void
    ) async {
        let hasher = PictureHasher() // this worker's
        while let job = jobs.take() {
            guard state.failure == nil else {
                // Drain: the walker may wait for room.
                ordered?.put(job.sequence, nil)
                continue
            }
            var item = MediaItem(url: URL(filePath: job.path, directoryHint: .notDirectory))
            let result: Result<MediaItem, any Error>
            var file: FileSource? // open until the record is made: its pictures are hashed through it
            do {
                file = try await item.loadKeepingFile()
                result = .success(item)
            } catch {
                if FileStatus(path: job.path, followingLinks: false) == nil {
                    state.count { $0.vanished += 1 }
                    progress.update { $0.done += 1 }
                    events(.vanished(path: job.path))
                    ordered?.put(job.sequence, nil)
                    continue
                }
                result = .failure(error)
            }
            if storing {
                let record = CatalogRecord(
                    path: job.path, status: job.status, result: result, scannedAt: Date().timeIntervalSince1970,
                    hashing: file.map { (hasher, $0) })
                changes.put(.store(id: job.id, record: record.keepingFileValuesOnly()))
            }
            state.count {
                $0.read += 1
                if result.isFailure { $0.errors += 1 }
            }
            progress.update {
                $0.done += 1
                $0.bytes += job.status.size
                if result.isFailure { $0.errors += 1 }
            }
            let event = ScanEvent.read(path: job.path, result: result)
            events(event)
            ordered?.put(job.sequence, render?(event))
        }
    }

    private func write(_ changes: BlockingQueue<CatalogChange>, to catalog: any Catalog, state: ScanState) {
        while true {
            // A whole batch, or what came within half a second: the writer wakes once per batch, not per
            // file, and twice a second while nothing comes (a rescan of unchanged files).
            let batch = changes.take(upTo: options.batchSize, timeout: 0.5)
            if batch.isEmpty {
                if changes.isFinished { return }
                continue
            }
            do throws(CatalogError) {
                try catalog.apply(batch)
            } catch {
                state.fail(error)
                changes.close() // readers' puts are dropped from now on
            }
        }
    }

    /// Removes the rows under `roots` whose file is gone; returns how many.
    static func prune(_ roots: [String], in catalog: any Catalog) throws(CatalogError) -> Int {
        var gone: [Int64] = []
        for root in roots {
            try catalog.forEachEntry(under: root) { entry in
                if FileStatus(path: entry.path, followingLinks: false) == nil && (errno == ENOENT || errno == ENOTDIR) {
                    gone.append(entry.id)
                }
            }
        }
        for start in stride(from: 0, to: gone.count, by: 1000) {
            try catalog.apply(gone[start..<min(gone.count, start + 1000)].map { .delete(id: $0) })
        }
        return gone.count
    }

    // MARK: Helpers

    /// Runs `body` on a new thread (the stages that block on queues and on
    /// SQLite stay off the cooperative pool) and resumes when it returns.
    static func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            startThread(stackSize: 4 << 20) {
                body()
                continuation.resume()
            }
        }
    }

    /// `path` made absolute (from the working directory) with `.`, `..` and
    /// repeated slashes removed, lexically (links are not resolved).
    public static func absolutePath(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// A value handed from one thread to another, never used by two at once.
struct HandOff<Value>: @unchecked Sendable {
    let value: Value
}

/// The shared state of a scan's stages: the counts and the first catalog failure.
final class ScanState: @unchecked Sendable {
    private let lock = Lock()
    private var counts = ScanSummary()
    private var firstFailure: CatalogError?

    var summary: ScanSummary {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    var failure: CatalogError? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }

    func count(_ change: (inout ScanSummary) -> Void) {
        lock.lock()
        change(&counts)
        lock.unlock()
    }

    func fail(_ error: CatalogError) {
        lock.lock()
        if firstFailure == nil { firstFailure = error }
        lock.unlock()
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
