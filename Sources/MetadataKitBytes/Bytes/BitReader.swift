/// Reads big-endian bit fields from bytes in memory (the bit syntax of MPEG
/// audio headers: AudioSpecificConfig, `dec3`, the ADIF header).
package struct BitReader {
    private let bytes: [UInt8]
    /// Bits read so far.
    package private(set) var position = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Bits left to read.
    package var remaining: Int { bytes.count * 8 - position }

    /// The next `count` (≤ 32) bits, or nil when fewer are left.
    package mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, count <= remaining else { return nil }
        var value = 0
        for _ in 0..<count {
            let bit = bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1
            value = value << 1 | Int(bit)
            position += 1
        }
        return value
    }

    /// Skips `count` bits; false (nothing skipped) when fewer are left.
    package mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    /// Skips to the next byte boundary.
    package mutating func alignToByte() {
        position = min(bytes.count * 8, (position + 7) & ~7)
    }
}
