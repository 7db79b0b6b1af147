import Foundation
import Testing

@testable import MetadataKit

/// `Asset` reads the box tree as forgivingly as `MediaItem` does.
@Suite struct AssetForgivingTests {
    /// The sample M4A (moov last) with its `moov` claiming `extra` bytes more than the file holds.
    func movieWithLongMoov(extra: UInt32) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a")))
        var offset = 0
        var moov: Int?
        while offset + 8 <= bytes.count {
            let size = Int(
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3]))
            if Array(bytes[offset + 4..<offset + 8]) == Array("moov".utf8) { moov = offset }
            guard size >= 8 else { break }
            offset += size
        }
        let at = try #require(moov)
        let size = UInt32(bytes.count - at) + extra
        bytes.replaceSubrange(
            at..<at + 4, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("long-moov.m4a")
        try Data(bytes).write(to: url)
        return url
    }

    @Test(arguments: [UInt32(1), 4, 100])
    func aMoovLongerThanTheFileLoadsWithAWarning(extra: UInt32) async throws {
        let url = try movieWithLongMoov(extra: extra)
        let asset = try await Asset.load(url: url)
        let original = try await Asset.load(url: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"))
        #expect(asset.tracks.map(\.sampleCount) == original.tracks.map(\.sampleCount))
        #expect(asset.warnings.contains { $0.code == .truncated && $0.message.contains("moov") })
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        var count = 0
        while let sample = try reader.nextSample() {
            #expect(try await sample.data().count == sample.size)
            count += 1
        }
        #expect(count == original.tracks.reduce(0) { $0 + $1.sampleCount })
    }
}
