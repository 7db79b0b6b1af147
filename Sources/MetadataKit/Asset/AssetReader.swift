import Synchronization

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
/// (`for try await sample in reader`, failing only with a ``MediaError``).
/// Each ``AssetReaderTrackOutput`` can also be read on its own, with its
/// `nextSample()` or `for try await`; don't mix reading the reader and its
/// outputs on one reader. Samples are
/// computed from the sample tables as they are asked for and their bytes are
/// read only by ``Sample/data()``, so memory does not grow with the
/// file. Fragmented files are refused (`unsupportedFeature`).
public final class AssetReader: Sendable {
    /// The loaded asset whose samples are read.
    public let asset: Asset
    /// The track outputs added, in the order they were added.
    public var outputs: [AssetReaderTrackOutput] { state.withLock { $0.outputs } }
    /// What reading changes, behind a lock: a reader may be shared between tasks.
    private let state = Mutex(State())

    private struct State {
        var outputs: [AssetReaderTrackOutput] = []
        /// The next sample of each output, once reading started.
        var peeked: [Sample?] = []
        var started = false
    }

    /// A reader of `asset`, which must be loaded; throws `notLoaded`, or
    /// `unsupportedFeature` for a fragmented MP4 or a format whose tracks have
    /// no sample tables.
    public init(asset: Asset) throws(MediaError) {
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
    public func addOutput(track: AssetTrack) throws(MediaError) -> AssetReaderTrackOutput {
        guard asset.track(id: track.id) != nil else {
            throw MediaError(.invalidValue, "track \(track.id) is not a track of \(asset.url.lastPathComponent)")
        }
        let source = try MediaError.catching(path: asset.url.path) { try SampleDataSource(path: asset.url.path) }
        let output = AssetReaderTrackOutput(track: track, source: source)
        try state.withLock { state throws(MediaError) in
            guard !state.started else { throw MediaError(.invalidValue, "outputs must be added before reading starts") }
            state.outputs.append(output)
        }
        return output
    }

    /// The next sample of any output, in decode order across tracks (by
    /// decode time in seconds, ties by output order); nil at the end. Tasks
    /// sharing the reader each get different samples.
    public func nextSample() throws(MediaError) -> Sample? {
        try state.withLock { state throws(MediaError) in
            if !state.started {
                state.started = true
                for output in state.outputs { state.peeked.append(try output.nextSample()) }
            }
            var best: Int?
            for (index, sample) in state.peeked.enumerated() {
                guard let sample else { continue }
                if let current = best, let other = state.peeked[current], other.decodeTimeSeconds <= sample.decodeTimeSeconds { continue }
                best = index
            }
            guard let best else { return nil }
            let sample = state.peeked[best]
            state.peeked[best] = try state.outputs[best].nextSample()
            return sample
        }
    }
}

/// `for try await sample in reader`: the samples of ``AssetReader/nextSample()``,
/// checking for Task cancellation between samples. The loop fails only with
/// a ``MediaError`` (`Failure` is `MediaError`, so `catch` gets one without
/// a cast); a cancelled task ends it with one whose code is `cancelled`.
extension AssetReader: AsyncSequence {
    /// An iterator over the samples from the reader's position.
    public func makeAsyncIterator() -> AssetSampleIterator {
        AssetSampleIterator(
            nextSample: { [self] () throws(MediaError) in try nextSample() },
            cancelled: { [self] in MediaError(.cancelled, "reading the samples was cancelled", path: asset.url.path) })
    }
}

/// `for try await sample in output`: the samples of
/// ``AssetReaderTrackOutput/nextSample()`` (its ``AssetReaderTrackOutput/sampleRange``),
/// checking for Task cancellation between samples; as ``AssetReader``'s
/// loop, it fails only with a ``MediaError``.
extension AssetReaderTrackOutput: AsyncSequence {
    /// An iterator over the samples from the output's position.
    public func makeAsyncIterator() -> AssetSampleIterator {
        AssetSampleIterator(
            nextSample: { [self] () throws(MediaError) in try nextSample() },
            cancelled: { [self] in MediaError(.cancelled, "reading the samples of track \(track.id) was cancelled") })
    }
}

/// The iterator of `for try await` over an ``AssetReader`` or an
/// ``AssetReaderTrackOutput``: their `nextSample()`, with a check for Task
/// cancellation before each sample.
public struct AssetSampleIterator: AsyncIteratorProtocol {
    /// A sample.
    public typealias Element = Sample
    /// The only error ``next()`` throws.
    public typealias Failure = MediaError

    private let nextSample: @Sendable () throws(MediaError) -> Sample?
    private let cancelled: @Sendable () -> MediaError

    init(nextSample: @escaping @Sendable () throws(MediaError) -> Sample?, cancelled: @escaping @Sendable () -> MediaError) {
        self.nextSample = nextSample
        self.cancelled = cancelled
    }

    /// The next sample; nil after the last; `cancelled` when the task is cancelled.
    public mutating func next() async throws(MediaError) -> Sample? { try advance() }

    /// ``next()``, as `for try await` calls it.
    public mutating func next(isolation actor: isolated (any Actor)?) async throws(MediaError) -> Sample? { try advance() }

    /// The next sample, or `cancelled` when the current task is cancelled.
    private func advance() throws(MediaError) -> Sample? {
        if Task.isCancelled { throw cancelled() }
        return try nextSample()
    }
}

/// The samples of one track, in decode order. Sendable: its position is
/// behind a lock, so tasks sharing it each get different samples.
public final class AssetReaderTrackOutput: Sendable {
    /// The track whose samples this output gives.
    public let track: AssetTrack
    /// Decode-order sample indices to read; all samples by default. Set before reading.
    public var sampleRange: Range<Int> {
        get { state.withLock { $0.sampleRange } }
        set { state.withLock { $0.sampleRange = newValue } }
    }
    let source: SampleDataSource
    private let state: Mutex<State>

    private struct State {
        var sampleRange: Range<Int>
        var cursor: SampleTable.Cursor
        var position = 0
    }

    init(track: AssetTrack, source: SampleDataSource) {
        self.track = track
        self.source = source
        state = Mutex(State(sampleRange: 0..<track.sampleCount, cursor: track.sampleTable.makeCursor()))
    }

    /// Bytes this output has read from the file.
    public var bytesRead: Int64 { source.bytesRead }

    /// The room of the buffer the output reads through (tests: the memory it
    /// keeps does not grow with the file).
    var readBufferCapacity: Int { source.bufferCapacity }

    /// The next sample, or nil after the last one of ``sampleRange``.
    public func nextSample() throws(MediaError) -> Sample? {
        let track = track
        let source = source
        return state.withLock { state in
            while state.position < state.sampleRange.upperBound {
                guard let info = state.cursor.next() else { return nil }
                state.position += 1
                guard info.index >= state.sampleRange.lowerBound else { continue }
                return Sample(info: info, trackID: track.id, timescale: track.timescale, source: source)
            }
            return nil
        }
    }
}
