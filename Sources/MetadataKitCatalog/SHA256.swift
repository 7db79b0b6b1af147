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

/// SHA-256 (FIPS 180-4, section 6.2), for the content hash of artwork in a
/// catalog: the same picture in two files has the same hash (`sha256sum`
/// gives it for a picture's bytes).
struct SHA256 {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// The round constants (section 4.2.2).
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The lowercase hex digest of `bytes`: by the system's libcrypto when it
    /// loads (``SystemSHA256``: about ten times faster, with the CPU's SHA
    /// instructions), else by this type.
    static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if let digest = SystemSHA256.digest(bytes) { return hexString(digest) }
        return swiftHex(bytes)
    }

    /// The lowercase hex digest of `bytes`, computed by this type.
    static func swiftHex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hexString(hash.finish())
    }

    static func hexString(_ digest: [UInt8]) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 2 * digest.count) { text in
            digits.withUTF8Buffer { digits in
                for (index, byte) in digest.enumerated() {
                    text[2 * index] = digits[Int(byte >> 4)]
                    text[2 * index + 1] = digits[Int(byte & 15)]
                }
            }
            return 2 * digest.count
        }
    }

    mutating func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        length &+= UInt64(bytes.count)
        // Whole blocks straight from the caller's storage (Data, arrays): no copy, no slices.
        if bytes.withContiguousStorageIfAvailable({ absorb(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { absorb($0) }
        }
    }

    /// Hashes the whole blocks of `pending` + `buffer`; keeps the rest in `pending`.
    private mutating func absorb(_ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        if !pending.isEmpty {
            offset = min(64 - pending.count, buffer.count)
            pending.append(contentsOf: buffer[0..<offset])
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while buffer.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + 64]))
            offset += 64
        }
        pending.append(contentsOf: buffer[offset...])
    }

    /// The digest (section 5.1.1 padding: a 1 bit, zeros, the bit length).
    mutating func finish() -> [UInt8] {
        let bitLength = length &* 8
        pending.append(0x80)
        while pending.count % 64 != 56 { pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let padded = pending
        padded.withUnsafeBytes { buffer in
            for start in stride(from: 0, to: buffer.count, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: buffer[start..<start + 64]))
            }
        }
        pending = []
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// One 64-byte block (section 6.2.2), read as big-endian words; the
    /// message schedule on the stack, no bounds checks in the rounds.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        let (a, b, c, d, e, f, g, h) = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 { w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
            for t in 16..<64 {
                let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            return Self.k.withUnsafeBufferPointer { k in
                var a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7]
                for t in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
                return (a, b, c, d, e, f, g, h)
            }
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}

/// The system's SHA-256 (``CatalogPlatform/systemSHA256``: CommonCrypto on
/// Darwin; OpenSSL's one-shot `SHA256()` from libcrypto on Linux, loaded with
/// `dlopen` when first used, no link-time dependency). Without it, or with
/// `MDKIT_SHA256=swift`, ``SHA256`` hashes. The system's uses the processor's
/// SHA instructions: hashing the artwork of every file is a large part of a
/// scan's processor time (Benchmarks/README.md, "Figures behind the code").
enum SystemSHA256 {
    /// ``CatalogPlatform/systemSHA256``, unless `MDKIT_SHA256=swift` asks for this package's own.
    static let function: CatalogPlatform.Digest? = {
        if ProcessInfo.processInfo.environment["MDKIT_SHA256"] == "swift" { return nil }
        return CatalogPlatform.systemSHA256
    }()

    /// The digest of `bytes`, or nil when the library is not there (or the bytes are not contiguous, or empty).
    static func digest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8]? {
        guard let function else { return nil }
        return bytes.withContiguousStorageIfAvailable { buffer -> [UInt8]? in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
            var digest = [UInt8](repeating: 0, count: 32)
            let done = digest.withUnsafeMutableBufferPointer { function(UnsafeRawPointer(base), buffer.count, $0.baseAddress!) }
            return done ? digest : nil
        } ?? nil
    }
}
