import Foundation
import Testing

@testable import MetadataKit

/// `AssetReader` and `AssetReaderTrackOutput` are Sendable: tasks sharing
/// one get every sample exactly once between them.
@Suite struct AssetReaderSharingTests {
    static let movie = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a")

    /// The (track, index) of every sample `tasks` concurrent readers take from `next`.
    static func taken(by tasks: Int, _ next: @escaping @Sendable () throws -> Sample?) async throws -> [String] {
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var mine: [String] = []
                    while let sample = try next() {
                        mine.append("\(sample.trackID):\(sample.index ?? -1)")
                        await Task.yield()
                    }
                    return mine
                }
            }
            var all: [String] = []
            for try await mine in group { all += mine }
            return all
        }
    }

    @Test func tasksSharingAReaderGetEverySampleOnce() async throws {
        let asset = try await Asset.load(url: Self.movie)
        let alone = try AssetReader(asset: asset)
        for track in asset.tracks { try alone.addOutput(track: track) }
        let expected = try await Self.taken(by: 1) { try alone.nextSample() }
        #expect(expected.count > 10)

        let shared = try AssetReader(asset: asset)
        for track in asset.tracks { try shared.addOutput(track: track) }
        let taken = try await Self.taken(by: 4) { try shared.nextSample() }
        #expect(taken.sorted() == expected.sorted())
        #expect(Set(taken).count == taken.count, "no sample twice")
    }

    @Test func tasksSharingAnOutputGetEverySampleOfItsRangeOnce() async throws {
        let asset = try await Asset.load(url: Self.movie)
        let reader = try AssetReader(asset: asset)
        let output = try reader.addOutput(track: asset.tracks[0])
        output.sampleRange = 3..<min(40, asset.tracks[0].sampleCount)
        let range = output.sampleRange
        let taken = try await Self.taken(by: 3) { try output.nextSample() }
        #expect(taken.sorted() == range.map { "\(asset.tracks[0].id):\($0)" }.sorted())
    }
}
