import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitBytes
@testable import MetadataKitCatalog

/// The catalog's platform layer: it converts `stat` fields as the library
/// does, and hashes with the system's SHA-256 where there is one.
@Suite struct CatalogPlatformTests {
    /// Darwin's `dev_t` is a signed 32-bit integer: a device number with the
    /// top bit set must not be sign-extended (the library's conversion
    /// masks it), or the catalog and a save disagree about a file's device.
    @Test func deviceNumbersConvertAsTheLibrarysDo() {
        #expect(FileStatus.deviceNumber(Int32(-1)) == 0xFFFF_FFFF)
        #expect(FileStatus.deviceNumber(Int32.min) == 0x8000_0000)
        #expect(FileStatus.deviceNumber(Int32(0x0100_0004)) == 0x0100_0004)
        #expect(FileStatus.deviceNumber(UInt64.max) == UInt64.max)
        for value in [Int32(-1), Int32.min, 7] { #expect(FileStatus.deviceNumber(value) == Platform.deviceNumber(value)) }
    }

    /// A file's status in the catalog and its snapshot in the library agree
    /// on its device, inode and modification time.
    @Test func aFilesStatusAgreesWithTheLibrarysSnapshot() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.bin")
        try Data([1, 2, 3]).write(to: url)
        let status = try #require(FileStatus(path: url.path, followingLinks: true))
        let snapshot = try FileSource(url: url).snapshot
        #expect(status.device == snapshot.device && status.inode == snapshot.inode && status.size == 3)
        #expect(
            status.modificationTimeNanoseconds
                == Int64(snapshot.modificationSeconds) * 1_000_000_000 + Int64(snapshot.modificationNanoseconds))
    }

    /// libpq is looked for under the system's library names.
    @Test func libpqIsLookedForUnderTheSystemsNames() {
        #if canImport(Darwin)
            #expect(LibPQ.names.first == "libpq.5.dylib" && LibPQ.names.contains("/opt/homebrew/opt/libpq/lib/libpq.5.dylib"))
        #else
            #expect(LibPQ.names == ["libpq.so.5", "libpq.so"])
        #endif
    }

    /// The system's SHA-256 (CommonCrypto on Darwin, libcrypto on Linux)
    /// gives the standard's digests, across inputs of every length class.
    @Test(
        .enabled(
            if: Capabilities.system == .darwin || FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libcrypto.so.3")
                || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libcrypto.so.3"),
            "needs the system's SHA-256: CommonCrypto (Darwin) or libcrypto.so.3 (Debian libssl3)"))
    func theSystemsSHA256MatchesThisPackages() throws {
        let digest = try #require(CatalogPlatform.systemSHA256)
        for count in [1, 55, 56, 64, 1000, 100_000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var out = [UInt8](repeating: 0, count: 32)
            let done = bytes.withUnsafeBytes { raw in
                out.withUnsafeMutableBufferPointer { digest(raw.baseAddress!, count, $0.baseAddress!) }
            }
            #expect(done && SHA256.hexString(out) == SHA256.swiftHex(bytes), "\(count) bytes")
        }
    }
}
