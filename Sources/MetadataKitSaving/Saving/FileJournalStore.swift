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

/// Journals as files beside the saved file: `.inode-N.mdkit-journal`, named
/// after the file's inode (``EditJournal/location(for:inode:)``), so that any
/// spelling of the file's name finds it — written and synced before the file
/// is touched, removed when the save is done. A batch writes one journal per
/// folder and hard-links it under each file's journal name
/// (``EditJournal/encodeBatch(_:)``); recovery reads both kinds, and the
/// `.NAME.mdkit-journal` journals of earlier versions.
struct FileJournalStore: JournalStore {
    package func write(_ journal: EditJournal, of file: FileSnapshot, url: URL) throws -> String {
        try EditJournal.create(journal, at: EditJournal.path(for: url.path, inode: file.inode))
    }

    package func sync(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(path: path)
        try FileIO.syncFolder(of: url)
    }

    package func remove(_ path: String) { unlink(path) }

    func syncRemoval(_ path: String, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.syncFolder(of: url)
    }

    package func keep(_ path: String) {}

    /// Recovers the file at `path` (with this inode) from a journal beside
    /// it, if there is one; true when its old bytes were put back.
    /// Every load asks (one `access` per name), and almost never finds one.
    static func recoverPending(path: String, inode: UInt64) throws -> Bool {
        guard let journalPath = existingJournal(of: path, inode: inode) else { return false }
        return try JournalRecovery.replay(
            fileAt: path, durable: true,
            reading: {
                FileManager.default.contents(atPath: journalPath).map { [UInt8]($0) }
            }, remove: { unlink(journalPath) })
    }

    /// The path of the journal beside the file at `path` that exists —
    /// ``EditJournal/location(for:inode:)``, else the name's of earlier
    /// versions (``EditJournal/legacyName(for:)``) — or nil. Both paths are
    /// built as bytes in one buffer. Speed only: every load asks, and a
    /// `String` per piece cost more than the rest of the check.
    /// With ``JournalListings`` on, a listing of the folder answers instead
    /// when there is a fresh one (no journal there: no path built at all).
    static func existingJournal(of path: String, inode: UInt64, listings: JournalListings = .shared) -> String? {
        var buffer = JournalPathBuffer(capacity: path.utf8.count + 40)
        buffer.append(path.utf8)
        let nameStart = (buffer.bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
        let listed =
            nameStart > 1 ? listings.journals(in: String(decoding: buffer.bytes[..<(nameStart - 1)], as: UTF8.self)) : nil
        if listed?.isEmpty == true { return nil }
        let name = buffer.bytes[nameStart...]
        var candidate = JournalPathBuffer(capacity: path.utf8.count + 40)
        candidate.append(buffer.bytes[..<nameStart])
        candidate.append(".inode-".utf8)
        candidate.append(decimal: inode)
        candidate.append(".mdkit-journal".utf8)
        if candidate.exists(among: listed, nameStart: nameStart) { return candidate.string }
        candidate.bytes.removeSubrange(nameStart...)
        candidate.append(".".utf8)
        candidate.append(name)
        candidate.append(".mdkit-journal".utf8)
        return candidate.exists(among: listed, nameStart: nameStart) ? candidate.string : nil
    }

    /// ``recoverPending(path:inode:)`` for the file at `path` as it is now
    /// (false when it can't be `stat`ed: nothing to recover).
    static func recoverPending(path: String) throws -> Bool {
        guard let identity = Platform.identity(ofFileAt: path) else { return false }
        return try recoverPending(path: path, inode: identity.inode)
    }
}

/// A path built from bytes, checked with `access(2)` without a `String`.
struct JournalPathBuffer {
    package var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity + 1)
    }

    package mutating func append<Bytes: Sequence>(_ more: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: more)
    }

    /// Appends `value` in decimal digits.
    package mutating func append(decimal value: UInt64) {
        // Digits from the last, into a buffer on the stack (a UInt64 has at
        // most 20), appended in one go.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            var rest = value
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Whether something exists at the path, asking the file system only
    /// when the name from `nameStart` on is among `listed` (the journals of a
    /// listing of the folder) or there is no listing: a listing answers
    /// "none" alone, and a journal it lists may be gone since (replayed by
    /// an earlier load of this process).
    package mutating func exists(among listed: Set<String>?, nameStart: Int) -> Bool {
        if let listed, !listed.contains(String(decoding: bytes[nameStart...], as: UTF8.self)) { return false }
        return exists()
    }

    /// Whether something exists at the path (`access(F_OK)`).
    package mutating func exists() -> Bool {
        bytes.append(0)
        defer { bytes.removeLast() }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { access($0.baseAddress!, F_OK) == 0 }
        }
    }

    package var string: String { String(decoding: bytes, as: UTF8.self) }
}

extension EditJournal {
    /// Writes `journal` as a new file at `path` (removed again when the
    /// write fails) and returns the path: what every journal store does.
    package static func create(_ journal: EditJournal, at path: String) throws -> String {
        do {
            try FileIO.createFile(URL(fileURLWithPath: path, isDirectory: false), holding: journal.encoded())
        } catch {
            unlink(path)
            throw error
        }
        return path
    }
}
