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

/// Saving many files with one set of syncs (group commit).
///
/// A durable save of one file syncs the journal, its folder, the file and the
/// folder again. For many files the same guarantees hold with three
/// file-system syncs for the whole batch: every journal and temporary file is
/// written, then synced at once; every file is patched or renamed, then
/// synced at once (so a crash leaves each file old, recoverable from its
/// journal, or new); every check runs and every journal is removed, then
/// synced at once (so a save reported as done stays done). Small layout
/// changes are made in place with their old tails in the shared journal
/// rather than through one temporary file each (``stage(_:tailBudget:)``).
extension FileEditor {
    /// One save of a batch; `verify` as for ``apply(_:to:expecting:verify:)``.
    package struct BatchEdit<Checked> {
        package var plan: FileEditPlan
        package var url: URL
        package var snapshot: FileSnapshot
        package var verify: (URL) throws -> Checked

        package init(plan: FileEditPlan, url: URL, snapshot: FileSnapshot, verify: @escaping (URL) throws -> Checked) {
            self.plan = plan
            self.url = url
            self.snapshot = snapshot
            self.verify = verify
        }
    }

    /// An edit after its first phase.
    private final class Staged<Checked> {
        let edit: BatchEdit<Checked>
        /// What the check returned.
        var checked: Checked?
        let descriptor: Int32
        var error: (any Error)?
        // In place: the patches, the file's new size (tail edits), the journal.
        var patches: [(offset: Int64, bytes: [UInt8])] = []
        var newSize: Int64?
        var journal: EditJournal?
        /// The journal's part of its folder's batch journal (made in phase 1, on every core).
        var batchEntry: [UInt8] = []
        var journalPath: String?
        var patched = false
        // Rewrite: the temporary file.
        var temporary: (descriptor: Int32, path: String)?

        init(edit: BatchEdit<Checked>, descriptor: Int32) {
            self.edit = edit
            self.descriptor = descriptor
        }
    }

    /// Applies every edit; one result per edit, in order: what its check
    /// returned, or nil when its plan changed nothing. With `.noSync`
    /// durability each edit is simply applied on its own (on every core).
    package func applyBatch<Checked>(_ edits: [BatchEdit<Checked>]) -> [Result<Checked?, any Error>] {
        // Group commit needs a file-system sync (Linux `syncfs`); without one
        // (Darwin) each file is saved with its own full syncs.
        guard durability == .full, edits.count > 1, Platform.syncFileSystem != nil else {
            return Parallel.map(edits.count) { index in
                let edit = edits[index]
                return Result { try apply(edit.plan, to: edit.url, expecting: edit.snapshot, verify: edit.verify) }
            }
        }
        // Layout changes of large files (which may insert blocks) and of files
        // with other hard links (which keep their inode) are saved on their own.
        // So are files whose folder can't be written (no journal or temporary file beside them).
        let alone = edits.indices.filter { index in
            guard Self.isFolderWritable(edits[index].url.deletingLastPathComponent().path) else { return true }
            guard case .rewrite = edits[index].plan else { return false }
            var info = stat()
            return stat(edits[index].url.path, &info) == 0 && (info.st_nlink > 1 || Int64(info.st_size) >= insertionMinimumTail)
        }
        if !alone.isEmpty {
            var results = [Result<Checked?, any Error>](repeating: .success(nil), count: edits.count)
            for index in alone {
                let edit = edits[index]
                results[index] = Result { try apply(edit.plan, to: edit.url, expecting: edit.snapshot, verify: edit.verify) }
            }
            let rest = edits.indices.filter { !alone.contains($0) }
            for (index, result) in zip(rest, applyBatch(rest.map { edits[$0] })) { results[index] = result }
            return results
        }
        // Phase 1: lock, check, read the bytes to journal or write the
        // temporary file — each file on its own, so on every core.
        var results = [Result<Checked?, any Error>](repeating: .success(nil), count: edits.count)
        let tailBudget = TailBudget(Self.batchTailBudget)
        let opened = Parallel.map(edits.count) { index -> Result<Staged<Checked>, any Error> in
            let edit = edits[index]
            return Result {
                let descriptor = try FileIO.open(edit.url, flags: O_RDWR)
                let entry = Staged(edit: edit, descriptor: descriptor)
                do {
                    try lockAndCheck(descriptor, url: edit.url, snapshot: edit.snapshot)
                    try stage(entry, tailBudget: tailBudget)
                } catch {
                    entry.error = error
                }
                return entry
            }
        }
        var staged: [Staged<Checked>?] = []
        for (index, result) in opened.enumerated() {
            switch result {
            case .success(let entry): staged.append(entry)
            case .failure(let error):
                staged.append(nil)
                results[index] = .failure(error)
            }
        }
        let live = staged.compactMap { $0 }
        writeJournals(live)
        defer {
            for entry in live {
                if let temporary = entry.temporary {
                    close(temporary.descriptor)
                    unlink(temporary.path)
                }
                close(entry.descriptor)
            }
        }
        syncFileSystems(live.filter { $0.error == nil }, step: .journalSync)

        // Phase 2: patch in place, rename temporary files over their originals.
        for entry in live where entry.error == nil {
            do {
                if let temporary = entry.temporary {
                    try step(.rename) { try FileIO.rename(temporary.path, over: entry.edit.url.path) }
                    close(temporary.descriptor)
                    entry.temporary = nil
                } else {
                    entry.patched = true
                    try applyWrites(entry.patches, newSize: entry.newSize, to: entry.descriptor, url: entry.edit.url)
                }
            } catch {
                entry.error = error
            }
        }
        syncFileSystems(live, step: .dataSync)

        // Phase 3: check the files patched in place (on every core: each check
        // parses its file); put the old bytes back where a step failed.
        let checked = live.filter { $0.journal != nil && $0.patched }
        _ = Parallel.map(checked.count) { index in
            let entry = checked[index]
            if entry.error == nil {
                do {
                    entry.checked = try entry.edit.verify(entry.edit.url)
                } catch {
                    entry.error = Self.verification(error, url: entry.edit.url)
                }
            }
            if entry.error != nil, let journal = entry.journal {
                if (try? journal.restore(into: entry.descriptor, url: entry.edit.url)) == nil || Platform.sync(entry.descriptor) != 0 {
                    entry.journalPath = nil // keep the journal for the next load to recover
                }
            }
        }
        for entry in live {
            if let path = entry.journalPath { unlink(path) }
        }
        // The journals' removal made durable. A failure is an error, as in a
        // single save: the file is new and checked, but a journal that comes
        // back after a crash would make it old again.
        syncFileSystems(live.filter { $0.journalPath != nil }, step: .directorySync)

        for (index, entry) in staged.enumerated() {
            guard let entry else { continue }
            results[index] = entry.error.map { .failure($0) } ?? .success(entry.checked)
        }
        return results
    }

    /// Old and new tail bytes a batch may hold in memory for layout changes it
    /// makes in place (see ``stage(_:tailBudget:)``).
    /// Bounds the memory of the speed-only in-place tails (``inPlaceForm(of:size:in:url:allow:)``).
    static let batchTailBudget: Int64 = 32 << 20

    /// What is left of ``batchTailBudget``, taken from by concurrent stages.
    private final class TailBudget: @unchecked Sendable {
        private let lock = Lock()
        private var remaining: Int64
        init(_ bytes: Int64) { remaining = bytes }

        /// Takes `bytes` when that many are left.
        func take(_ bytes: Int64) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard bytes <= remaining else { return false }
            remaining -= bytes
            return true
        }
    }

    /// Writes the journal (in place) or the checked temporary file (rewrite) of `entry`.
    ///
    /// A rewrite whose changed part is small (``FileEditor/inPlaceForm(of:size:in:url:allow:)``)
    /// is made a tail replacement in place while `tailBudget` (bytes of old and
    /// new tails held until the batch is done) lasts: its old tail goes into
    /// the batch journal, which every file of a folder shares, instead of each
    /// file getting a temporary file — allocating inodes is what such saves
    /// spend their time on.
    private func stage<Checked>(_ entry: Staged<Checked>, tailBudget: TailBudget) throws {
        let url = entry.edit.url, size = entry.edit.snapshot.size
        let plan = try inPlaceForm(of: entry.edit.plan, size: size, in: entry.descriptor, url: url, allow: tailBudget.take)
        guard let writes = plan.inPlaceWrites else {
            guard case .rewrite(let segments) = plan else { return }
            let temporary = try makeTemporary(from: entry.descriptor, segments: segments, for: url, permissionsFrom: entry.descriptor)
            entry.temporary = temporary
            do {
                entry.checked = try entry.edit.verify(URL(fileURLWithPath: temporary.path, isDirectory: false))
            } catch {
                throw Self.verification(error, url: url)
            }
            return
        }
        entry.newSize = writes.newSize
        guard !writes.patches.isEmpty else { return }
        let (originals, merged) = try Self.journaledWrites(
            of: writes.patches, newSize: writes.newSize, in: entry.descriptor,
            size: size, url: url)
        guard !merged.isEmpty else { return }
        entry.patches = merged
        let journal = EditJournal(fileSize: size, regions: originals, written: merged, newSize: writes.newSize)
        entry.journal = journal
        entry.batchEntry = EditJournal.batchEntry(name: EditJournal.identityKey(inode: entry.edit.snapshot.inode), journal: journal)
    }

    /// Writes one batch journal per folder for the staged in-place edits and
    /// links it under each file's journal name.
    private func writeJournals<Checked>(_ entries: [Staged<Checked>]) {
        let pending = entries.filter { $0.error == nil && $0.journal != nil }
        let folders = Dictionary(grouping: pending) { $0.edit.url.deletingLastPathComponent().path }
        for (folder, group) in folders {
            var template = Array("\(folder)/.mdkit-batch-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            let batchPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
            do {
                guard descriptor >= 0 else {
                    throw MediaError(
                        errno == EACCES || errno == EROFS ? .readOnly : .io,
                        "cannot create a journal in \(folder): \(systemErrorText())", path: folder)
                }
                defer { close(descriptor) }
                // The layout of EditJournal.encodeBatch, each file's part written
                // where it goes (on every core) instead of copied into one buffer.
                let header = EditJournal.batchHeader(count: group.count)
                let parts = group.map(\.batchEntry)
                let pieces = [header] + parts + [EditJournal.batchTrailer(header: header, entries: parts)]
                var offsets: [Int64] = [0]
                for piece in pieces.dropLast() { offsets.append(offsets[offsets.count - 1] + Int64(piece.count)) }
                let batchURL = URL(fileURLWithPath: batchPath, isDirectory: false)
                try step(.journalWrite) {
                    let written = Parallel.map(pieces.count) { index in
                        Result { try FileIO.write(descriptor, pieces[index], at: offsets[index], url: batchURL) }
                    }
                    for result in written { try result.get() }
                }
                for entry in group {
                    let path = EditJournal.path(for: entry.edit.url.path, inode: entry.edit.snapshot.inode)
                    unlink(path) // a stale journal of ours: replaced by this one
                    guard link(batchPath, path) == 0 else {
                        entry.error = MediaError(.io, "cannot link the journal: \(systemErrorText())", path: entry.edit.url.path)
                        continue
                    }
                    entry.journalPath = path
                }
            } catch {
                for entry in group where entry.error == nil { entry.error = error }
            }
            if descriptor >= 0 { unlink(batchPath) }
        }
    }

    /// One `syncfs` per file system the entries live on: what the batch wrote
    /// so far becomes durable.
    /// When a file system's sync fails, every entry on it that had not failed
    /// yet fails with an `io` error, as a failed `fsync` fails a single save.
    private func syncFileSystems<Checked>(_ entries: [Staged<Checked>], step name: Step) {
        var failures: [UInt64: MediaError?] = [:]
        for entry in entries {
            var info = stat()
            guard fstat(entry.descriptor, &info) == 0 else {
                if entry.error == nil {
                    entry.error = MediaError(.io, "cannot stat the file to sync it: \(systemErrorText())", path: entry.edit.url.path)
                }
                continue
            }
            let device = Platform.deviceNumber(info.st_dev)
            if failures[device] == nil {
                failures[device] = .some(syncFileSystem(of: entry, step: name))
            }
            if entry.error == nil, let failure = failures[device] ?? nil { entry.error = failure }
        }
    }

    /// Syncs the file system `entry` lives on; the error, if it fails.
    private func syncFileSystem<Checked>(of entry: Staged<Checked>, step name: Step) -> MediaError? {
        do {
            try step(name) {
                guard let syncfs = Platform.syncFileSystem, syncfs(entry.descriptor) == 0 else {
                    let failure = MediaError(.io, "cannot sync the file system: \(systemErrorText())", path: entry.edit.url.path)
                    guard name == .directorySync else { throw failure }
                    try syncAfterSave(of: entry.edit.url) { throw failure } // after the file changed: says so
                    return
                }
            }
            return nil
        } catch let error as MediaError {
            return error
        } catch {
            return MediaError(.io, "\(error)", path: entry.edit.url.path)
        }
    }
}
