#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One media sample: its timing, flags and (lazily read) bytes.
///
/// Times are in the track's ``timescale``; the `…Seconds` helpers convert.
/// A sample from an ``AssetReader`` holds no bytes: ``data()`` reads them
/// from the file when asked, through the reader's reused read-ahead buffer.
/// A sample made with ``init(trackID:data:decodeTime:presentationTime:duration:timescale:isSync:sampleDescriptionIndex:)``
/// carries its bytes.
public struct Sample: Sendable {
    /// The track (of the source file) the sample belongs to.
    public var trackID: UInt32
    /// 0-based index in the source track, in decode order (nil for made samples).
    public var index: Int?
    /// Decode time, in ``timescale`` units.
    public var decodeTime: Int64
    /// Presentation time (decode time plus the `ctts` composition offset), in ``timescale`` units.
    public var presentationTime: Int64
    /// Duration, in ``timescale`` units.
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
    public init(
        trackID: UInt32, data: [UInt8], decodeTime: Int64, presentationTime: Int64, duration: Int64,
        timescale: UInt32, isSync: Bool = true, sampleDescriptionIndex: Int = 1
    ) {
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
    /// ``decodeTime`` in seconds.
    public var decodeTimeSeconds: Double { Double(decodeTime) / Double(max(1, timescale)) }
    /// ``presentationTime`` in seconds.
    public var presentationTimeSeconds: Double { Double(presentationTime) / Double(max(1, timescale)) }
    /// ``duration`` in seconds.
    public var durationSeconds: Double { Double(duration) / Double(max(1, timescale)) }

    /// The file and offset of the sample's bytes, for a sample read from a file.
    var fileRange: (source: SampleDataSource, offset: Int64)? {
        guard bytes == nil, let source, let offset else { return nil }
        return (source, offset)
    }

    /// The sample's bytes (or the bytes it was made with): a sample from an
    /// ``AssetReader`` reads them from the file now, on a thread outside
    /// Swift's cooperative pool.
    ///
    /// - Throws: ``MediaError`` — `io`, or `truncated` when the file is
    ///   shorter than the sample table says.
    public func data() async throws(MediaError) -> [UInt8] {
        guard bytes == nil, source != nil else { return try readBytes() }
        return try await BlockingWork.loads.run { [self] () throws(MediaError) -> [UInt8] in try readBytes() }
    }

    /// The sample's bytes, read on the calling thread.
    @available(*, deprecated, renamed: "data()", message: "use `try await data()`, which reads off the cooperative thread pool")
    public func readData() throws -> [UInt8] {
        try readBytes()
    }

    /// The sample's bytes, read now on the calling thread: for the writer and
    /// the timed metadata reader, which run where a read may block.
    package func readBytes() throws(MediaError) -> [UInt8] {
        if let bytes { return bytes }
        guard let source, let offset else { return [] }
        return try MediaError.catching(path: source.path) { try source.getBytes(at: offset, count: size) }
    }
}
