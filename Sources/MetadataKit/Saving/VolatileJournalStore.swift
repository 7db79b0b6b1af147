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

/// The undo journals of saves without fsync, kept in RAM in a few slot files
/// per process that are reused, instead of one new file per save.
///
/// A save without fsync only promises to survive a crashed process, so its
/// journal lives in a RAM file system (`/dev/shm`), in a folder of the user's
/// own (`mdkit-UID`, mode 0700). Creating and deleting a file per save was a
/// large part of what such a save cost; a slot is created once, locked
/// (`flock`) for as long as its process lives, and overwritten by every save
/// that uses it.
///
/// Slot layout (big-endian): magic `MDKS`, u32 version 1, u64 device, u64
/// inode (the file the journal belongs to), u64 length, then `length` bytes
/// of an ``EditJournal`` (which carries its own checksum). A slot whose first
/// four bytes are not the magic is empty; clearing a slot zeroes them.
///
/// On load, ``recoverPending(path:device:inode:)`` looks at the slots of other
/// processes (the folder's listing is cached by ``JournalLookup``, and it only
/// changes when a process creates or removes its slots): an empty slot whose
/// lock is free belonged to a process that is gone and is removed; a slot
/// holding this file's journal is applied when its process is gone (the save
/// was interrupted), or waited for — through the file's own lock — when it is
/// still saving.
///
/// Locks: a slot's process holds it exclusively for as long as it lives. Other
/// loads only ask whether that process is gone, with a shared lock they hold
/// for a moment, so a load of one file looking at the slot of another never
/// makes a recovery of that other file think its process is alive. Only the
/// load that recovers from a slot locks it exclusively. A slot is made under
/// a name loads skip (`mdkit-journal-new-…`) and renamed once it is locked, so
/// no load takes a slot being made for one left by a dead process.
///
/// Speed only (against journals beside the file for --no-sync saves): no file created, synced and removed per save.
final class VolatileJournalStore: @unchecked Sendable {
    /// The store, or nil when there is no usable RAM folder (saves without
    /// fsync then journal beside the file, like the others).
    static let shared: VolatileJournalStore? = VolatileJournalStore()

    /// One slot file of this process.
    final class Slot: @unchecked Sendable {
        let descriptor: Int32
        let name: String
        init(descriptor: Int32, name: String) {
            self.descriptor = descriptor
            self.name = name
        }
    }

    let directory: String
    /// The device of the store's folder: a journal synced there survives a
    /// power cut with the file only when the file is on it too (and the
    /// folder is on disk, ``Platform/volatileFolderIsOnDisk``).
    let device: UInt64
    private let lock = Lock()
    private var free: [Slot] = []
    private var own: [String: Slot] = [:]
    /// The store folder, kept open to `fstat` it.
    private let directoryDescriptor: Int32
    /// Whether the folder's size counts its entries, as tmpfs's does
    /// (``Platform/volatileFolderSizes``): then a size that counts only this process's slots
    /// says there is no other slot, without listing the folder (other
    /// processes never remove a live slot, so this process's slots are all
    /// there). Checked when this process makes its first slot — the size must
    /// grow by one entry and count every entry listed — nil until then, false
    /// if it does not hold (other file systems, or a slot made meanwhile).
    /// Speed only: a load's RAM-journal check is one `fstat` instead of a folder listing.
    private var sizeCountsEntries: Bool?
    /// The folder sizes that count entries (``Platform/volatileFolderSizes``); nil where none do.
    static let folderSizes = Platform.volatileFolderSizes
    /// Slots of processes that are gone holding a journal of another file
    /// (device, inode): looked at once, then skipped by later loads.
    /// Speed only: spares later loads an `open` and `pread` per such slot.
    private var deadElsewhere: [String: (UInt64, UInt64)] = [:]
    static let magic: [UInt8] = Array("MDKS".utf8)
    /// The names of slots, and of slots being made (not yet locked).
    static let slotPrefix = "mdkit-journal-slot-", newSlotPrefix = "mdkit-journal-new-"
    static let headerLength = 32

    private init?() {
        guard let base = EditJournal.volatileDirectory else { return nil }
        let path = "\(base)/mdkit-\(geteuid())"
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        directory = path
        directoryDescriptor = descriptor
        device = Platform.deviceNumber(info.st_dev)
        atexit { VolatileJournalStore.shared?.removeFreeSlots() }
    }

    // MARK: Saving

    /// Writes `journal`, the undo journal of the file with this device and
    /// inode, into a free slot of this process (made when there is none).
    func write(_ journal: EditJournal, device: UInt64, inode: UInt64, url: URL) throws -> Slot {
        let slot = try takeSlot(url: url)
        let body = journal.encoded()
        var writer = ByteWriter()
        writer.write(Self.magic)
        writer.write(UInt32(1))
        writer.write(device)
        writer.write(inode)
        writer.write(UInt64(body.count))
        writer.write(body)
        do {
            try FileIO.write(
                slot.descriptor, writer.bytes, at: 0, url: URL(fileURLWithPath: "\(directory)/\(slot.name)", isDirectory: false))
        } catch {
            clear(slot)
            throw error
        }
        return slot
    }

    /// Empties `slot` (its save is done or undone) and makes it free again.
    func clear(_ slot: Slot) {
        let zeros: [UInt8] = [0, 0, 0, 0]
        guard (try? FileIO.write(slot.descriptor, zeros, at: 0, url: URL(fileURLWithPath: directory, isDirectory: true))) != nil else {
            return // not cleared: stays taken, and stays for a later load
        }
        lock.lock()
        free.append(slot)
        lock.unlock()
    }

    /// Gives up `slot`, whose journal must stay (the old bytes could not be
    /// put back): its lock is released, so the next load — in this process or
    /// another — recovers the file from it as from a process that died.
    func abandon(_ slot: Slot) {
        lock.lock()
        own[slot.name] = nil
        lock.unlock()
        close(slot.descriptor)
    }

    private func takeSlot(url: URL) throws -> Slot {
        lock.lock()
        defer { lock.unlock() }
        if let slot = free.popLast() { return slot }
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next(), radix: 16)
        let name = Self.slotPrefix + suffix, making = "\(directory)/\(Self.newSlotPrefix)\(suffix)"
        let sizeBefore = folderSize()
        // Made under a name loads skip, and given its slot name once locked:
        // a load never sees it unlocked and takes it for a dead process's.
        let descriptor = open(making, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot create a journal in \(directory): \(systemErrorText())", path: url.path)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(making, "\(directory)/\(name)") == 0 else {
            let reason = systemErrorText()
            close(descriptor)
            unlink(making)
            throw MediaError(.io, "cannot lock a new journal in \(directory): \(reason)", path: url.path)
        }
        let slot = Slot(descriptor: descriptor, name: name)
        own[name] = slot
        if sizeCountsEntries == nil {
            // The size must have grown by one entry and count every entry listed.
            if let sizes = Self.folderSizes {
                let sizeAfter = folderSize(), entries = JournalLookup.entryNames(in: directory)?.count
                sizeCountsEntries =
                    sizeBefore.map { $0 + sizes.entry } == sizeAfter
                    && entries.map { sizes.empty + sizes.entry * $0 } == sizeAfter
            } else {
                sizeCountsEntries = false
            }
        }
        return slot
    }

    private func folderSize() -> Int? {
        var info = stat()
        return fstat(directoryDescriptor, &info) == 0 ? Int(info.st_size) : nil
    }

    /// At exit: the empty slots of this process go (a slot still holding a
    /// journal stays for the next load to recover from).
    private func removeFreeSlots() {
        lock.lock()
        defer { lock.unlock() }
        for slot in free { unlink("\(directory)/\(slot.name)") } // free slots were cleared
    }

    // MARK: Recovering

    /// Applies the journal another process left for the file at `path`
    /// (device, inode) when it died while saving it; true when one was applied.
    func recoverPending(path: String, device: UInt64, inode: UInt64) throws -> Bool {
        lock.lock()
        let calibrated = sizeCountsEntries == true, mine = own.count
        lock.unlock()
        if calibrated, let sizes = Self.folderSizes, folderSize() == sizes.empty + sizes.entry * mine {
            return false // no slot of another process
        }
        guard let names = JournalLookup.shared.names(in: directory) else { return false }
        lock.lock()
        let foreign = names.filter { name in
            guard name.hasPrefix(Self.slotPrefix), own[name] == nil else { return false }
            // A dead process's journal of another file, seen before: it cannot change.
            if let target = deadElsewhere[name], target != (device, inode) { return false }
            return true
        }
        lock.unlock()
        for name in names where name.hasPrefix(Self.newSlotPrefix) { removeIfAbandoned("\(directory)/\(name)") }
        var recovered = false
        for name in foreign.sorted() {
            let slotPath = "\(directory)/\(name)"
            let descriptor = open(slotPath, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard let header = Self.header(of: descriptor) else {
                // Empty: its process is gone when its lock is free.
                if Self.processIsGone(descriptor) { unlink(slotPath) }
                continue
            }
            guard header.device == device, header.inode == inode else {
                if Self.processIsGone(descriptor) { // remember whose it is
                    lock.lock()
                    if deadElsewhere.count < 1024 { deadElsewhere[name] = (header.device, header.inode) }
                    lock.unlock()
                }
                continue
            }
            // Locked for recovery; read again: another load may have recovered from it meanwhile.
            guard Self.lockForRecovery(descriptor, device: device, inode: inode, path: path),
                let (header, info) = Self.journal(in: descriptor, device: device, inode: inode)
            else { continue }
            guard header.length <= UInt64(max(0, Int64(info.st_size) - Int64(Self.headerLength))) else {
                unlink(slotPath) // torn: the patch never started
                continue
            }
            let url = URL(fileURLWithPath: path, isDirectory: false)
            let length = Int(header.length)
            if try JournalRecovery.replay(
                fileAt: path, durable: Platform.volatileFolderIsOnDisk,
                reading: {
                    try FileIO.read(descriptor, at: Int64(Self.headerLength), count: length, url: url)
                }, remove: { unlink(slotPath) })
            {
                recovered = true
            }
        }
        return recovered
    }

    /// Removes a slot being made that its process left before locking it (it
    /// died in between): unlocked, and made more than a second ago.
    private func removeIfAbandoned(_ making: String) {
        let descriptor = open(making, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return } // renamed meanwhile: a slot now
        defer { close(descriptor) }
        var info = stat()
        guard Self.processIsGone(descriptor), fstat(descriptor, &info) == 0,
            JournalLookup.now() - JournalLookup.seconds(info.changeTime) > 1
        else { return }
        unlink(making)
    }

    /// Whether the process that made the slot open as `descriptor` is gone:
    /// its exclusive lock is not held. Asked with a shared lock, held until
    /// the descriptor is closed, which other loads' questions share.
    private static func processIsGone(_ descriptor: Int32) -> Bool {
        flock(descriptor, LOCK_SH | LOCK_NB) == 0
    }

    /// Locks the slot open as `descriptor`, holding the journal of the file at
    /// `path` (device, inode), exclusively once its process is gone; false
    /// when it is alive, or another load removed or cleared the slot.
    ///
    /// Held shared, the slot is being looked at by other loads (for a moment):
    /// its process is gone, and the exclusive lock is waited for. Held
    /// exclusively, its process is saving the file, or another load is
    /// recovering it: both hold the file's lock until done, so that is waited
    /// for, and the slot looked at again; a process that is alive, not saving
    /// and still holding a journal (it could not clear the slot) is left alone.
    private static func lockForRecovery(_ descriptor: Int32, device: UInt64, inode: UInt64, path: String) -> Bool {
        for attempt in 0..<10 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if processIsGone(descriptor) { return flock(descriptor, LOCK_EX) == 0 }
            waitForSave(of: path)
            // Done when the save cleared it, or a recovery removed it.
            guard journal(in: descriptor, device: device, inode: inode) != nil else { return false }
            if attempt > 0 { usleep(1000) } // a recovery that has not locked the file yet
        }
        return false
    }

    /// The header of the slot open as `descriptor`, and its `stat`, while it
    /// holds the journal of the file with this device and inode; nil when it
    /// no longer does (cleared) or was removed (by a load that recovered from it).
    private static func journal(in descriptor: Int32, device: UInt64, inode: UInt64) -> (
        header: (device: UInt64, inode: UInt64, length: UInt64), info: stat
    )? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_nlink > 0, let header = header(of: descriptor),
            header.device == device, header.inode == inode
        else { return nil }
        return (header, info)
    }

    /// Blocks until the save holding the file's lock is done.
    private static func waitForSave(of path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_SH)
        close(descriptor)
    }

    /// The header of the slot, or nil when it is empty or unreadable.
    private static func header(of descriptor: Int32) -> (device: UInt64, inode: UInt64, length: UInt64)? {
        var bytes = [UInt8](repeating: 0, count: headerLength)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, headerLength, 0) }
        guard got == headerLength, Array(bytes[0..<4]) == magic else { return nil }
        var reader = ByteReader(bytes)
        guard (try? reader.skip(4)) != nil, (try? reader.readUInt32()) == 1,
            let device = try? reader.readUInt64(), let inode = try? reader.readUInt64(),
            let length = try? reader.readUInt64()
        else { return nil }
        return (device, inode, length)
    }
}

/// The RAM slots as a ``JournalStore``: nothing to sync (a save without fsync
/// promises to survive a crashed process, not a crashed machine); a removed
/// journal leaves its slot cleared and free for the next save.
extension VolatileJournalStore: JournalStore {
    func write(_ journal: EditJournal, of file: FileSnapshot, url: URL) throws -> Slot {
        try write(journal, device: file.device, inode: file.inode, url: url)
    }

    /// Durable (a save whose file's folder can't hold its journal, on a
    /// system whose store is on disk): the slot and the folder naming it.
    func sync(_ slot: Slot, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(slot.descriptor, path: "\(directory)/\(slot.name)")
        try FileIO.sync(directoryDescriptor, path: directory)
    }

    func remove(_ slot: Slot) { clear(slot) }

    /// Durable: the cleared slot, so that a power cut can't bring back the
    /// journal of a finished save.
    func syncRemoval(_ slot: Slot, url: URL, durable: Bool) throws {
        guard durable else { return }
        try FileIO.sync(slot.descriptor, path: "\(directory)/\(slot.name)")
    }

    func keep(_ slot: Slot) { abandon(slot) }
}
