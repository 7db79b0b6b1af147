import CZlib
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

/// The undo journal of an in-place save: the bytes about to be overwritten,
/// and a fingerprint of the bytes about to be written.
///
/// Layout (big-endian): magic `MDKJ`, u32 version (1 or 2), u64 file size,
/// u32 region count, then per region u64 offset + u32 length + the old bytes;
/// version 2 goes on with, per region, u32 new length + u32 block count + a
/// u32 checksum per block of the new bytes, and u64 the new file size (all
/// ones: unchanged); last a u32 checksum of everything before it — CRC-32 in
/// version 1, the low half of a ``Fingerprint`` in version 2, also for the
/// blocks. Version 3 (a save that inserts space, ``insertion``) goes on
/// with u64 the insertion offset and u64 its length; its regions and sizes
/// are those of the file with the inserted range removed again. A journal
/// whose checksum does not match was torn while being written — the file
/// itself was not touched yet — and is discarded.
///
/// Blocks are the 512-byte sectors of the file that a region covers (the
/// first and last cut to the region): a write torn by a killed process stops
/// at a page boundary, one torn by a power cut at a sector boundary, so a
/// sector of an interrupted save holds old bytes or new ones. That lets a
/// recovery tell an interrupted save — every sector old, new, or (past the
/// old end of the file) still zero, the size between the old and the new one
/// — from a file that someone else changed after the crash, or another file
/// that took a dead file's inode: such a file is left alone
/// (``matchesInterruptedSave(_:)``).
struct EditJournal: Equatable {
    package var fileSize: Int64
    var regions: [(offset: Int64, bytes: [UInt8])]
    /// Per region, the length and the sector checksums of what the save
    /// writes there (version 2); nil in version 1.
    package var written: [(length: Int, checksums: [UInt32])]?
    /// The file's size after the save (version 2; nil: unchanged).
    package var newSize: Int64?
    /// Space the save inserts (version 3): `length` bytes at `offset`
    /// (``Platform/insertRange(_:at:length:)``). Recovery removes them again
    /// when the file is `length` bytes longer than ``fileSize``, then puts the
    /// old bytes back.
    package var insertion: (offset: Int64, length: Int64)?
    package static let blockSize: Int64 = 512

    package static func == (a: EditJournal, b: EditJournal) -> Bool {
        a.fileSize == b.fileSize && a.newSize == b.newSize
            && a.regions.elementsEqual(b.regions) { $0.offset == $1.offset && $0.bytes == $1.bytes }
            && a.insertion?.offset == b.insertion?.offset && a.insertion?.length == b.insertion?.length
            && (a.written == nil) == (b.written == nil)
            && (a.written ?? []).elementsEqual(b.written ?? []) { $0.length == $1.length && $0.checksums == $1.checksums }
    }

    /// A journal of `regions` (old bytes); with `written` (the new bytes of
    /// each region, at the same offsets) a version 2 journal.
    init(
        fileSize: Int64, regions: [(offset: Int64, bytes: [UInt8])],
        written: [(offset: Int64, bytes: [UInt8])]? = nil, newSize: Int64? = nil,
        insertion: (offset: Int64, length: Int64)? = nil
    ) {
        self.fileSize = fileSize
        self.insertion = written == nil ? nil : insertion
        self.regions = regions
        self.written = written.map { $0.map { ($0.bytes.count, Self.blockChecksums(of: $0.bytes, at: $0.offset)) } }
        self.newSize = newSize
    }

    /// The bounds, relative to `offset`, of the sectors that `length` bytes at
    /// `offset` of the file cover (the first and last cut to those bytes).
    package static func blocks(at offset: Int64, length: Int64) -> [Range<Int64>] {
        var blocks: [Range<Int64>] = []
        var start: Int64 = 0
        while start < length {
            let end = min(length, (offset + start) / blockSize * blockSize + blockSize - offset)
            blocks.append(start..<end)
            start = end
        }
        return blocks
    }

    static func blockChecksums(of bytes: [UInt8], at offset: Int64) -> [UInt32] {
        bytes.withUnsafeBytes { buffer in
            blocks(at: offset, length: Int64(bytes.count)).map { block in
                sectorChecksum(UnsafeRawBufferPointer(rebasing: buffer[Int(block.lowerBound)..<Int(block.upperBound)]))
            }
        }
    }

    /// The journal's path for the file at `url` (its inode read now; the
    /// name's when the file can't be `stat`ed).
    package static func url(for url: URL) -> URL {
        URL(fileURLWithPath: path(for: url.path), isDirectory: false)
    }

    /// The journal's path for the file at `path`, whose inode is read now
    /// (``path(for:inode:)``; the name's journal, ``legacyName(for:)``, when
    /// the file can't be `stat`ed).
    package static func path(for path: String) -> String {
        guard let identity = Platform.identity(ofFileAt: path) else {
            let (directory, name) = (folder(of: path), legacyName(for: path))
            return join(directory, name)
        }
        return self.path(for: path, inode: identity.inode)
    }

    /// The journal's path for the file at `path` with this inode.
    package static func path(for path: String, inode: UInt64) -> String {
        let (directory, name) = location(for: path, inode: inode)
        return join(directory, name)
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : directory == "/" ? "/" + name : directory + "/" + name
    }

    /// The folder (without a trailing slash; "" for the current one) and the
    /// name of the journal of the file at `path` with this inode:
    /// `.inode-N.mdkit-journal`, named after the file's identity, not the
    /// spelling of its path — on a case-insensitive volume (APFS, HFS+)
    /// `Song.mp3` and `song.mp3` are one file, with one journal, and so are
    /// hard links in one folder. The folder pins the file system (a folder's
    /// entries live on its volume), so the inode alone names the file there;
    /// device numbers are left out because they can change across reboots
    /// (USB disks), when a journal matters most. A file that took a dead
    /// file's inode is told apart by the journal's sector fingerprints
    /// (``matchesInterruptedSave(_:)``). Plain string work: every load asks.
    package static func location(for path: String, inode: UInt64) -> (directory: String, name: String) {
        (folder(of: path), "." + identityKey(inode: inode) + ".mdkit-journal")
    }

    /// The name of the file's entry in a batch journal (``encodeBatch(_:)``):
    /// its identity, as in its journal's name.
    static func identityKey(inode: UInt64) -> String { "inode-" + String(inode) }

    /// The journal name earlier versions used, `.NAME.mdkit-journal` after the
    /// spelling of the file's name; still recovered from.
    static func legacyName(for path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." + path + ".mdkit-journal" }
        return "." + String(path[path.utf8.index(after: slash)...]) + ".mdkit-journal"
    }

    /// The folder of `path` without a trailing slash ("" for the current one).
    package static func folder(of path: String) -> String {
        // The last "/" found in the UTF-8 bytes (searching characters from the end cost more than the lookup).
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: encodedCapacity)
        encode(into: &writer)
        return writer.bytes
    }

    /// At least the length of ``encoded()``: sized up front, since the regions
    /// hold the bytes a save replaces (a tag with its pictures), which growing
    /// a buffer would copy again.
    private var encodedCapacity: Int {
        let regionBytes = regions.reduce(0) { $0 + 12 + $1.bytes.count }
        let checksumBytes = written.map { $0.reduce(0) { $0 + 8 + 8 * $1.checksums.count } } ?? 0
        return 64 + regionBytes + checksumBytes
    }

    /// Appends ``encoded()`` to `writer`.
    private func encode(into writer: inout ByteWriter) {
        let start = writer.count
        writer.write(Array("MDKJ".utf8))
        writer.write(UInt32(encodedVersion))
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
            for region in written {
                writer.write(UInt32(region.length))
                writer.write(UInt32(region.checksums.count))
                for checksum in region.checksums { writer.write(checksum) }
            }
            writer.write(newSize.map { UInt64($0) } ?? UInt64.max)
            if let insertion {
                writer.write(UInt64(insertion.offset))
                writer.write(UInt64(insertion.length))
            }
        }
        writer.write(Self.checksum(writer.bytes[start...], version: encodedVersion))
    }

    /// 1 without new-byte fingerprints, 3 with an insertion, else 2.
    private var encodedVersion: UInt32 { written == nil ? 1 : insertion == nil ? 2 : 3 }

    /// Decodes a journal; nil when it is torn or not a journal.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= 24, let version = Self.version(of: bytes) else { return nil }
        var trailer = ByteReader(Array(bytes[(bytes.count - 4)...]))
        guard let stored = try? trailer.readUInt32(), stored == Self.checksum(bytes[..<(bytes.count - 4)], version: version) else {
            return nil
        }
        var reader = ByteReader(Array(bytes[..<(bytes.count - 4)]))
        do {
            guard try reader.readBytes(4) == Array("MDKJ".utf8) else { return nil }
            let version = try reader.readUInt32()
            guard (1...3).contains(version) else { return nil }
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
            if version >= 2 {
                var new: [(length: Int, checksums: [UInt32])] = []
                for _ in old {
                    let length = Int(try reader.readUInt32())
                    let count = Int(try reader.readUInt32())
                    guard count <= reader.remaining / 4 else { return nil }
                    new.append((length, try (0..<count).map { _ in try reader.readUInt32() }))
                }
                written = new
                let size = try reader.readUInt64()
                newSize = size == UInt64.max ? nil : Int64(bitPattern: size)
            }
            if version == 3 {
                insertion = (Int64(bitPattern: try reader.readUInt64()), Int64(bitPattern: try reader.readUInt64()))
            }
        } catch {
            return nil
        }
    }

    /// A batch journal: the journals of several files of one folder in one
    /// file, which is hard-linked under each file's journal name (one inode
    /// for the batch instead of one per file). Layout: magic `MDKB`, u32
    /// version (2; 1 is still read), u32 count, per file u16 name length +
    /// name + u32 length + that file's journal; last a u32 checksum of
    /// everything before it (as in a single journal of that version). The
    /// name is the file's ``identityKey(inode:)`` (earlier versions wrote its
    /// file name; both are read).
    static func encodeBatch(_ entries: [(name: String, journal: EditJournal)]) -> [UInt8] {
        let header = batchHeader(count: entries.count)
        let parts = entries.map { batchEntry(name: $0.name, journal: $0.journal) }
        return header + parts.joined() + batchTrailer(header: header, entries: parts)
    }

    /// The start of a batch journal of `count` files (``encodeBatch(_:)``).
    static func batchHeader(count: Int) -> [UInt8] {
        var writer = ByteWriter(capacity: 12)
        writer.write(Array("MDKB".utf8))
        writer.write(UInt32(2))
        writer.write(UInt32(count))
        return writer.bytes
    }

    /// One file's part of a batch journal (``encodeBatch(_:)``): made on its
    /// own (on any core) and written where it goes, not copied into the whole.
    static func batchEntry(name: String, journal: EditJournal) -> [UInt8] {
        let name = Array(name.utf8)
        var writer = ByteWriter(capacity: 6 + name.count + journal.encodedCapacity)
        writer.write(UInt16(name.count))
        writer.write(name)
        writer.write(UInt32(0)) // the journal's length, filled in below
        let start = writer.count
        journal.encode(into: &writer)
        let length = UInt32(writer.count - start)
        writer.bytes.withUnsafeMutableBytes { $0.storeBytes(of: length.bigEndian, toByteOffset: start - 4, as: UInt32.self) }
        return writer.bytes
    }

    /// The checksum that ends a batch journal of `header` and `entries`.
    static func batchTrailer(header: [UInt8], entries: [[UInt8]]) -> [UInt8] {
        var stream = Fingerprint.Stream()
        stream.update(header)
        for entry in entries { stream.update(entry) }
        var writer = ByteWriter(capacity: 4)
        writer.write(UInt32(truncatingIfNeeded: stream.finish()))
        return writer.bytes
    }

    /// The journal of the file named `fileName` in `bytes`, a single or a
    /// batch journal; nil when torn or when it holds nothing for that file.
    package static func decode(_ bytes: [UInt8], fileName: String) -> EditJournal? {
        decode(bytes, names: [fileName])
    }

    /// The journal in `bytes`, a single one or the entry of a batch journal
    /// named one of `names` (the file's ``identityKey(inode:)``, or its file
    /// name in batches of earlier versions); nil when torn or when it holds
    /// nothing under those names.
    package static func decode(_ bytes: [UInt8], names: [String]) -> EditJournal? {
        guard bytes.starts(with: Array("MDKB".utf8)) else { return EditJournal(decoding: bytes) }
        guard bytes.count >= 16, let version = Self.version(of: bytes) else { return nil }
        var trailer = ByteReader(Array(bytes[(bytes.count - 4)...]))
        guard let stored = try? trailer.readUInt32(), stored == checksum(bytes[..<(bytes.count - 4)], version: version) else {
            return nil
        }
        var reader = ByteReader(Array(bytes[8..<(bytes.count - 4)]))
        guard let count = try? reader.readUInt32() else { return nil }
        for _ in 0..<count {
            guard let nameLength = try? reader.readUInt16(), let name = try? reader.readBytes(Int(nameLength)),
                let length = try? reader.readUInt32(), let journal = try? reader.readBytes(Int(length))
            else { return nil }
            if names.contains(String(decoding: name, as: UTF8.self)) { return EditJournal(decoding: journal) }
        }
        return nil
    }

    /// Whether the file is as the journaled save could have left it: its
    /// size between the old and the new one, and every sector of every
    /// region holding the old bytes, the new ones (by checksum), or — past the
    /// old end of the file — zeros (space a power cut left unwritten). Always
    /// true for a version 1 journal.
    func matchesInterruptedSave(_ descriptor: Int32) -> Bool {
        guard let written, written.count == regions.count else { return written == nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        var size = Int64(info.st_size)
        // After the insertion, read the file as if the inserted range were gone.
        var inserted: (offset: Int64, length: Int64)?
        if let insertion, size == fileSize + insertion.length {
            inserted = insertion
            size = fileSize
        }
        let after = newSize ?? fileSize
        guard size >= min(fileSize, after), size <= max(fileSize, after) else { return false }
        for (old, new) in zip(regions, written) {
            guard old.offset >= 0 else { return false }
            let oldLength = Int64(old.bytes.count), newLength = Int64(new.length)
            let present = max(0, min(max(oldLength, newLength), size - old.offset))
            guard present > 0 else { continue }
            var current = [UInt8](repeating: 0, count: Int(present))
            guard Self.read(descriptor, into: &current, at: old.offset, skipping: inserted) else { return false }
            let newBlocks = Self.blocks(at: old.offset, length: newLength)
            for block in Self.blocks(at: old.offset, length: max(oldLength, newLength)) where block.lowerBound < present {
                let here = block.lowerBound..<min(block.upperBound, present)
                // Old: old bytes where the old region was, zeros past the old end of the file.
                let isOld = here.allSatisfy { position in
                    position < oldLength
                        ? current[Int(position)] == old.bytes[Int(position)]
                        : old.offset + position >= fileSize && current[Int(position)] == 0
                }
                if isOld { continue }
                // New: the block's new bytes all there with the right checksum; any
                // bytes past the new length (a shrinking tail not cut yet) old.
                guard let index = newBlocks.firstIndex(where: { $0.lowerBound == block.lowerBound }),
                    here.upperBound >= newBlocks[index].upperBound
                else { return false }
                let newPart = newBlocks[index]
                let sector = current.withUnsafeBytes {
                    Self.sectorChecksum(UnsafeRawBufferPointer(rebasing: $0[Int(newPart.lowerBound)..<Int(newPart.upperBound)]))
                }
                guard sector == new.checksums[index],
                    (newPart.upperBound..<here.upperBound).allSatisfy({ $0 < oldLength && current[Int($0)] == old.bytes[Int($0)] })
                else { return false }
            }
        }
        return true
    }

    /// Fills `buffer` from `offset` of the file as it would be without the
    /// `skipping` range (bytes from its offset on are read `length` later).
    private static func read(
        _ descriptor: Int32, into buffer: inout [UInt8], at offset: Int64,
        skipping range: (offset: Int64, length: Int64)?
    ) -> Bool {
        let count = Int64(buffer.count)
        return buffer.withUnsafeMutableBytes { raw in
            var done: Int64 = 0
            while done < count {
                let position = offset + done
                let here = range.map { position < $0.offset ? min(count - done, $0.offset - position) : count - done } ?? count - done
                let from = range.map { position < $0.offset ? position : position + $0.length } ?? position
                let got = pread(descriptor, raw.baseAddress! + Int(done), Int(here), off_t(from))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                done += Int64(got)
            }
            return true
        }
    }

    /// Writes the saved bytes back into the file and gives it its old size;
    /// first removes the inserted space when the save inserted it.
    func restore(into descriptor: Int32, url: URL) throws {
        if let insertion {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw MediaError(.io, "cannot stat the file to restore it", path: url.path) }
            if Int64(info.st_size) == fileSize + insertion.length,
                Platform.collapseRange(descriptor, at: insertion.offset, length: insertion.length) != 0
            {
                throw MediaError(.io, "cannot remove the inserted space: \(systemErrorText())", path: url.path)
            }
        }
        for region in regions {
            guard region.offset >= 0, region.offset + Int64(region.bytes.count) <= fileSize else {
                throw MediaError(.io, "the journal does not match the file; not restoring", path: url.path)
            }
        }
        for region in regions {
            try FileIO.write(descriptor, region.bytes, at: region.offset, url: url)
        }
        guard ftruncate(descriptor, off_t(fileSize)) == 0 else {
            throw MediaError(.io, "cannot restore the file's size", path: url.path)
        }
    }

    /// The checksum of a journal of `version`: CRC-32 (version 1) or the low
    /// half of a ``Fingerprint`` (version 2).
    package static func checksum<Bytes: Collection>(_ bytes: Bytes, version: UInt32) -> UInt32 where Bytes.Element == UInt8 {
        if version >= 2 { return UInt32(truncatingIfNeeded: Fingerprint.of(bytes)) }
        if let crc = bytes.withContiguousStorageIfAvailable({ UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }) { return crc }
        return Array(bytes).withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// The checksum of one sector of new bytes (version 2).
    static func sectorChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: Fingerprint.of(bytes))
    }

    /// The version field after the four-byte magic (1 or 2), or nil.
    package static func version(of bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 8 else { return nil }
        let version = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        return (1...3).contains(version) ? version : nil
    }
}
