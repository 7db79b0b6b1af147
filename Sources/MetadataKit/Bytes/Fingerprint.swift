/// A fast 64-bit fingerprint of bytes, for telling a torn or foreign write
/// from the bytes a journal expects (not for security).
///
/// Eight bytes at a time: each word is mixed in with a multiply and
/// xor-shifts (the finalizer of MurmurHash3), and the length is part of the
/// seed. It runs several times faster than zlib's CRC-32, which had become a
/// tenth of the time of a save once the journal also fingerprinted what the
/// save writes.
enum Fingerprint {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ (UInt64(bytes.count) &* 0xC2B2_AE3D_27D4_EB4F)
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            hash = (hash ^ mix(word)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            index += 8
        }
        if index < count {
            var last: UInt64 = 0
            for offset in index..<count { last = last << 8 | UInt64(bytes[offset]) }
            hash = (hash ^ mix(last ^ 0xFF)) &* 0x9E37_79B9_7F4A_7C15
        }
        return mix(hash)
    }

    static func of<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        if let hash = bytes.withContiguousStorageIfAvailable({ of(UnsafeRawBufferPointer($0)) }) { return hash }
        return Array(bytes).withUnsafeBytes { of($0) }
    }

    /// MurmurHash3's 64-bit finalizer.
    @inline(__always) static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
