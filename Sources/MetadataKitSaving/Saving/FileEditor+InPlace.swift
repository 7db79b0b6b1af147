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

/// In-place edits: same-size patches, and tail replacements, made safe by an
/// undo journal in a ``JournalStore`` (beside the file, or outside its folder
/// when that can't be written).
extension FileEditor {
    /// `plan` made a tail replacement in place when it is a rewrite whose old
    /// and new tails (from the first changed byte to the end) are at most
    /// ``inPlaceTailLimit`` bytes each and `allow` agrees to holding both
    /// (their byte count); the new tail is read from the original where the
    /// plan copies it. Any other plan is returned as it is.
    /// Speed only: the write benchmark's long values (a tag that grows) are
    /// all saved this way (same inode, new size) instead of through a temporary file.
    func inPlaceForm(
        of plan: FileEditPlan, size: Int64, in descriptor: Int32, url: URL, limit: Int64? = nil,
        allow: (Int64) -> Bool = { _ in true }
    ) throws -> FileEditPlan {
        guard let (offset, rest) = plan.divergence() else { return plan }
        let oldLength = size - offset, newLength = rest.reduce(Int64(0)) { $0 + $1.length }
        let limit = limit ?? inPlaceTailLimit
        guard oldLength <= limit, newLength <= limit, allow(oldLength + newLength) else { return plan }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(newLength))
        for segment in rest {
            switch segment {
            case .bytes(let new): bytes += new
            case .original(let from, let length):
                guard from >= 0, length >= 0, from <= size, length <= size - from else {
                    throw MediaError(.invalidValue, "plan copies bytes from outside the file", offset: from, path: url.path)
                }
                bytes += try FileIO.read(descriptor, at: from, count: Int(length), url: url)
            }
        }
        return .tail(offset: offset, bytes: bytes)
    }

    /// Same-size patches; with `newSize`, the first patch replaces the file
    /// from its offset to the end (the journal then keeps that whole old tail)
    /// and the others are same-size patches before it. Nil when nothing changes.
    /// `store`: the store outside the file's folder when that can't be
    /// written (``storeWithoutFolder(_:snapshot:url:)``).
    func patchInPlace<Checked>(
        _ descriptor: Int32, url: URL, snapshot: FileSnapshot, patches: [(offset: Int64, bytes: [UInt8])],
        newSize: Int64?, verify: (URL) throws -> Checked, store elsewhere: ElsewhereJournalStore? = nil
    ) throws -> Checked? {
        guard !patches.isEmpty else { return nil }
        let (originals, writes) = try Self.journaledWrites(of: patches, newSize: newSize, in: descriptor, size: snapshot.size, url: url)
        guard !writes.isEmpty else { return nil }
        let journal = EditJournal(fileSize: snapshot.size, regions: originals, written: writes, newSize: newSize)
        if let elsewhere {
            return try patchInPlace(
                descriptor, url: url, snapshot: snapshot, journal: journal, writes: writes, newSize: newSize,
                store: elsewhere, verify: verify)
        }
        return try patchInPlace(
            descriptor, url: url, snapshot: snapshot, journal: journal, writes: writes, newSize: newSize,
            store: FileJournalStore(), verify: verify)
    }

    /// The in-place path, for every journal store: journal, sync it, patch,
    /// sync, check, remove the journal, sync its removal. A failure before the
    /// patch removes the journal (the file was not touched); one after it puts
    /// the old bytes back, and keeps the journal for the next load when even
    /// that fails.
    /// With an insertion in the journal, its space is inserted first
    /// (``insert(_:into:url:snapshot:verify:)``).
    func patchInPlace<Store: JournalStore, Checked>(
        _ descriptor: Int32, url: URL, snapshot: FileSnapshot, journal: EditJournal, writes: [(offset: Int64, bytes: [UInt8])],
        newSize: Int64?, store: Store, verify: (URL) throws -> Checked
    ) throws -> Checked {
        let durable = durability == .full
        let entry = try step(.journalWrite) { try store.write(journal, of: snapshot, url: url) }
        do {
            try step(.journalSync) { try store.sync(entry, url: url, durable: durable) }
        } catch {
            store.remove(entry)
            throw error
        }
        let checked: Checked
        do {
            if let insertion = journal.insertion { try insertSpace(insertion, into: descriptor, url: url) }
            try applyWrites(writes, newSize: newSize, to: descriptor, url: url)
            try step(.dataSync) { try syncData(descriptor, url: url) }
            checked = try verify(url)
        } catch is InsertionUnsupported {
            store.remove(entry) // nothing was written
            throw InsertionUnsupported()
        } catch {
            if (try? journal.restore(into: descriptor, url: url)) != nil, (try? syncData(descriptor, url: url)) != nil {
                store.remove(entry)
            } else {
                store.keep(entry)
            }
            throw Self.verification(error, url: url)
        }
        store.remove(entry)
        try step(.directorySync) { try syncAfterSave(of: url) { try store.syncRemoval(entry, url: url, durable: durable) } }
        return checked
    }

    /// Writes the patches (a tail first, when there is one) and sets the
    /// file's new size.
    func applyWrites(_ writes: [(offset: Int64, bytes: [UInt8])], newSize: Int64?, to descriptor: Int32, url: URL) throws {
        try step(.patchWrite) {
            for patch in writes { try FileIO.write(descriptor, patch.bytes, at: patch.offset, url: url) }
            if let newSize, ftruncate(descriptor, off_t(newSize)) != 0 {
                throw MediaError(.io, "cannot set the file's new size: \(systemErrorText())", path: url.path)
            }
        }
    }

    /// Patches closer than this are written as one (with the original bytes
    /// between them): one read and one write instead of several — an MP4 item
    /// list edit patches a run of neighbouring atoms and their parents' sizes.
    /// Speed only: fewer reads, writes and journal regions per save (and the same bytes).
    static let patchMergeGap: Int64 = 512

    /// The writes an in-place edit makes and the bytes they overwrite, for
    /// the undo journal. With `newSize`, the first patch is a tail (its whole
    /// old tail is kept) and the others are same-size patches before it. The
    /// same-size patches are merged when they lie within ``patchMergeGap`` of
    /// each other (overlapping patches apply in their given order), and a
    /// merged patch that changes no byte is dropped.
    /// Throws `invalidValue` for a patch outside the file or after the tail.
    static func journaledWrites(
        of patches: [(offset: Int64, bytes: [UInt8])], newSize: Int64?, in descriptor: Int32,
        size: Int64, url: URL
    ) throws
        -> (originals: [(offset: Int64, bytes: [UInt8])], writes: [(offset: Int64, bytes: [UInt8])])
    {
        var originals: [(offset: Int64, bytes: [UInt8])] = []
        var writes: [(offset: Int64, bytes: [UInt8])] = []
        var limit = size
        if newSize != nil, let tail = patches.first {
            guard tail.offset >= 0, tail.offset <= size else {
                throw MediaError(.invalidValue, "tail offset lies outside the file", offset: tail.offset, path: url.path)
            }
            originals.append((tail.offset, try FileIO.read(descriptor, at: tail.offset, count: Int(size - tail.offset), url: url)))
            writes.append(tail)
            limit = tail.offset
        }
        let sameSize = Array(newSize == nil ? patches[...] : patches.dropFirst())
        for patch in sameSize {
            guard patch.offset >= 0, Int64(patch.bytes.count) <= limit - patch.offset else {
                throw MediaError(
                    .invalidValue, "patch of \(patch.bytes.count) bytes lies outside the file or after its tail",
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
            let original = try FileIO.read(descriptor, at: span.start, count: Int(span.end - span.start), url: url)
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
}
