import Foundation
import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that changes files on disk.
///
/// Guarantees, for every save:
/// - **Layout changes** (``FileEditPlan/rewrite(_:)``) are written to a
///   temporary file beside the original, synced, checked, given the
///   original's permissions and renamed over it; the folder is then synced.
///   A failure or crash at any point leaves the original untouched (at worst
///   a stray `.NAME.mdkit-*` temporary file). Without fsync (``SaveDurability/noSync``),
///   and in a batch (see `applyBatch`), a layout change whose changed part —
///   from the first changed byte to the end — is at most ``smallTailLimit``
///   (1 MiB), old and new, is done in place instead, as a tail replacement
///   with the old tail in the undo journal (below).
/// - **Same-size changes** (``FileEditPlan/inPlace(_:)``) first write an undo
///   journal `.NAME.mdkit-journal` beside the file holding the bytes about to
///   be overwritten (with a checksum), sync it, then patch the file. After a
///   crash the next ``recoverIfNeeded(at:)`` — which ``MediaItem/load()``
///   calls — puts the old bytes back, so the file is either wholly old or
///   wholly new.
/// - The saved file is re-read by a caller-supplied check before the save
///   counts; when the check fails the original is restored.
/// - An advisory lock (`flock`) keeps two saves of one file from interleaving,
///   and a file that changed since it was loaded is refused.
struct FileEditor {
    /// Steps a test can make fail.
    enum Step: String, Sendable, CaseIterable {
        case journalWrite, journalSync, patchWrite, dataSync
        case temporaryWrite, temporarySync, rename, directorySync
    }

    /// Makes the save throw at a chosen step (tests only).
    var failingStep: Step?
    var durability: SaveDurability = .full

    private static let copyChunk = 1 << 20

    // MARK: Entry points

    /// Applies `plan` to the file at `url`, which must still match `snapshot`.
    /// `verify` reads the changed file at the given URL (the file itself, or
    /// the temporary file before it replaces it) and throws if it is wrong;
    /// what it returns is returned, or nil when the plan changed nothing.
    @discardableResult
    func apply<Checked>(_ plan: FileEditPlan, to url: URL, expecting snapshot: FileSnapshot,
                        verify: (URL) throws -> Checked) throws -> Checked? {
        let descriptor = try Self.open(url, flags: O_RDWR)
        defer { close(descriptor) }
        try lockAndCheck(descriptor, url: url, snapshot: snapshot)
        var plan = plan
        if durability == .noSync, VolatileJournalStore.shared != nil {
            plan = try inPlaceForm(of: plan, size: snapshot.size, in: descriptor, url: url)
        }
        if let writes = plan.inPlaceWrites {
            return try patchInPlace(descriptor, url: url, size: snapshot.size, patches: writes.patches, newSize: writes.newSize,
                                    verify: verify)
        } else if case .rewrite(let segments) = plan {
            return try rewrite(from: descriptor, segments: segments, to: url, permissionsFrom: descriptor, verify: verify)
        }
        return nil
    }

    /// Writes the file `plan` describes to `destination`, leaving `url` as it
    /// is; returns what `verify` returned for the new file.
    @discardableResult
    func write<Checked>(_ plan: FileEditPlan, from url: URL, expecting snapshot: FileSnapshot, to destination: URL,
                        verify: (URL) throws -> Checked) throws -> Checked {
        let descriptor = try Self.open(url, flags: O_RDONLY)
        defer { close(descriptor) }
        try lockAndCheck(descriptor, url: url, snapshot: snapshot, exclusive: false)
        return try rewrite(from: descriptor, segments: plan.segments(originalSize: snapshot.size), to: destination,
                    permissionsFrom: descriptor, verify: verify)
    }

    /// A rewrite whose changed part is small enough to be done in place
    /// (``smallTailLimit``, old and new) — without fsync, or in a batch, whose
    /// journal every file of a folder shares: creating, renaming and deleting
    /// inodes then costs far more than writing the bytes. The journal keeps
    /// the old tail, so a crash still leaves the file old or new.
    static let smallTailLimit: Int64 = 1 << 20

    /// The limit this editor uses (``inPlaceForm(of:size:in:url:allow:)``;
    /// tests set 0 to take the temporary-file path).
    var inPlaceTailLimit = FileEditor.smallTailLimit

    /// `plan` made a tail replacement in place when it is a rewrite whose old
    /// and new tails (from the first changed byte to the end) are at most
    /// ``inPlaceTailLimit`` bytes each and `allow` agrees to holding both
    /// (their byte count); the new tail is read from the original where the
    /// plan copies it. Any other plan is returned as it is.
    func inPlaceForm(of plan: FileEditPlan, size: Int64, in descriptor: Int32, url: URL,
                     allow: (Int64) -> Bool = { _ in true }) throws -> FileEditPlan {
        guard let (offset, rest) = plan.divergence() else { return plan }
        let oldLength = size - offset, newLength = rest.reduce(Int64(0)) { $0 + $1.length }
        guard oldLength <= inPlaceTailLimit, newLength <= inPlaceTailLimit, allow(oldLength + newLength) else { return plan }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(newLength))
        for segment in rest {
            switch segment {
            case .bytes(let new): bytes += new
            case .original(let from, let length):
                guard from >= 0, length >= 0, from <= size, length <= size - from else {
                    throw MediaError(.invalidValue, "plan copies bytes from outside the file", offset: from, path: url.path)
                }
                bytes += try Self.read(descriptor, at: from, count: Int(length), url: url)
            }
        }
        return .tail(offset: offset, bytes: bytes)
    }

    // MARK: Same-size edits with an undo journal

    /// Same-size patches; with `newSize`, the first patch replaces the file
    /// from its offset to the end (the journal then keeps that whole old tail)
    /// and the others are same-size patches before it.
    private func patchInPlace<Checked>(_ descriptor: Int32, url: URL, size: Int64, patches: [(offset: Int64, bytes: [UInt8])],
                                       newSize: Int64?, verify: (URL) throws -> Checked) throws -> Checked? {
        guard !patches.isEmpty else { return nil }
        let (originals, writes) = try Self.journaledWrites(of: patches, newSize: newSize, in: descriptor, size: size, url: url)
        guard !writes.isEmpty else { return nil }              // nothing changes
        let journal = EditJournal(fileSize: size, regions: originals, written: writes, newSize: newSize)
        if durability == .noSync, let store = VolatileJournalStore.shared, let identity = snapshotOfOpenFile(descriptor) {
            return try patchInPlace(descriptor, url: url, journal: journal, writes: writes, newSize: newSize, verify: verify,
                                    store: store, identity: identity)
        }
        let journalURL = EditJournal.url(for: url)
        do {
            try step(.journalWrite) { try Self.writeFile(journal.encoded(), to: journalURL) }
            try step(.journalSync) { try sync(path: journalURL.path); try syncDirectory(of: url) }
        } catch {
            unlink(journalURL.path)                 // the file was not touched
            throw error
        }
        let checked: Checked
        do {
            try applyWrites(writes, newSize: newSize, to: descriptor, url: url)
            try step(.dataSync) { try sync(descriptor, url: url) }
            checked = try verify(url)
        } catch {
            // Put the old bytes back; if even that fails, the journal stays for the next load.
            if (try? journal.restore(into: descriptor, url: url)) != nil, (try? sync(descriptor, url: url)) != nil {
                unlink(journalURL.path)
            }
            throw Self.verification(error, url: url)
        }
        unlink(journalURL.path)
        try? syncDirectory(of: url)
        return checked
    }

    /// ``patchInPlace(_:url:size:patches:newSize:verify:)`` without fsync: the
    /// journal goes into a reused RAM slot (``VolatileJournalStore``).
    private func patchInPlace<Checked>(_ descriptor: Int32, url: URL, journal: EditJournal, writes: [(offset: Int64, bytes: [UInt8])],
                                       newSize: Int64?, verify: (URL) throws -> Checked, store: VolatileJournalStore,
                                       identity: FileSnapshot) throws -> Checked? {
        var slot: VolatileJournalStore.Slot?
        try step(.journalWrite) { slot = try store.write(journal, device: identity.device, inode: identity.inode, url: url) }
        guard let slot else { return nil }
        let checked: Checked
        do {
            try applyWrites(writes, newSize: newSize, to: descriptor, url: url)
            try step(.dataSync) { try sync(descriptor, url: url) }      // (no fsync: only the step)
            checked = try verify(url)
        } catch {
            if (try? journal.restore(into: descriptor, url: url)) != nil {
                store.clear(slot)
            } else {
                store.abandon(slot)                  // the next load puts the old bytes back
            }
            throw Self.verification(error, url: url)
        }
        store.clear(slot)
        return checked
    }

    private func applyWrites(_ writes: [(offset: Int64, bytes: [UInt8])], newSize: Int64?, to descriptor: Int32, url: URL) throws {
        try step(.patchWrite) {
            for patch in writes { try Self.write(descriptor, patch.bytes, at: patch.offset, url: url) }
            if let newSize, ftruncate(descriptor, off_t(newSize)) != 0 {
                throw MediaError(.io, "cannot set the file's new size: \(systemErrorText())", path: url.path)
            }
        }
    }

    /// Patches closer than this are written as one (with the original bytes
    /// between them): one read and one write instead of several — an MP4 item
    /// list edit patches a run of neighbouring atoms and their parents' sizes.
    static let patchMergeGap: Int64 = 512

    /// The writes an in-place edit makes and the bytes they overwrite, for
    /// the undo journal. With `newSize`, the first patch is a tail (its whole
    /// old tail is kept) and the others are same-size patches before it. The
    /// same-size patches are merged when they lie within ``patchMergeGap`` of
    /// each other (overlapping patches apply in their given order), and a
    /// merged patch that changes no byte is dropped.
    /// Throws `invalidValue` for a patch outside the file or after the tail.
    static func journaledWrites(of patches: [(offset: Int64, bytes: [UInt8])], newSize: Int64?, in descriptor: Int32,
                                size: Int64, url: URL) throws
        -> (originals: [(offset: Int64, bytes: [UInt8])], writes: [(offset: Int64, bytes: [UInt8])]) {
        var originals: [(offset: Int64, bytes: [UInt8])] = []
        var writes: [(offset: Int64, bytes: [UInt8])] = []
        var limit = size
        if newSize != nil, let tail = patches.first {
            guard tail.offset >= 0, tail.offset <= size else {
                throw MediaError(.invalidValue, "tail offset lies outside the file", offset: tail.offset, path: url.path)
            }
            originals.append((tail.offset, try read(descriptor, at: tail.offset, count: Int(size - tail.offset), url: url)))
            writes.append(tail)
            limit = tail.offset
        }
        let sameSize = Array(newSize == nil ? patches[...] : patches.dropFirst())
        for patch in sameSize {
            guard patch.offset >= 0, Int64(patch.bytes.count) <= limit - patch.offset else {
                throw MediaError(.invalidValue, "patch of \(patch.bytes.count) bytes lies outside the file or after its tail",
                                 offset: patch.offset, path: url.path)
            }
        }
        // Spans of patches (indices in the given order), by offset.
        let order = sameSize.indices.sorted { (sameSize[$0].offset, $0) < (sameSize[$1].offset, $1) }
        var spans: [(start: Int64, end: Int64, members: [Int])] = []
        for index in order {
            let patch = sameSize[index], end = patch.offset + Int64(patch.bytes.count)
            if let last = spans.last, patch.offset <= last.end + patchMergeGap {
                spans[spans.count - 1].end = max(last.end, end)
                spans[spans.count - 1].members.append(index)
            } else {
                spans.append((patch.offset, end, [index]))
            }
        }
        for span in spans {
            let original = try read(descriptor, at: span.start, count: Int(span.end - span.start), url: url)
            var merged = original
            for index in span.members.sorted() {
                let patch = sameSize[index], at = Int(patch.offset - span.start)
                merged.replaceSubrange(at..<at + patch.bytes.count, with: patch.bytes)
            }
            if merged == original { continue }
            originals.append((span.start, original))
            writes.append((span.start, merged))
        }
        return (originals, writes)
    }

    /// Opens the file at `path` for reading after finishing any save of it
    /// that was interrupted: from a journal beside the file, or from one a
    /// dead process left in RAM (``VolatileJournalStore``). The one recovery
    /// call a load makes.
    static func openRecovered(path: String) throws -> FileSource {
        try recoverIfNeeded(path: path)
        let source = try FileSource(path: path)
        guard try recoverVolatileIfNeeded(path: path, snapshot: source.snapshot) else { return source }
        return try FileSource(path: path)               // the recovery changed it: read it anew
    }

    /// Restores a file whose in-place save was interrupted; removes a journal
    /// that was never completed (the file was not touched then). Does nothing
    /// when there is no journal.
    static func recoverIfNeeded(at url: URL) throws {
        try recoverIfNeeded(path: url.path)
    }

    /// ``recoverIfNeeded(at:)`` for a path.
    static func recoverIfNeeded(path: String) throws {
        let (directory, name) = EditJournal.location(for: path)
        guard JournalLookup.shared.exists(directory: directory, name: name) else { return }
        try recover(path: path, journalPath: EditJournal.path(for: path))
    }

    /// Recovers from the journal of a save without fsync that another process
    /// left in RAM (``VolatileJournalStore``); true when there was one.
    static func recoverVolatileIfNeeded(path: String, snapshot: FileSnapshot) throws -> Bool {
        try VolatileJournalStore.shared?.recoverPending(path: path, device: snapshot.device, inode: snapshot.inode) ?? false
    }

    private static func recover(path: String, journalPath: String) throws {
        let url = URL(fileURLWithPath: path, isDirectory: false)
        let descriptor = try open(url, flags: O_RDWR)
        defer { close(descriptor) }
        // Lock first: a save still running holds the lock and removes its
        // journal when it is done, so only a journal still there afterwards is
        // one to recover from.
        guard flock(descriptor, LOCK_EX) == 0 else { throw MediaError(.io, "cannot lock the file for recovery", path: url.path) }
        guard let data = FileManager.default.contents(atPath: journalPath) else { return }
        guard let journal = EditJournal.decode([UInt8](data), fileName: url.lastPathComponent) else {
            unlink(journalPath)                     // torn journal: the patch never started
            return
        }
        guard journal.matchesInterruptedSave(descriptor) else {
            unlink(journalPath)                     // the file changed since (or is another file): leave it be
            return
        }
        try journal.restore(into: descriptor, url: url)
        guard Platform.sync(descriptor) == 0 else { throw MediaError(.io, "cannot sync the recovered file", path: url.path) }
        unlink(journalPath)
    }

    // MARK: Layout changes through a temporary file

    private func rewrite<Checked>(from source: Int32, segments: [FileEditPlan.Segment], to destination: URL,
                                  permissionsFrom original: Int32, verify: (URL) throws -> Checked) throws -> Checked {
        let (temporary, temporaryPath) = try makeTemporary(from: source, segments: segments, for: destination,
                                                            permissionsFrom: original)
        let temporaryURL = URL(fileURLWithPath: temporaryPath, isDirectory: false)
        var renamed = false
        defer {
            close(temporary)
            if !renamed { unlink(temporaryPath) }
        }
        try step(.temporarySync) { try sync(temporary, url: destination) }
        let checked: Checked
        do {
            checked = try verify(temporaryURL)
        } catch {
            throw Self.verification(error, url: destination)
        }
        try step(.rename) {
            guard posixRename(temporaryPath, destination.path) == 0 else {
                throw MediaError(.io, "cannot rename the new file into place: \(systemErrorText())", path: destination.path)
            }
        }
        renamed = true
        try step(.directorySync) { try syncDirectory(of: destination) }
        return checked
    }

    /// Writes `segments` (runs of `source` and new bytes) to a new temporary
    /// file beside `destination`, with `original`'s owner and permissions;
    /// returns its descriptor and path. Removes it on failure.
    func makeTemporary(from source: Int32, segments: [FileEditPlan.Segment], for destination: URL,
                       permissionsFrom original: Int32) throws -> (descriptor: Int32, path: String) {
        let directory = destination.deletingLastPathComponent()
        var template = Array(directory.appendingPathComponent(".\(destination.lastPathComponent).mdkit-XXXXXX").path.utf8CString)
        let temporary = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard temporary >= 0 else {
            throw MediaError(errno == EACCES || errno == EROFS ? .readOnly : .io,
                             "cannot create a temporary file in \(directory.path): \(systemErrorText())", path: destination.path)
        }
        let temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        do {
            try step(.temporaryWrite) {
                var position: Int64 = 0
                var buffer = [UInt8](repeating: 0, count: Self.copyChunk)
                for segment in segments {
                    switch segment {
                    case .bytes(let bytes):
                        try Self.write(temporary, bytes, at: position, url: destination)
                    case .original(let offset, let length):
                        var done: Int64 = 0
                        while done < length {
                            let count = Int(min(Int64(buffer.count), length - done))
                            try Self.readInto(&buffer, count: count, from: source, at: offset + done, url: destination)
                            try Self.write(temporary, buffer[0..<count], at: position + done, url: destination)
                            done += Int64(count)
                        }
                    }
                    position += segment.length
                }
            }
        } catch {
            close(temporary)
            unlink(temporaryPath)
            throw error
        }
        var info = stat()
        if fstat(original, &info) == 0 {
            _ = fchown(temporary, info.st_uid, info.st_gid)  // best effort: only root may give files away
            fchmod(temporary, info.st_mode & 0o7777)
        }
        Platform.copyExtendedAttributes(from: original, to: temporary)
        return (temporary, temporaryPath)
    }

    // MARK: Steps and syscalls

    func step(_ name: Step, _ body: () throws -> Void) throws {
        if failingStep == name {
            throw MediaError(.io, "injected failure at step '\(name.rawValue)'")
        }
        try body()
    }

    private func snapshotOfOpenFile(_ descriptor: Int32) -> FileSnapshot? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? FileSnapshot(info) : nil
    }

    func lockAndCheck(_ descriptor: Int32, url: URL, snapshot: FileSnapshot, exclusive: Bool = true) throws {
        guard flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) == 0 else {
            throw MediaError(.io, "cannot lock the file: \(systemErrorText())", path: url.path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw MediaError(.io, "cannot stat: \(systemErrorText())", path: url.path) }
        // After waiting for another saver, the path may name a new file: compare with the path too.
        var current = stat()
        let samePath = stat(url.path, &current) == 0 && current.st_ino == info.st_ino
        guard FileSnapshot(info) == snapshot, samePath else {
            throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again", path: url.path)
        }
    }

    private func sync(_ descriptor: Int32, url: URL) throws {
        guard durability == .full else { return }
        guard Platform.sync(descriptor) == 0 else {
            throw MediaError(.io, "fsync failed: \(systemErrorText())", path: url.path)
        }
    }

    private func sync(path: String) throws {
        guard durability == .full else { return }
        let descriptor = posixOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError(.io, "cannot open for sync: \(systemErrorText())", path: path) }
        defer { close(descriptor) }
        guard Platform.sync(descriptor) == 0 else { throw MediaError(.io, "fsync failed: \(systemErrorText())", path: path) }
    }

    private func syncDirectory(of url: URL) throws {
        try sync(path: url.deletingLastPathComponent().path)
    }

    static func verification(_ error: any Error, url: URL) -> any Error {
        guard let mediaError = error as? MediaError else { return error }
        if [.io, .readOnly, .fileChanged, .verificationFailed].contains(mediaError.code) { return mediaError.naming(url.path) }
        return MediaError(.verificationFailed, "the saved file did not read back (\(mediaError.message)); the original was kept",
                          path: url.path)
    }


    static func open(_ url: URL, flags: Int32) throws -> Int32 {
        let descriptor = posixOpen(url.path, flags | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: MediaError.Code = (errno == EACCES || errno == EROFS || errno == EPERM) ? .readOnly : .io
            throw MediaError(code, "cannot open for \(flags & O_RDWR != 0 ? "writing" : "reading"): \(systemErrorText())", path: url.path)
        }
        return descriptor
    }

    static func read(_ descriptor: Int32, at offset: Int64, count: Int, url: URL) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        try readInto(&buffer, count: count, from: descriptor, at: offset, url: url)
        return buffer
    }

    static func readInto(_ buffer: inout [UInt8], count: Int, from descriptor: Int32, at offset: Int64, url: URL) throws {
        let path = url.path
        try buffer.withUnsafeMutableBytes { raw in
            try readFully(descriptor, into: raw.baseAddress!, count: count, at: offset, path: path) { end in
                MediaError(.io, "the file ended early", offset: end, path: path)
            }
        }
    }

    static func write<Bytes: Collection>(_ descriptor: Int32, _ bytes: Bytes, at offset: Int64, url: URL) throws
    where Bytes.Element == UInt8 {
        let path = url.path
        try Array(bytes).withUnsafeBytes { try writeFully(descriptor, $0, at: offset, path: path) }
    }

    static func writeFile(_ bytes: [UInt8], to url: URL) throws {
        let descriptor = posixOpen(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(errno == EACCES || errno == EROFS ? .readOnly : .io, "cannot create \(url.lastPathComponent): \(systemErrorText())", path: url.path)
        }
        defer { close(descriptor) }
        try write(descriptor, bytes, at: 0, url: url)
    }
}

extension FileEditPlan {
    /// The plan as a full list of segments (patches become byte runs).
    func segments(originalSize: Int64) -> [Segment] {
        switch self {
        case .rewrite(let segments): return segments
        case .patchedTail(let patches, let offset, let bytes):
            return FileEditPlan.inPlace(patches).segments(originalSize: offset) + [.bytes(bytes)]
        case .inPlace(let patches):
            var segments: [Segment] = []
            var position: Int64 = 0
            for patch in patches.sorted(by: { $0.offset < $1.offset }) {
                segments.append(.original(offset: position, length: patch.offset - position))
                segments.append(.bytes(patch.bytes))
                position = patch.offset + Int64(patch.bytes.count)
            }
            segments.append(.original(offset: position, length: originalSize - position))
            return FileEditPlan.coalesced(segments)
        }
    }
}

// Unambiguous names for the C functions that Foundation shadows.
@inline(__always) private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
@inline(__always) func posixRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to)
}
