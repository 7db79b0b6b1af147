/// Builds bytes: integers in either byte order, and length fields written as
/// placeholders and patched once the length is known.
///
/// Every method is `@inlinable`: the formats (another module) call them for
/// each field they write, and the generic `write(_:)` would otherwise run
/// unspecialized, a byte at a time through the runtime's generic metadata.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package var bytes: [UInt8] = []

    @inlinable package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Number of bytes written.
    @inlinable package var count: Int { bytes.count }

    @inlinable package mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends `run`. (Arrays, slices and zeros have overloads of their
    /// own, compiled here: a generic call from another module is not
    /// always specialized and then runs a byte at a time.)
    package mutating func write(_ run: [UInt8]) { bytes.append(contentsOf: run) }
    /// Appends `run`.
    package mutating func write(_ run: ArraySlice<UInt8>) { bytes.append(contentsOf: run) }
    /// Appends `count` zero bytes (padding).
    package mutating func write(zeros count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    /// Appends the bytes of `run`.
    @inlinable package mutating func write<Bytes: Sequence>(_ run: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: run)
    }

    @inlinable package mutating func write(_ value: UInt16, _ endianness: Endianness = .big) {
        writeInteger(UInt64(value), byteCount: 2, endianness)
    }
    @inlinable package mutating func write(_ value: UInt32, _ endianness: Endianness = .big) {
        writeInteger(UInt64(value), byteCount: 4, endianness)
    }
    @inlinable package mutating func write(_ value: UInt64, _ endianness: Endianness = .big) {
        writeInteger(value, byteCount: 8, endianness)
    }

    @inlinable package mutating func write(_ code: FourCC) { write(code.rawValue) }

    /// Writes `value` as a 28-bit ID3v2 syncsafe integer.
    @inlinable package mutating func writeSyncSafe(_ value: UInt32) {
        precondition(value < 1 << 28, "syncsafe integers hold 28 bits")
        write([UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)])
    }

    @inlinable package mutating func writeInteger(_ value: UInt64, byteCount: Int, _ endianness: Endianness) {
        for index in 0..<byteCount {
            let shift = endianness == .big ? (byteCount - 1 - index) * 8 : index * 8
            bytes.append(UInt8(value >> UInt64(shift) & 0xFF))
        }
    }
}
