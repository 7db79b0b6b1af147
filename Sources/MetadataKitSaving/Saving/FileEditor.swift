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

/// The one place that changes files on disk.
///
/// Guarantees, for every save:
/// - **Layout changes** (``FileEditPlan/rewrite(_:)``) are written to a
///   temporary file beside the original, synced, checked, given the
///   original's permissions and renamed over it; the folder is then synced
///   (`FileEditor+Rewrite.swift`). A failure or crash at any point leaves the
///   original untouched (at worst a stray `.NAME.mdkit-*` temporary file).
///   Without fsync (``SaveDurability/noSync``), and in a batch, a layout
///   change whose changed part — from the first changed byte to the end — is
///   at most ``smallTailLimit`` (1 MiB), old and new, is done in place
///   instead, as a tail replacement with the old tail in the undo journal.
/// - **Same-size changes** (``FileEditPlan/inPlace(_:)``) first write an undo
///   journal holding the bytes about to be overwritten (with a checksum and
///   sector fingerprints of the new bytes), sync it, then patch the file
///   (`FileEditor+InPlace.swift`; the journal goes to a ``JournalStore``).
///   After a crash the next ``openRecovered(path:)`` — which
///   ``MediaItem/load()`` calls — puts the old bytes back, so the file is
///   either wholly old or wholly new (`FileEditor+Recovery.swift`).
/// - The saved file is re-read by a caller-supplied check before the save
///   counts; when the check fails the original is restored.
/// - An advisory lock (`flock`) keeps two saves of one file from
///   interleaving, and a file that changed since it was loaded is refused
///   (`FileEditor+Locking.swift`).
/// - Every failed sync (`fsync`, `syncfs`) is an error, on every path; one
///   after the file changed (the folder sync after a rename or a journal's
///   removal) says the save may not survive a power cut.
package struct FileEditor {
    /// Makes the save throw at a chosen step (tests only; see `FileEditor+FaultInjection.swift`).
    var failingStep: Step?
    package var durability: SaveDurability = .full
    /// How long a save waits for another save's lock on the file before it
    /// gives up with `locked` (``defaultLockWaitLimit`` unless set).
    package var lockWaitLimit = FileEditor.defaultLockWaitLimit
    /// The wait for a file's lock of saves that set none, and of the
    /// recovery a load runs: 5 seconds (a save of a large file that rewrites
    /// it holds the lock for about as long as copying it takes).
    package static let defaultLockWaitLimit = Duration.seconds(5)
    /// Notes which ``SavePath`` each save took.
    package let recorder = SavePathRecorder()
    /// Test hooks: each turned off forces the next path down
    /// (insertion, then a clone into the temporary file, then copying it in
    /// the kernel, then through a buffer).
    var allowsInsertion = FileEditor.insertsBlocks, allowsClone = true, allowsKernelCopy = true
    /// Whether saves may insert blocks: asked before a layout change is
    /// padded to the block size (``MP4EditPlanner/insertionBlock(for:)``)
    /// or journaled as an insertion. ``Platform/canInsertBlocks`` (false on
    /// Darwin); tests bind it to false to run the Darwin path on Linux.
    @TaskLocal static var insertsBlocks = Platform.canInsertBlocks
    /// Makes a copy-on-write clone of an open file at a new path (0, or -1
    /// with `errno`): ``Platform/cloneFile(_:to:)``, Darwin's `fclonefileat`;
    /// a rewrite then writes only what moved or changed. Tests put in a
    /// stand-in that copies, to run that path on Linux.
    var wholeFileClone: (Int32, String) -> Int32 = Platform.cloneFile
    /// A rewrite whose moved tail is shorter than this is not done by
    /// inserting space (the copy costs little; tests set 0).
    var insertionMinimumTail = FileEditor.insertionMinimumTail

    /// A rewrite whose changed part is small enough to be done in place
    /// (``smallTailLimit``, old and new) — without fsync, or in a batch, whose
    /// journal every file of a folder shares: creating, renaming and deleting
    /// inodes then costs far more than writing the bytes. The journal keeps
    /// the old tail, so a crash still leaves the file old or new.
    static let smallTailLimit: Int64 = 1 << 20

    /// The limit this editor uses (``inPlaceForm(of:size:in:url:allow:)``;
    /// tests set 0 to take the temporary-file path).
    var inPlaceTailLimit = FileEditor.smallTailLimit

    /// An editor with full durability and every save path allowed.
    package init() {}

    /// Applies `plan` to the file at `url`, which must still match `snapshot`.
    /// `verify` reads the changed file at the given URL (the file itself, or
    /// the temporary file before it replaces it) and throws if it is wrong;
    /// what it returns is returned, or nil when the plan changed nothing.
    ///
    /// A symbolic link is followed: the file it names is saved and the link
    /// stays. A file with several hard links keeps its inode (in place, by
    /// insertion, or as a tail replacement with the old tail in the journal)
    /// or is refused, never split from its other names.
    @discardableResult
    package func apply<Checked>(
        _ plan: FileEditPlan, to url: URL, expecting snapshot: FileSnapshot,
        verify: (URL) throws -> Checked
    ) throws -> Checked? {
        let url = Self.resolvingSymbolicLink(url)
        let descriptor = try FileIO.open(url, flags: O_RDWR)
        defer { close(descriptor) }
        try lockAndCheck(descriptor, url: url, snapshot: snapshot)
        var plan = plan
        recorder.path = nil
        // A folder that can't be written (a sandboxed app's file): in place, the journal elsewhere, or refused.
        let elsewhere = try storeWithoutFolder(url.deletingLastPathComponent().path, snapshot: snapshot, url: url)
        if let elsewhere {
            if case .rewrite = plan {
                plan = try inPlaceForm(of: plan, size: snapshot.size, in: descriptor, url: url, limit: Self.hardLinkTailLimit)
                guard plan.inPlaceWrites != nil else {
                    throw Self.folderRefusal(
                        "and this change would need more than \(Self.hardLinkTailLimit >> 20) MiB rewritten in place", url: url)
                }
            }
            guard let writes = plan.inPlaceWrites else { return nil }
            let checked = try patchInPlace(
                descriptor, url: url, snapshot: snapshot, patches: writes.patches, newSize: writes.newSize,
                verify: verify, store: elsewhere)
            recorder.path = checked == nil ? .unchanged : .inPlace
            return checked
        }
        if durability == .noSync {
            plan = try inPlaceForm(of: plan, size: snapshot.size, in: descriptor, url: url)
        }
        if case .rewrite = plan, let insertion = try insertionForm(of: plan, size: snapshot.size, in: descriptor, url: url) {
            do {
                let checked = try insert(insertion, into: descriptor, url: url, snapshot: snapshot, verify: verify)
                recorder.path = .insertion
                return checked
            } catch is InsertionUnsupported {
                // The file system can't insert (tmpfs, btrfs, …): the file is as it was; the next path.
            }
        }
        if case .rewrite = plan, Self.linkCount(descriptor) > 1 {
            plan = try inPlaceForm(of: plan, size: snapshot.size, in: descriptor, url: url, limit: Self.hardLinkTailLimit)
            guard plan.inPlaceWrites != nil else {
                throw MediaError(
                    .unsupportedFeature,
                    "the file has other hard links, and this change would need more than "
                        + "\(Self.hardLinkTailLimit >> 20) MiB rewritten in place; save a copy instead", path: url.path)
            }
        }
        if let writes = plan.inPlaceWrites {
            let checked = try patchInPlace(
                descriptor, url: url, snapshot: snapshot, patches: writes.patches, newSize: writes.newSize,
                verify: verify)
            recorder.path = checked == nil ? .unchanged : .inPlace
            return checked
        } else if case .rewrite(let segments) = plan {
            return try rewrite(from: descriptor, segments: segments, to: url, permissionsFrom: descriptor, verify: verify)
        }
        return nil
    }

    /// Writes the file `plan` describes to `destination`, leaving `url` as it
    /// is; returns what `verify` returned for the new file.
    ///
    /// A `destination` that is the file at `url` under another name — its
    /// device and inode: another case of the name on a case-insensitive volume
    /// (APFS, HFS+), a hard link, a symbolic link to it — is refused
    /// (`invalidValue`) before anything is written: the rename would replace
    /// the original.
    @discardableResult
    package func write<Checked>(
        _ plan: FileEditPlan, from url: URL, expecting snapshot: FileSnapshot, to destination: URL,
        verify: (URL) throws -> Checked
    ) throws -> Checked {
        // O_NONBLOCK: a path replaced by a FIFO since the load must not hang here (lockAndCheck refuses it).
        let descriptor = try FileIO.open(url, flags: O_RDONLY | O_NONBLOCK)
        defer { close(descriptor) }
        try lockAndCheck(descriptor, url: url, snapshot: snapshot, exclusive: false)
        if let target = Platform.identity(ofFileAt: destination.path), target.device == snapshot.device,
            target.inode == snapshot.inode
        {
            throw MediaError(
                .invalidValue,
                "the destination is the file itself under another name (\(url.lastPathComponent)); "
                    + "save() changes it in place, save(to:) writes another file", path: destination.path)
        }
        return try rewrite(
            from: descriptor, segments: plan.segments(originalSize: snapshot.size), to: destination,
            permissionsFrom: descriptor, verify: verify)
    }

    // MARK: Syncs and errors

    /// Syncs the written bytes of `descriptor` (with full durability).
    package func sync(_ descriptor: Int32, url: URL) throws {
        guard durability == .full else { return }
        try FileIO.sync(descriptor, path: url.path)
    }

    /// Syncs the bytes an in-place save wrote to `descriptor` (with full
    /// durability): the data, size and block map (an insertion changes
    /// them), not the times. Speed only: a same-size patch then costs no
    /// file-system journal commit for the modification time.
    func syncData(_ descriptor: Int32, url: URL) throws {
        guard durability == .full else { return }
        try FileIO.syncData(descriptor, path: url.path)
    }

    /// Runs `sync`, a sync made after the file changed (its folder after a
    /// rename, a journal's removal): its failure is an `io` error that says
    /// the save may not survive a crash.
    func syncAfterSave(of url: URL, _ sync: () throws -> Void) throws {
        do {
            try sync()
        } catch let error as MediaError {
            throw MediaError(
                .io, "the file was saved, but a sync after it failed (\(error.reason)); a crash may undo the save",
                path: url.path)
        }
    }

    /// A check's error as the save reports it: `verificationFailed` naming
    /// the file, except for I/O, permission and changed-file errors.
    package static func verification(_ error: any Error, url: URL) -> any Error {
        guard let mediaError = error as? MediaError else { return error }
        if [.io, .readOnly, .fileChanged, .verificationFailed].contains(mediaError.code) { return mediaError.naming(url.path) }
        return MediaError(
            .verificationFailed, "the saved file did not read back (\(mediaError.message)); the original was kept",
            path: url.path)
    }
}
