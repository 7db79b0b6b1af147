import Foundation
import Testing

@testable import MetadataKit

/// Seeded mutations of the sample tables and headers of a built movie: every
/// load either fails with a MediaError or gives tracks whose samples lie
/// inside the file, and reading them and the timed metadata never traps.
@Suite struct AssetMutationTests {
    @Test func mutatedTablesLoadCleanlyOrFail() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let groups = try (0..<8).map { try MovieBuilder.textGroup("note \($0)") }
        var meta = try MovieBuilder.metadataTrack(id: 2, groups: groups, timescale: 600, durations: Array(repeating: 75, count: 8))
        meta.samplesPerChunk = 2
        meta.editList = [(duration: 60, mediaTime: -1), (duration: 540, mediaTime: 0)]
        let video = MovieBuilder.Track(
            id: 1, handler: "vide", entry: MovieBuilder.videoEntry(), timescale: 600,
            samples: (0..<15).map { [UInt8](repeating: UInt8($0), count: 7 + $0) },
            durations: Array(repeating: 40, count: 15), samplesPerChunk: 4, version: 1)
        let original = MovieBuilder.movie([video, meta], movieTimescale: 600)
        let moov = try #require(Data(original).range(of: Data("moov".utf8))).lowerBound - 4
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        func next() -> UInt64 { generator.next() }
        let extremes: [UInt32] = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFF0, 0x0001_0000]
        let url = directory.appendingPathComponent("mutated.mov")
        var loaded = 0, warned = 0
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<Int(next() % 3 + 1) {
                // Four bytes of moov, at a multiple of 4 from its start, set to an extreme or random value.
                let at = moov + 8 + Int(next() % UInt64((bytes.count - moov - 12) / 4)) * 4
                let value = next() % 2 == 0 ? extremes[Int(next() % UInt64(extremes.count))] : UInt32(truncatingIfNeeded: next())
                bytes.replaceSubrange(at..<at + 4, with: MP4Builder.u32(value))
            }
            try Data(bytes).write(to: url)
            let asset: Asset
            do { asset = try await Asset.load(url: url) } catch { continue }
            loaded += 1
            if !asset.warnings.isEmpty { warned += 1 }
            for track in asset.tracks {
                #expect(track.totalSampleBytes <= Int64(bytes.count), "seed \(seed) round \(round)")
                let reader = try AssetReader(asset: asset)
                try reader.addOutput(track: track)
                var count = 0
                while let sample = try reader.nextSample() {
                    #expect(try await sample.data().count == sample.size, "seed \(seed) round \(round)")
                    count += 1
                }
                #expect(count == track.sampleCount, "seed \(seed) round \(round)")
            }
            _ = try? await TimedMetadataTrack.document(of: asset)
        }
        // Most mutations load (values in the tables), some with warnings.
        #expect(loaded > 100 && warned > 10, "seed \(seed): \(loaded) loaded, \(warned) with warnings")
    }
}
