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

/// Layout changes by inserting space: when a rewrite keeps the file's whole
/// tail (from some offset to the end) and only moves it up by a multiple of
/// the file system's block size, the editor inserts that many bytes at the
/// block boundary at or before where the tail starts
/// (``Platform/insertRange(_:at:length:)``) and writes the new bytes before
/// and into the inserted space. The payload is neither read nor copied: the
/// save costs what the metadata costs.
///
/// Crash safety is the in-place path's: the undo journal records the
/// insertion and the old bytes the save overwrites, and is synced before the
/// insert; recovery removes the inserted range again
/// (``Platform/collapseRange(_:at:length:)``) and puts the old bytes back.
/// Where the file system can't insert, the save falls back to the temporary
/// file (cloned where it can be, ``FileEditor/rewrite(from:segments:to:permissionsFrom:verify:)``).
extension FileEditPlan {
    /// The bytes of `segments` when they are all new bytes; nil otherwise.
    static func materializedBytes(_ segments: ArraySlice<Segment>) -> [UInt8]? {
        var bytes: [UInt8] = []
        for segment in segments {
            guard case .bytes(let run) = segment else { return nil }
            bytes += run
        }
        return bytes
    }
}

extension FileEditPlan {
    /// The file system block size a planner pads a layout change of the file
    /// at `path` (`size` bytes) to, so that the editor can save it by
    /// inserting blocks: nil when the file is smaller than
    /// ``FileEditor/insertionMinimumTail``, the system can't insert
    /// (``FileEditor/insertsBlocks``; not Darwin) or the block size is unknown
    /// or above 1 MiB.
    package static func insertionBlock(forFileAt path: String, size: Int64) -> Int64? {
        guard FileEditor.insertsBlocks, size >= FileEditor.insertionMinimumTail, let block = Platform.blockSize(path: path),
            block > 0, block <= 1 << 20
        else { return nil }
        return block
    }
}

extension FileEditor {
    /// Tails shorter than this are rewritten (copying them costs little).
    static let insertionMinimumTail: Int64 = 1 << 20
    /// The most bytes an insertion writes (the new metadata and the part of
    /// the old block before it), all held in memory.
    static let insertionMaximumWrite: Int64 = 64 << 20
    /// A file with other hard links may have at most this much rewritten as
    /// a tail replacement in place (the journal keeps the old tail).
    static let hardLinkTailLimit: Int64 = 64 << 20

    /// An insertion: `length` bytes at `offset`, then `bytes` written at
    /// `writeOffset` (new file coordinates), with the `old` bytes they replace
    /// (from `writeOffset` to where the tail started, old coordinates); and
    /// `end`, same-size new bytes for the old file's last bytes (an MP3's
    /// ID3v1 tag), at their offset in the old file.
    struct Insertion {
        package var offset: Int64, length: Int64
        var writeOffset: Int64, bytes: [UInt8], old: [UInt8]
        package var end: (offset: Int64, bytes: [UInt8], old: [UInt8])?
    }

    /// Thrown when the file system refused to insert; the file is unchanged.
    struct InsertionUnsupported: Error {}

    /// `plan` as an insertion, when it is a rewrite whose last original
    /// segment is the original file's tail moved up by a positive multiple of
    /// the block size (new bytes after it must replace the same number of
    /// bytes at the old end),
    /// the tail is at least ``insertionMinimumTail`` and the bytes to write at
    /// most ``insertionMaximumWrite``; else nil.
    func insertionForm(of plan: FileEditPlan, size: Int64, in descriptor: Int32, url: URL) throws -> Insertion? {
        guard allowsInsertion, case .rewrite(let segments) = plan, let (divergence, all) = plan.divergence(),
            let last = all.lastIndex(where: { if case .original = $0 { true } else { false } }),
            case .original(let tail, let tailLength) = all[last]
        else { return nil }
        let endBytes = FileEditPlan.materializedBytes(all[(last + 1)...])
        let rest = all[..<(last + 1)]
        guard let endBytes, tail + tailLength + Int64(endBytes.count) == size, tailLength > 0,
            tailLength >= insertionMinimumTail, let block = Platform.blockSize(descriptor)
        else { return nil }
        let moved = segments.reduce(Int64(0)) { $0 + $1.length } - tailLength - Int64(endBytes.count) // where the tail goes
        let shift = moved - tail
        guard shift > 0, shift % block == 0 else { return nil }
        let offset = tail / block * block
        let start = min(divergence, offset)
        guard moved - start <= Self.insertionMaximumWrite, start >= 0 else { return nil }
        var bytes = try FileIO.read(descriptor, at: start, count: Int(divergence - start), url: url)
        for segment in rest.dropLast() {
            switch segment {
            case .bytes(let new): bytes += new
            case .original(let from, let length):
                guard from >= 0, length >= 0, from + length <= size else {
                    throw MediaError(.invalidValue, "plan copies bytes from outside the file", offset: from, path: url.path)
                }
                bytes += try FileIO.read(descriptor, at: from, count: Int(length), url: url)
            }
        }
        let old = try FileIO.read(descriptor, at: start, count: Int(tail - start), url: url)
        let endOffset = tail + tailLength
        let end =
            endBytes.isEmpty
            ? nil
            : (endOffset, endBytes, try FileIO.read(descriptor, at: endOffset, count: endBytes.count, url: url))
        return Insertion(offset: offset, length: shift, writeOffset: start, bytes: bytes, old: old, end: end)
    }

    /// Inserts the space and writes the new bytes, journaled like every
    /// in-place save (``patchInPlace(_:url:snapshot:journal:writes:newSize:store:verify:)``).
    /// Throws ``InsertionUnsupported`` when the file system can't insert.
    func insert<Checked>(
        _ insertion: Insertion, into descriptor: Int32, url: URL, snapshot: FileSnapshot,
        verify: (URL) throws -> Checked
    ) throws -> Checked {
        // The journal sees the file with the inserted range cut out again.
        let cut = Int(insertion.offset - insertion.writeOffset)
        let collapsed = Array(insertion.bytes[..<cut]) + insertion.bytes[(cut + Int(insertion.length))...]
        var regions = [(offset: insertion.writeOffset, bytes: insertion.old)]
        var written = [(offset: insertion.writeOffset, bytes: collapsed)]
        var writes = [(offset: insertion.writeOffset, bytes: insertion.bytes)]
        if let end = insertion.end {
            regions.append((end.offset, end.old))
            written.append((end.offset, end.bytes))
            writes.append((end.offset + insertion.length, end.bytes))
        }
        let journal = EditJournal(
            fileSize: snapshot.size, regions: regions, written: written,
            insertion: (insertion.offset, insertion.length))
        return try patchInPlace(
            descriptor, url: url, snapshot: snapshot, journal: journal, writes: writes, newSize: nil,
            store: FileJournalStore(), verify: verify)
    }

    /// The insert itself (step ``Step/insert``).
    func insertSpace(_ insertion: (offset: Int64, length: Int64), into descriptor: Int32, url: URL) throws {
        try step(.insert) {
            guard Platform.insertRange(descriptor, at: insertion.offset, length: insertion.length) == 0 else {
                throw InsertionUnsupported()
            }
        }
    }

    /// The number of names (hard links) the open file has.
    static func linkCount(_ descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_nlink) : 1
    }

    /// `url`, or the file it names when it is a symbolic link (saving
    /// changes the file a link names; renaming over the link would replace it).
    package static func resolvingSymbolicLink(_ url: URL) -> URL {
        symbolicLinkTarget(url.path).map { URL(fileURLWithPath: $0, isDirectory: false) } ?? url
    }

    /// The real path of the file the symbolic link at `path` names; nil
    /// when `path` is not a symbolic link (one `lstat`: every load asks).
    static func symbolicLinkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
