import Foundation
import Testing

@testable import MetadataKit

/// `AssetReader` and `AssetReaderTrackOutput` as `AsyncSequence`s fail only
/// with a `MediaError` (`Failure == MediaError`): a `catch` gets one without
/// a cast, and a cancelled task ends the loop with code `cancelled`.
@Suite struct AssetReaderSequenceTests {
    static let movie = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a")

    /// The samples a `for try await` over `sequence` reads before its task
    /// cancels itself after `stop` of them, and the code of the error that
    /// ends the loop. The loop is in a `do throws(MediaError)` and `error` in
    /// its `catch` is a `MediaError`: this only compiles when the sequence's
    /// `Failure` is.
    static func readCancelling<Samples: AsyncSequence & Sendable>(_ sequence: Samples, after stop: Int) async -> (Int, MediaError.Code?)
    where Samples.Failure == MediaError {
        let task = Task { () -> (Int, MediaError.Code?) in
            var count = 0
            do throws(MediaError) {
                for try await _ in sequence {
                    count += 1
                    if count == stop { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return (count, nil)
            } catch {
                return (count, error.code)
            }
        }
        return await task.value
    }

    @Test func aReaderLoopCatchesAMediaErrorWhenCancelled() async throws {
        let asset = try await Asset.load(url: Self.movie)
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        let (count, code) = await Self.readCancelling(reader, after: 3)
        #expect(count == 3 && code == .cancelled)

        // Not cancelled, the loop reads every sample, then ends without an error.
        let whole = try AssetReader(asset: asset)
        for track in asset.tracks { try whole.addOutput(track: track) }
        let (all, none) = await Self.readCancelling(whole, after: -1)
        #expect(all == asset.tracks.reduce(0) { $0 + $1.sampleCount } && none == nil)
    }

    @Test func anOutputIsASequenceOfItsRange() async throws {
        let asset = try await Asset.load(url: Self.movie)
        let reader = try AssetReader(asset: asset)
        let output = try reader.addOutput(track: asset.tracks[0])
        output.sampleRange = 2..<min(30, asset.tracks[0].sampleCount)
        var indices: [Int] = []
        for try await sample in output { indices.append(sample.index ?? -1) }
        #expect(indices == Array(output.sampleRange))

        let cancelled = try AssetReader(asset: asset).addOutput(track: asset.tracks[0])
        let (count, code) = await Self.readCancelling(cancelled, after: 5)
        #expect(count == 5 && code == .cancelled)
    }

    /// `next()` is still there, throwing a `MediaError` too.
    @Test func nextReadsTheFirstSample() async throws {
        let asset = try await Asset.load(url: Self.movie)
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        var iterator = reader.makeAsyncIterator()
        do throws(MediaError) {
            let first = try await iterator.next()
            #expect(first?.decodeTimeSeconds == 0)
        } catch {
            Issue.record("\(error.code): \(error.message)")
        }
    }
}
