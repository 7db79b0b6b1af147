import Foundation
import Testing

@testable import MetadataKitCatalog

/// The catalog's artwork hash against the test vectors of FIPS 180-4's
/// examples (one block, two blocks, and a million `a`s across many updates).
@Suite struct SHA256Tests {
    /// Debian's libssl3 (a dependency of libpq) brings libcrypto.so.3;
    /// Darwin always has CommonCrypto.
    @Test(
        .enabled(
            if: Capabilities.system == .darwin || FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libcrypto.so.3")
                || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libcrypto.so.3"),
            "needs the system's SHA-256: CommonCrypto (Darwin) or libcrypto.so.3 (Debian libssl3)"))
    func theSystemLibraryIsUsedWhereItIsInstalled() {
        #expect(SystemSHA256.function != nil)
        #expect(SystemSHA256.digest(Array("abc".utf8)).map(SHA256.hexString) == SHA256.swiftHex(Array("abc".utf8)))
    }

    @Test func theStandardsExamplesHashAsPublished() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var hash = SHA256()
        for _ in 0..<1000 { hash.update([UInt8](repeating: 0x61, count: 1000)) }
        #expect(
            hash.finish().map { String(format: "%02x", $0) }.joined()
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Random bytes (seeded) fed in pieces of random sizes, as Data and as
    /// arrays, hash as `sha256sum` hashes them in one piece.
    @Test(.enabled(if: Capabilities.sha256Tool, "needs sha256sum (coreutils) or shasum"))
    func piecesOfAnySizeHashAsSha256sumDoes() throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        var generator = SplitMix64(state: seed)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for size in [55, 56, 63, 64, 65, 127, 128, 1000, 40_000 + Int.random(in: 0..<1000, using: &generator)] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let file = directory.appendingPathComponent("\(size).bin")
            try Data(bytes).write(to: file)
            let expected = try TestSupport.sha256Hex(ofFileAt: file.path)
            #expect(SHA256.hex(Data(bytes)) == expected, "size \(size), seed \(seed)")
            #expect(SHA256.swiftHex(Data(bytes)) == expected, "size \(size), seed \(seed)")
            var hash = SHA256()
            var offset = 0
            while offset < size {
                let count = min(size - offset, Int.random(in: 0...150, using: &generator))
                if offset % 2 == 0 {
                    hash.update(Data(bytes[offset..<offset + count]))
                } else {
                    hash.update(bytes[offset..<offset + count])
                }
                offset += count
            }
            let digest = hash.finish().map { String(format: "%02x", $0) }.joined()
            #expect(digest == expected, "size \(size) in pieces, seed \(seed)")
        }
    }
}
