import Foundation

/// One media sample: its timing, flags and (lazily read) bytes.
///
/// Times are in the track's ``timescale``; the `…Seconds` helpers convert.
/// A sample from an ``AssetReader`` holds no bytes: ``readData()`` reads them
/// from the file when asked, through the reader's reused read-ahead buffer.
/// A sample made with ``init(trackID:data:decodeTime:presentationTime:duration:timescale:isSync:sampleDescriptionIndex:)``
/// carries its bytes.
public struct Sample: Sendable {
    /// The track (of the source file) the sample belongs to.
    public var trackID: UInt32
    /// 0-based index in the source track, in decode order (nil for made samples).
    public var index: Int?
    public var decodeTime: Int64
    public var presentationTime: Int64
    public var duration: Int64
    /// Units per second of the times.
    public var timescale: UInt32
    /// True for a sync (random access) sample (`stss`, ISO/IEC 14496-12 §8.6.2).
    public var isSync: Bool
    /// 1-based sample description index (`stsc`, §8.7.4).
    public var sampleDescriptionIndex: Int
    /// Size of the data in bytes.
    public var size: Int
    /// File offset of the data in the source file (nil for made samples).
    public var offset: Int64?

    let source: SampleDataSource?
    let bytes: [UInt8]?

    /// A sample holding `data`.
    public init(trackID: UInt32, data: [UInt8], decodeTime: Int64, presentationTime: Int64, duration: Int64,
                timescale: UInt32, isSync: Bool = true, sampleDescriptionIndex: Int = 1) {
        self.trackID = trackID
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.timescale = timescale
        self.isSync = isSync
        self.sampleDescriptionIndex = sampleDescriptionIndex
        self.size = data.count
        self.bytes = data
        self.source = nil
    }

    init(info: SampleInfo, trackID: UInt32, timescale: UInt32, source: SampleDataSource) {
        self.trackID = trackID
        self.index = info.index
        self.decodeTime = info.decodeTime
        self.presentationTime = info.presentationTime
        self.duration = info.duration
        self.timescale = timescale
        self.isSync = info.isSync
        self.sampleDescriptionIndex = info.sampleDescriptionIndex
        self.size = info.size
        self.offset = info.offset
        self.source = source
        self.bytes = nil
    }

    /// Composition offset: presentation time minus decode time.
    public var compositionOffset: Int64 { presentationTime - decodeTime }
    public var decodeTimeSeconds: Double { Double(decodeTime) / Double(max(1, timescale)) }
    public var presentationTimeSeconds: Double { Double(presentationTime) / Double(max(1, timescale)) }
    public var durationSeconds: Double { Double(duration) / Double(max(1, timescale)) }

    /// The file and offset of the sample's bytes, for a sample read from a file.
    var fileRange: (source: SampleDataSource, offset: Int64)? {
        guard bytes == nil, let source, let offset else { return nil }
        return (source, offset)
    }

    /// The sample's bytes, read from the file now (or the bytes it was made with).
    public func readData() throws -> [UInt8] {
        if let bytes { return bytes }
        guard let source, let offset else { return [] }
        return try source.read(at: offset, count: size)
    }
}

/// Positioned reads of sample data through one reused read-ahead buffer.
///
/// Consecutive samples of a chunk are served from the buffer; a sample
/// outside it refills the buffer with at most ``readAhead`` bytes starting at
/// that sample (more only when the sample itself is larger). Memory use is
/// this buffer, whatever the size of the file. Thread-safe.
final class SampleDataSource: @unchecked Sendable {
    static let readAhead = 128 * 1024
    let path: String
    let descriptor: Int32
    let fileSize: Int64
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0
    private var bufferCount = 0
    private var counter: Int64 = 0

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.io, "cannot open: \(systemErrorText())", path: path)
        }
        var info = stat()
        fstat(descriptor, &info)
        fileSize = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Bytes read from the file so far (for tests and statistics).
    var bytesRead: Int64 { lock.withLock { counter } }

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= fileSize, Int64(count) <= fileSize - offset else {
            throw MediaError(.truncated, "sample of \(count) bytes runs past the end of the file (\(fileSize) bytes)", offset: offset, path: path)
        }
        if count == 0 { return [] }
        return try lock.withLock {
            if offset < bufferStart || offset + Int64(count) > bufferStart + Int64(bufferCount) {
                let length = Int(min(Int64(max(count, Self.readAhead)), fileSize - offset))
                if buffer.count < length { buffer = [UInt8](repeating: 0, count: length) }
                try buffer.withUnsafeMutableBytes { raw in
                    try readFully(descriptor, into: raw.baseAddress!, count: length, at: offset, path: path) { [path] end in
                        MediaError(.io, "read failed: the file ended early", offset: end, path: path)
                    }
                }
                counter += Int64(length)
                bufferStart = offset
                bufferCount = length
            }
            let start = Int(offset - bufferStart)
            return Array(buffer[start..<start + count])
        }
    }
}

/// Reads the samples of chosen tracks of an ``Asset``, in decode order.
///
/// ```swift
/// let reader = try AssetReader(asset: asset)
/// for track in asset.tracks { try reader.addOutput(track: track) }
/// while let sample = try reader.nextSample() {       // all outputs, by decode time
///     let bytes = try sample.readData()
/// }
/// ```
///
/// The reader is also an `AsyncSequence` of the same samples
/// (`for try await sample in reader`). Each ``AssetReaderTrackOutput`` can
/// also be read on its own with its `nextSample()`; don't mix the two styles
/// on one reader. Samples are
/// computed from the sample tables as they are asked for and their bytes are
/// read only by ``Sample/readData()``, so memory does not grow with the
/// file. Fragmented files are refused (`unsupportedFeature`).
public final class AssetReader {
    public let asset: Asset
    public private(set) var outputs: [AssetReaderTrackOutput] = []
    private var peeked: [Sample?] = []
    private var started = false

    public init(asset: Asset) throws {
        guard asset.isLoaded else {
            throw MediaError(.notLoaded, "load the asset before reading it", path: asset.url.path)
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
