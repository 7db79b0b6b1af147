#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the samples of chosen tracks of an ``Asset``, in decode order.
///
/// ```swift
/// let reader = try AssetReader(asset: asset)
/// for track in asset.tracks { try reader.addOutput(track: track) }
/// while let sample = try reader.nextSample() {       // all outputs, by decode time
///     let bytes = try await sample.data()
/// }
/// ```
///
/// The reader is also an `AsyncSequence` of the same samples
/// (`for try await sample in reader`). Each ``AssetReaderTrackOutput`` can
/// also be read on its own with its `nextSample()`; don't mix the two styles
/// on one reader. Samples are
/// computed from the sample tables as they are asked for and their bytes are
/// read only by ``Sample/data()``, so memory does not grow with the
/// file. Fragmented files are refused (`unsupportedFeature`).
public final class AssetReader {
    /// The loaded asset whose samples are read.
    public let asset: Asset
    /// The track outputs added, in the order they were added.
    public private(set) var outputs: [AssetReaderTrackOutput] = []
    private var peeked: [Sample?] = []
    private var started = false

    /// A reader of `asset`, which must be loaded; throws `notLoaded`, or
    /// `unsupportedFeature` for a fragmented MP4 or a format whose tracks have
    /// no sample tables.
    public init(asset: Asset) throws {
        guard asset.isLoaded else {
            throw MediaError(.notLoaded, "load the asset before reading it", path: asset.url.path)
        }
        guard asset.hasSampleTables else {
            let name = asset.format?.name ?? "this format"
            throw MediaError(
                .unsupportedFeature, "the tracks of \(name) files are described only: samples are read from MP4/MOV/M4A files",
                path: asset.url.path)
        }
        guard !asset.isFragmented else {
            throw MediaError(.unsupportedFeature, "fragmented MP4 (samples in 'moof' fragments) is not supported", path: asset.url.path)
        }
        self.asset = asset
    }

    /// Adds an output for `track` (a track of ``asset``).
    @discardableResult
    public func addOutput(track: AssetTrack) throws -> AssetReaderTrackOutput {
        guard !started else { throw MediaError(.invalidValue, "outputs must be added before reading starts") }
        guard asset.track(id: track.id) != nil else {
            throw MediaError(.invalidValue, "track \(track.id) is not a track of \(asset.url.lastPathComponent)")
        }
        let output = AssetReaderTrackOutput(track: track, source: try SampleDataSource(path: asset.url.path))
        outputs.append(output)
        return output
    }

    /// The next sample of any output, in decode order across tracks (by
    /// decode time in seconds, ties by output order); nil at the end.
    public func nextSample() throws -> Sample? {
        if !started {
            started = true
            peeked = try outputs.map { try $0.nextSample() }
        }
        var best: Int?
        for (index, sample) in peeked.enumerated() {
            guard let sample else { continue }
            if let current = best, let other = peeked[current], other.decodeTimeSeconds <= sample.decodeTimeSeconds { continue }
            best = index
        }
        guard let best else { return nil }
        let sample = peeked[best]
        peeked[best] = try outputs[best].nextSample()
        return sample
    }
}

/// `for try await sample in reader`: the samples of ``AssetReader/nextSample()``,
/// checking for Task cancellation between samples.
extension AssetReader: AsyncSequence {
    public typealias Element = Sample

    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: AssetReader

        public mutating func next() async throws -> Sample? {
            try Task.checkCancellation()
            return try reader.nextSample()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }
}

/// The samples of one track, in decode order.
public final class AssetReaderTrackOutput {
    /// The track whose samples this output gives.
    public let track: AssetTrack
    /// Decode-order sample indices to read; all samples by default. Set before reading.
    public var sampleRange: Range<Int>
    let source: SampleDataSource
    private var cursor: SampleTable.Cursor
    private var position = 0

    init(track: AssetTrack, source: SampleDataSource) {
        self.track = track
        self.source = source
        self.cursor = track.sampleTable.makeCursor()
        self.sampleRange = 0..<track.sampleCount
    }

    /// Bytes this output has read from the file.
    public var bytesRead: Int64 { source.bytesRead }

    /// The next sample, or nil after the last one of ``sampleRange``.
    public func nextSample() throws -> Sample? {
        while position < sampleRange.upperBound {
            guard let info = cursor.next() else { return nil }
            position += 1
            guard info.index >= sampleRange.lowerBound else { continue }
            return Sample(info: info, trackID: track.id, timescale: track.timescale, source: source)
        }
        return nil
    }
}
