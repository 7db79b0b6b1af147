import Foundation
import Testing

@testable import MetadataKit

/// The Opus output gain (RFC 7845 §5.1: `OpusHead` bytes 16–17, a signed
/// Q7.8 number of dB) as ``MediaProperties/opusOutputGain``; exiftool reads
/// it too (as the linear factor 10^(dB/20)).
@Suite struct OpusOutputGainTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("valid/sample.opus")

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0).
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// The fixture with its output gain set to `gain` (Q7.8) and its first page's CRC made right.
    static func withGain(_ gain: Int16) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: fixture))
        let head = try #require(bytes.firstRange(of: Array("OpusHead".utf8))).lowerBound
        let value = UInt16(bitPattern: gain)
        bytes[head + 16] = UInt8(value & 0xFF)
        bytes[head + 17] = UInt8(value >> 8)
        let segments = Int(bytes[26])
        let pageLength = 27 + segments + bytes[27..<27 + segments].reduce(0) { $0 + Int($1) }
        bytes.replaceSubrange(22..<26, with: [0, 0, 0, 0])
        let crc = crc(Array(bytes[0..<pageLength]))
        bytes.replaceSubrange(22..<26, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
        return bytes
    }

    @Test func readsTheGain() async throws {
        #expect(try await MediaItem.loaded(Self.fixture).properties.opusOutputGain == 0)
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("gain.opus")
        try Data(try Self.withGain(-768)).write(to: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable)
        #expect(item.properties.opusOutputGain == -3)
        // A save keeps it.
        item.metadata.title = "Quieter"
        try await item.save(options: SaveOptions(durability: .noSync))
        #expect(try await MediaItem.loaded(url).properties.opusOutputGain == -3)
        try Data(try Self.withGain(0x0180)).write(to: url)
        #expect(try await MediaItem.loaded(url).properties.opusOutputGain == 1.5)
    }

    @Test(.enabled(if: TestSupport.hasTool("exiftool"), "needs exiftool"))
    func exiftoolReadsTheSameGain() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("gain.opus")
        // Positive: exiftool 12.57 reads the field as unsigned (-3 dB shows as 10^(64768/5120)).
        try Data(try Self.withGain(1000)).write(to: url)
        let ours = try #require(try await MediaItem.loaded(url).properties.opusOutputGain)
        let output = try TestSupport.runChecked("exiftool", ["-n", "-s3", "-Opus:OutputGain", url.path]).text
        let linear = try #require(Double(output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(20 * log10(linear) - ours) < 0.001, "exiftool \(linear), ours \(ours) dB")
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func shownByRead() throws {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("gain.opus")
        try Data(try Self.withGain(-768)).write(to: url)
        #expect(try TestSupport.runChecked(executable.path, ["read", url.path]).text.contains("opusOutputGain  -3.00 dB"))
        #expect(try TestSupport.runChecked(executable.path, ["read", "--json", url.path]).text.contains("\"opusOutputGain\": -3"))
    }
}
