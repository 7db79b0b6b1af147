#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Byte order of a multi-byte integer.
public enum Endianness: Sendable {
    /// Most significant byte first (network order: MP4, ID3, FLAC, AIFF).
    case big
    /// Least significant byte first (RIFF/WAV, ASF, Vorbis comments).
    case little
}

/// A cursor over a bounded run of bytes, the unit every parser works through.
///
/// A reader never reads outside its bounds: every read checks the bytes left
/// and throws ``MediaError/Code-swift.struct/truncated`` on a short read. Child
/// structures get a child reader limited to their own payload
/// (``readReader(count:)``), so a wrong size inside a box can never make the
/// parser read its neighbour. Offsets in errors are absolute file offsets.
package struct ByteReader: Sendable {
    @usableFromInline package let storage: [UInt8]
    @usableFromInline package var position: Int
    @usableFromInline package let end: Int
    /// File offset of `storage[0]`.
    @usableFromInline package let base: Int64

    /// A reader over `bytes`, whose first byte sits at `fileOffset` in the file.
    package init(_ bytes: [UInt8], fileOffset: Int64 = 0) {
        self.storage = bytes
        self.position = 0
        self.end = bytes.count
        self.base = fileOffset
    }

    /// A reader over `data`, whose first byte sits at `fileOffset` in the file.
    package init(_ data: Data, fileOffset: Int64 = 0) {
        self.init([UInt8](data), fileOffset: fileOffset)
    }

    @usableFromInline package init(storage: [UInt8], position: Int, end: Int, base: Int64) {
        self.storage = storage
        self.position = position
        self.end = end
        self.base = base
    }

    /// Bytes left before the end of this reader's bounds.
    @inlinable package var remaining: Int { end - position }
    /// True when every byte has been consumed.
    @inlinable package var isAtEnd: Bool { position >= end }
    /// The absolute file offset of the next byte to be read.
    @inlinable package var offset: Int64 { base + Int64(position) }

    /// An error of `code` at the current offset.
    package func error(_ code: MediaError.Code, _ reason: String) -> MediaError {
        MediaError(code, reason, offset: offset)
    }

    /// Throws `truncated` unless `count` bytes are left.
    @inlinable package func require(_ count: Int, _ what: @autoclosure () -> String = "value") throws {
        guard count >= 0, count <= remaining else {
            throw MediaError(.truncated, "\(what()) needs \(count) bytes, \(remaining) left", offset: offset)
        }
    }

    // MARK: Integers

    @inlinable package mutating func readUInt8() throws -> UInt8 {
        try require(1, "UInt8")
        defer { position += 1 }
        return storage[position]
    }

    /// Reads an unsigned integer of `byteCount` (1...8) bytes.
    @inlinable package mutating func readUInt(byteCount: Int, endianness: Endianness = .big) throws -> UInt64 {
        precondition(byteCount >= 1 && byteCount <= 8)
        try require(byteCount, "\(byteCount * 8)-bit integer")
        var value: UInt64 = 0
        switch endianness {
        case .big:
            for i in 0..<byteCount { value = value << 8 | UInt64(storage[position + i]) }
        case .little:
            for i in stride(from: byteCount - 1, through: 0, by: -1) { value = value << 8 | UInt64(storage[position + i]) }
        }
        position += byteCount
        return value
    }

    // The fixed widths load the bytes in one unaligned read after one bounds
    // check (the byte loop of `readUInt(byteCount:)` checked every byte: a
    // hundred instructions per 32-bit field, which parsers read by the dozen).
    @inlinable package mutating func readUInt16(_ endianness: Endianness = .big) throws -> UInt16 {
        let raw = try load(UInt16.self, "16-bit integer")
        return endianness == .big ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }
    @inlinable package mutating func readUInt24(_ endianness: Endianness = .big) throws -> UInt32 {
        try require(3, "24-bit integer")
        let (first, second, third) = (UInt32(storage[position]), UInt32(storage[position + 1]), UInt32(storage[position + 2]))
        position += 3
        return endianness == .big ? first << 16 | second << 8 | third : third << 16 | second << 8 | first
    }
    @inlinable package mutating func readUInt32(_ endianness: Endianness = .big) throws -> UInt32 {
        let raw = try load(UInt32.self, "32-bit integer")
        return endianness == .big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }
    @inlinable package mutating func readUInt64(_ endianness: Endianness = .big) throws -> UInt64 {
        let raw = try load(UInt64.self, "64-bit integer")
        return endianness == .big ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }

    /// The next `MemoryLayout<T>.size` bytes as they lie in memory (unaligned).
    @inlinable mutating func load<T: FixedWidthInteger>(_ type: T.Type, _ what: @autoclosure () -> String) throws -> T {
        try require(MemoryLayout<T>.size, what())
        let value = storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) }
        position += MemoryLayout<T>.size
        return value
    }
    @inlinable package mutating func readInt16(_ endianness: Endianness = .big) throws -> Int16 {
        Int16(bitPattern: try readUInt16(endianness))
    }
    @inlinable package mutating func readInt32(_ endianness: Endianness = .big) throws -> Int32 {
        Int32(bitPattern: try readUInt32(endianness))
    }

    /// Reads a 28-bit ID3v2 "syncsafe" integer (4 bytes, 7 bits each).
    /// Throws `malformed` if a byte has its top bit set.
    package mutating func readSyncSafeUInt32() throws -> UInt32 {
        try require(4, "syncsafe integer")
        var value: UInt32 = 0
        for i in 0..<4 {
            let byte = storage[position + i]
            guard byte & 0x80 == 0 else {
                throw MediaError(.malformed, "syncsafe integer has a byte with its top bit set", offset: offset + Int64(i))
            }
            value = value << 7 | UInt32(byte)
        }
        position += 4
        return value
    }

    @inlinable package mutating func readFourCC() throws -> FourCC {
        FourCC(try readUInt32())
    }

    // MARK: Bytes

    /// Reads `count` bytes.
    @inlinable package mutating func readBytes(_ count: Int) throws -> [UInt8] {
        try require(count, "byte run")
        defer { position += count }
        return Array(storage[position..<position + count])
    }

    /// Reads `count` bytes as a slice of the reader's storage (no copy).
    @inlinable package mutating func readSlice(_ count: Int) throws -> ArraySlice<UInt8> {
        try require(count, "byte run")
        defer { position += count }
        return storage[position..<position + count]
    }

    /// Reads every byte left.
    package mutating func readRemainingBytes() -> [UInt8] {
        defer { position = end }
        return Array(storage[position..<end])
    }

    /// Skips `count` bytes.
    @inlinable package mutating func skip(_ count: Int) throws {
        try require(count, "skipped run")
        position += count
    }

    /// The next byte, without consuming it; nil at the end.
    @inlinable package func peekUInt8(at distance: Int = 0) -> UInt8? {
        let index = position + distance
        return index >= position && index < end ? storage[index] : nil
    }

    /// The next `count` bytes, without consuming them; nil when fewer are left.
    package func peekBytes(_ count: Int) -> ArraySlice<UInt8>? {
        count >= 0 && count <= remaining ? storage[position..<position + count] : nil
    }

    /// A reader bounded to the next `count` bytes, which this reader skips.
    package mutating func readReader(count: Int) throws -> ByteReader {
        try require(count, "nested structure")
        let child = ByteReader(storage: storage, position: position, end: position + count, base: base)
        position += count
        return child
    }
}
