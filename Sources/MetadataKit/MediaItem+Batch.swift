#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// Saves several items with one set of file-system syncs for all of them
    /// (group commit) instead of several per file; the same guarantees as
    /// ``save(options:)`` hold for each file. Returns, per item, nil or the
    /// error that item's save failed with (the others are still saved).
    ///
    /// Memory and descriptors stay bounded: the items are planned a few at a
    /// time (in parallel), and a group is written as soon as the new bytes
    /// its plans hold reach `batchByteBudget` (a picture that moves is new
    /// bytes) or it holds `batchFileLimit` files, so large files make
    /// smaller groups rather than large memory. The next group is planned
    /// while one is written (and synced), so at most two are held at once.
    ///
    /// `progress`, when given, is called after each group is written with
    /// how many of the items are done (saved, or failed), in order: for a
    /// progress display (`mdkit write` draws one).
    ///
    /// Cancelling the task stops the batch before the next group is
    /// written (a group being written is finished): each file not yet
    /// written is left as it was, its error `cancelled`.
    ///
    /// The files are read, written and synced on threads outside Swift's
    /// cooperative pool.
    public static func save(
        _ items: inout [MediaItem], options: SaveOptions = SaveOptions(), progress: (@Sendable (_ done: Int) -> Void)? = nil
    ) async -> [(any Error)?] {
        await save(&items, options: options, byteBudget: batchByteBudget, progress: progress)
    }

    /// ``save(_:options:progress:)`` with another budget for a group's new bytes.
    static func save(
        _ items: inout [MediaItem], options: SaveOptions, byteBudget: Int, progress: (@Sendable (Int) -> Void)? = nil
    ) async -> [(any Error)?] {
        var errors = [(any Error)?](repeating: nil, count: items.count)
        var group: [(index: Int, save: PreparedSave)] = []
        var groupBytes = 0
        let window = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var next = 0
        // The group being written while the next one is planned: a group's
        // syncs wait for the disk and some of its steps run on one core, time
        // in which the next files are read and planned. At most two groups are
        // held at once (one written, one planned).
        var writing: (indices: [Int], done: Int, task: Task<[Result<MediaItem, MediaError>], Never>)?
        func finishWriting() async {
            guard let (indices, done, task) = writing else { return }
            writing = nil
            for (index, result) in zip(indices, await task.value) {
                switch result {
                case .success(let item): items[index] = item
                case .failure(let error): errors[index] = error
                }
            }
            progress?(done)
        }
        // Cancelled: the files not written yet stay as they are (a group
        // planned but not written is dropped), each with a `cancelled` error;
        // a group being written is finished first.
        func cancelled() async -> [(any Error)?] {
            await finishWriting()
            for index in group.map(\.index) + Array(next..<items.count) {
                errors[index] = MediaError(
                    .cancelled, "the save was cancelled before this file was written", path: items[index].path)
            }
            return errors
        }
        while next < items.count {
            if Task.isCancelled { return await cancelled() }
            // Planning reads and parses each file: a window of them at once,
            // spread over the cores from one BlockingWork thread (one hop per
            // window, not two thread switches per file).
            let indices = Array(next..<min(items.count, next + window))
            next += indices.count
            let snapshot = indices.map { items[$0] }
            let plans = await FileEditor.runBlocking { () -> [Result<PreparedSave, MediaError>] in
                Parallel.map(snapshot.count) { position in
                    let item = snapshot[position]
                    return Result { () throws(MediaError) in try item.named { try item.prepareSave(options: options) } }
                }
            }
            for (index, plan) in zip(indices, plans) {
                switch plan {
                case .success(let save):
                    group.append((index, save))
                    groupBytes += save.plan.newByteCount
                case .failure(let error):
                    errors[index] = error
                }
            }
            if groupBytes >= byteBudget || group.count >= batchFileLimit || next == items.count {
                await finishWriting()
                if Task.isCancelled { return await cancelled() }
                if !group.isEmpty {
                    let entries = group.map { (item: items[$0.index], save: $0.save) }
                    writing = (group.map(\.index), next, Task { await write(entries, options: options) })
                } else {
                    progress?(next)
                }
                group.removeAll()
                groupBytes = 0
            }
        }
        await finishWriting()
        return errors
    }

    /// New bytes the plans of one group of ``save(_:options:progress:)`` may hold.
    static let batchByteBudget = 64 << 20

    /// Files one group of ``save(_:options:progress:)`` may hold: each keeps one or two
    /// descriptors open until the group is synced, so 256 (larger groups are
    /// slower: Benchmarks/README.md, "Figures behind the code"), fewer when the
    /// open-file limit is low.
    static let batchFileLimit: Int = Platform.openFileLimit.map { max(16, min(256, ($0 - 128) / 2)) } ?? 256

    /// Writes a group of planned saves with one set of syncs; per entry, the
    /// item that adopted what was written, or the error (on a ``BlockingWork`` thread).
    private static func write(
        _ entries: [(item: MediaItem, save: PreparedSave)], options: SaveOptions
    ) async -> [Result<MediaItem, MediaError>] {
        await FileEditor.runBlocking { () -> [Result<MediaItem, MediaError>] in
            var editor = FileEditor()
            editor.durability = options.durability
            editor.lockWaitLimit = options.lockWaitLimit
            let results = editor.applyBatch(
                entries.map { entry in
                    FileEditor.BatchEdit(
                        plan: entry.save.plan, url: FileEditor.resolvingSymbolicLink(entry.item.url),
                        snapshot: entry.save.snapshot, verify: entry.save.verify)
                })
            return zip(entries, results).map { entry, result in
                Result { () throws(MediaError) -> MediaItem in
                    var item = entry.item
                    let checked = try item.named { try result.get() }
                    try item.adopt(entry.save, checked: checked)
                    return item
                }
            }
        }
    }
}
