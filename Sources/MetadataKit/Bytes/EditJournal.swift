import Foundation
import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The undo journal of an in-place save: the bytes about to be overwritten,
/// and the bytes about to be written.
///
/// Layout (big-endian): magic `MDKJ`, u32 version (1 or 2), u64 file size,
/// u32 region count, then per region u64 offset + u32 length + the old bytes;
/// version 2 goes on with u32 count, per region u64 offset + u32 length + the
/// new bytes, and u64 the new file size (all ones: unchanged); last a u32
/// CRC-32 of everything before it. A journal whose checksum does not match
/// was torn while being written — the file itself was not touched yet — and
/// is discarded.
///
/// The new bytes let a recovery tell an interrupted save (every byte of every
/// region is old or new, the size between the old and the new one) from a
/// file that someone else changed after the crash — or a file that took a
/// dead file's inode: such a file is left alone (``matchesInterruptedSave(_:)``).
struct EditJournal: Equatable {
    var fileSize: Int64
    var regions: [(offset: Int64, bytes: [UInt8])]
    /// What the save writes, region by region (version 2); nil in version 1.
    var written: [(offset: Int64, bytes: [UInt8])]?
    /// The file's size after the save (version 2; nil: unchanged).
    var newSize: Int64?

    static func == (a: EditJournal, b: EditJournal) -> Bool {
        func same(_ x: [(offset: Int64, bytes: [UInt8])], _ y: [(offset: Int64, bytes: [UInt8])]) -> Bool {
            x.count == y.count && zip(x, y).allSatisfy { $0.offset == $1.offset && $0.bytes == $1.bytes }
        }
        return a.fileSize == b.fileSize && same(a.regions, b.regions) && a.newSize == b.newSize
            && (a.written == nil) == (b.written == nil) && same(a.written ?? [], b.written ?? [])
    }

    init(fileSize: Int64, regions: [(offset: Int64, bytes: [UInt8])],
         written: [(offset: Int64, bytes: [UInt8])]? = nil, newSize: Int64? = nil) {
        self.fileSize = fileSize
        self.regions = regions
        self.written = written
        self.newSize = newSize
    }

    /// The journal's path for `url`: `.NAME.mdkit-journal` in the same folder.
    static func url(for url: URL) -> URL {
        URL(fileURLWithPath: path(for: url.path), isDirectory: false)
    }

    /// The RAM file system where journals of saves without fsync go (see
    /// ``VolatileJournalStore``). Such a journal survives a crashed process,
    /// not a crashed machine — which is all a save without fsync promises.
    static let volatileDirectory: String? = {
        var info = stat()
        return stat("/dev/shm", &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : nil
    }()

    /// The journal's path for the file at `path` (plain string work: this runs on every load).
    static func path(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(path).mdkit-journal" }
        return "\(path[...slash]).\(path[path.index(after: slash)...]).mdkit-journal"
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Array("MDKJ".utf8))
        writer.write(UInt32(written == nil ? 1 : 2))
        writer.write(UInt64(fileSize))
        func write(_ regions: [(offset: Int64, bytes: [UInt8])]) {
            writer.write(UInt32(regions.count))
            for region in regions {
                writer.write(UInt64(region.offset))
                writer.write(UInt32(region.bytes.count))
                writer.write(region.bytes)
            }
        }
        write(regions)
        if let written {
            write(written)
            writer.write(newSize.map { UInt64($0) } ?? UInt64.max)
        }
        writer.write(Self.checksum(writer.bytes))
        return writer.bytes
    }

    /// Decodes a journal; nil when it is torn or not a journal.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= 24 else { return nil }
        var trailer = ByteReader(Array(bytes[(bytes.count - 4)...]))
        guard let stored = try? trailer.readUInt32(), stored == Self.checksum(bytes[..<(bytes.count - 4)]) else { return nil }
        var reader = ByteReader(Array(bytes[..<(bytes.count - 4)]))
        do {
            guard try reader.readBytes(4) == Array("MDKJ".utf8) else { return nil }
            let version = try reader.readUInt32()
            guard version == 1 || version == 2 else { return nil }
            fileSize = Int64(bitPattern: try reader.readUInt64())
            func readRegions() throws -> [(offset: Int64, bytes: [UInt8])]? {
                let count = Int(try reader.readUInt32())
                guard count <= reader.remaining / 12 else { return nil }
                var regions: [(offset: Int64, bytes: [UInt8])] = []
                for _ in 0..<count {
                    let offset = Int64(bitPattern: try reader.readUInt64())
                    let length = Int(try reader.readUInt32())
                    regions.append((offset, try reader.readBytes(length)))
                }
                return regions
            }
            guard let old = try readRegions() else { return nil }
            regions = old
            if version == 2 {
                guard let new = try readRegions(), new.count == old.count else { return nil }
                written = new
                let size = try reader.readUInt64()
                newSize = size == UInt64.max ? nil : Int64(bitPattern: size)
            }
        } catch {
            return nil
        }
    }

    /// A batch journal: the journals of several files of one folder in one
    /// file, which is hard-linked under each file's journal name (one inode
    /// for the batch instead of one per file). Layout: magic `MDKB`, u32
    /// version 1, u32 count, per file u16 name length + name + u32 length +
    /// that file's journal; last a u32 CRC-32 of everything before it.
    static func encodeBatch(_ entries: [(name: String, journal: EditJournal)]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Array("MDKB".utf8))
        writer.write(UInt32(1))
        writer.write(UInt32(entries.count))
        for entry in entries {
            let name = Array(entry.name.utf8)
            let journal = entry.journal.encoded()
            writer.write(UInt16(name.count))
            writer.write(name)
            writer.write(UInt32(journal.count))
            writer.write(journal)
        }
        writer.write(checksum(writer.bytes))
        return writer.bytes
    }

    /// The journal of the file named `fileName` in `bytes`, a single or a
    /// batch journal; nil when torn or when it holds nothing for that file.
    static func decode(_ bytes: [UInt8], fileName: String) -> EditJournal? {
        guard bytes.starts(with: Array("MDKB".utf8)) else { return EditJournal(decoding: bytes) }
        guard bytes.count >= 16 else { return nil }
        var trailer = ByteReader(Array(bytes[(bytes.count - 4)...]))
        guard let stored = try? trailer.readUInt32(), stored == checksum(bytes[..<(bytes.count - 4)]) else { return nil }
        var reader = ByteReader(Array(bytes[4..<(bytes.count - 4)]))
        guard (try? reader.readUInt32()) == 1, let count = try? reader.readUInt32() else { return nil }
        for _ in 0..<count {
            guard let nameLength = try? reader.readUInt16(), let name = try? reader.readBytes(Int(nameLength)),
                  let length = try? reader.readUInt32(), let journal = try? reader.readBytes(Int(length)) else { return nil }
            if String(decoding: name, as: UTF8.self) == fileName { return EditJournal(decoding: journal) }
        }
        return nil
    }

    /// Whether the file is as the journaled save could have left it: every
    /// byte of every region old or new, and a size between the old and the
    /// new one. Always true for a version 1 journal (it has no new bytes).
    func matchesInterruptedSave(_ descriptor: Int32) -> Bool {
        guard let written else { return true }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        let size = Int64(info.st_size), after = newSize ?? fileSize
        guard size >= min(fileSize, after), size <= max(fileSize, after) else { return false }
        for (old, new) in zip(regions, written) {
            guard old.offset == new.offset, old.offset >= 0 else { return false }
            let length = Int64(max(old.bytes.count, new.bytes.count))
            let count = Int(max(0, min(length, size - old.offset)))
            guard count > 0 else { continue }
            var current = [UInt8](repeating: 0, count: count)
            let got = current.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(old.offset)) }
            guard got == count else { return false }
            for index in 0..<count {
                let byte = current[index]
                let wasOld = index < old.bytes.count && old.bytes[index] == byte
                let isNew = index < new.bytes.count && new.bytes[index] == byte
                if !wasOld && !isNew { return false }
            }
        }
        return true
    }

    /// Writes the saved bytes back into the file and gives it its old size.
    func restore(into descriptor: Int32, url: URL) throws {
        for region in regions {
            guard region.offset >= 0, region.offset + Int64(region.bytes.count) <= fileSize else {
                throw MediaError(.io, "the journal does not match the file; not restoring", path: url.path)
            }
        }
        for region in regions {
            try FileEditor.write(descriptor, region.bytes, at: region.offset, url: url)
        }
        guard ftruncate(descriptor, off_t(fileSize)) == 0 else {
            throw MediaError(.io, "cannot restore the file's size", path: url.path)
        }
    }

    static func checksum<Bytes: Collection>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        Array(bytes).withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
    }
}
