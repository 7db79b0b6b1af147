/// A fast 64-bit fingerprint of bytes, for telling a torn or foreign write
/// from the bytes a journal expects (not for security).
///
/// Four independent lanes take eight bytes each per step (so the multiplies
/// overlap), each word mixed in with a multiply and xor-shifts (the
/// finalizer of MurmurHash3); the lanes, the tail and the length are mixed
/// at the end. About 10 GB/s here — zlib's CRC-32 had become a tenth of the
/// time of a save once the journal also fingerprinted what a save writes.
import MetadataKitBytes

package enum Fingerprint {
    package static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var lanes = initialLanes
        var index = 0
        while index + 32 <= bytes.count {
            block(&lanes, bytes, at: index)
            index += 32
        }
        return finish(lanes, count: bytes.count, tail: UnsafeRawBufferPointer(rebasing: bytes[index...]))
    }

    private typealias Lanes = (UInt64, UInt64, UInt64, UInt64)
    private static let initialLanes: Lanes = (
        0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F,
        0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63
    )

    /// Takes the 32 bytes at `index` into the lanes.
    @inline(__always) private static func block(_ lanes: inout Lanes, _ bytes: UnsafeRawBufferPointer, at index: Int) {
        lanes.0 = step(lanes.0, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        lanes.1 = step(lanes.1, bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
        lanes.2 = step(lanes.2, bytes.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self))
        lanes.3 = step(lanes.3, bytes.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self))
    }

    /// The fingerprint of `count` bytes from the lanes of their whole blocks
    /// and the `tail` after them (fewer than 32 bytes).
    @inline(__always) private static func finish(_ lanes: Lanes, count: Int, tail: UnsafeRawBufferPointer) -> UInt64 {
        var hash = mix(lanes.0) ^ (mix(lanes.1) &* 3) ^ (mix(lanes.2) &* 5) ^ (mix(lanes.3) &* 7) ^ UInt64(count)
        var index = 0
        while index + 8 <= tail.count {
            hash = step(hash, tail.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        if index < tail.count {
            var last: UInt64 = 0xFF
            for offset in index..<tail.count { last = last << 8 | UInt64(tail[offset]) }
            hash = step(hash, last)
        }
        return mix(hash)
    }

    /// The fingerprint of bytes given in pieces: the same value as ``of(_:)-(UnsafeRawBufferPointer)``
    /// of the pieces joined, without joining them (a batch journal is written
    /// from its files' journals where they lie).
    package struct Stream {
        private var lanes = Fingerprint.initialLanes
        /// Bytes of an unfinished 32-byte block (the first `pending` of them).
        private var carry = [UInt8](repeating: 0, count: 32)
        private var pending = 0
        private var count = 0

        package init() {}

        /// Adds `bytes` after those added so far.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            count += bytes.count
            var index = 0
            if pending > 0 {
                let taken = min(32 - pending, bytes.count)
                carry.withUnsafeMutableBytes { carry in
                    for offset in 0..<taken { carry[pending + offset] = bytes[offset] }
                }
                pending += taken
                index = taken
                guard pending == 32 else { return }
                carry.withUnsafeBytes { Fingerprint.block(&lanes, $0, at: 0) }
                pending = 0
            }
            while index + 32 <= bytes.count {
                Fingerprint.block(&lanes, bytes, at: index)
                index += 32
            }
            let rest = bytes.count - index
            if rest > 0 {
                carry.withUnsafeMutableBytes { carry in
                    for offset in 0..<rest { carry[offset] = bytes[index + offset] }
                }
                pending = rest
            }
        }

        /// Adds the bytes of `bytes`.
        package mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// The fingerprint of every byte added.
        package func finish() -> UInt64 {
            carry.withUnsafeBytes { Fingerprint.finish(lanes, count: count, tail: UnsafeRawBufferPointer(rebasing: $0[..<pending])) }
        }
    }

    package static func of<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        if let hash = bytes.withContiguousStorageIfAvailable({ of(UnsafeRawBufferPointer($0)) }) { return hash }
        return Array(bytes).withUnsafeBytes { of($0) }
    }

    @inline(__always) private static func step(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        var x = (lane ^ (word &* 0xFF51_AFD7_ED55_8CCD)) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 31
        return x
    }

    /// MurmurHash3's 64-bit finalizer.
    @inline(__always) package static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
