#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One sample as the sample tables describe it (ISO/IEC 14496-12 §8.6–8.7).
///
/// Times are in the track's media timescale.
public struct SampleInfo: Sendable, Hashable {
    /// 0-based index in decode order.
    public var index: Int
    /// Absolute file offset of the sample's first byte.
    public var offset: Int64
    /// Size in bytes.
    public var size: Int
    /// Decode time (sum of the `stts` deltas before this sample).
    public var decodeTime: Int64
    /// Composition offset from `ctts` (0 without one); may be negative.
    public var compositionOffset: Int64
    /// Duration (this sample's `stts` delta).
    public var duration: Int64
    /// True when `stss` lists the sample, or when there is no `stss`.
    public var isSync: Bool
    /// 1-based index into the track's sample descriptions (`stsc`).
    public var sampleDescriptionIndex: Int
    /// 0-based chunk the sample lies in.
    public var chunkIndex: Int

    /// Presentation (composition) time: decode time plus composition offset.
    public var presentationTime: Int64 { decodeTime + compositionOffset }
}

/// The sample tables of one track, kept as compact as the file stores them.
///
/// Per-sample facts are computed by a ``Cursor`` that walks the run-length
/// tables side by side (`stts` §8.6.1.2, `ctts` §8.6.1.3, `stss` §8.6.2,
/// `stsc` §8.7.4, `stsz`/`stz2` §8.7.3, `stco`/`co64` §8.7.5). No per-sample
/// array larger than the table it comes from is ever built: `stz2` sizes
/// stay packed and are decoded on access.
///
/// Loading checks the tables against each other and against the file, and
/// keeps the longest consistent prefix of samples (as ffprobe does), with a
/// ``MediaWarning`` in ``warnings`` for what was left out: samples that
/// `stsc` and the chunk offsets can't hold, samples whose bytes lie past the
/// end of the file, samples beyond the file's size in total (chunks that
/// overlap), and decode times past 2^62. So every sample the ``Cursor``
/// gives lies inside the file, the sample count is bounded by what the file
/// stores, and no arithmetic on the tables can overflow.
public struct SampleTable: Sendable, Hashable {
    struct Run: Sendable, Hashable {
        var count: UInt32
        var value: Int64
    }
    struct ChunkRun: Sendable, Hashable {
        var firstChunk: UInt32
        var samplesPerChunk: UInt32
        var descriptionIndex: UInt32
    }

    var timeToSample: [Run] = []
    var compositionOffsets: [Run] = []
    /// 1-based sync sample numbers, ascending; nil when every sample is sync.
    var syncSamples: [UInt32]?
    var sampleToChunk: [ChunkRun] = []
    /// `stsz` default size (0: sizes are listed).
    var defaultSize: UInt32 = 0
    var sizes32: [UInt32] = []
    /// `stz2` packed sizes and their field size in bits (4, 8 or 16).
    var packedSizes: [UInt8] = []
    var packedFieldSize = 0
    var offsets32: [UInt32] = []
    var offsets64: [UInt64] = []

    /// Number of samples (`stsz`/`stz2` sample_count).
    public internal(set) var sampleCount = 0
    /// Number of chunks (`stco`/`co64` entry_count).
    public var chunkCount: Int { offsets64.isEmpty ? offsets32.count : offsets64.count }
    /// Sum of the sample sizes.
    public internal(set) var totalSampleBytes: Int64 = 0
    /// Sum of the sample durations.
    public internal(set) var totalDuration: Int64 = 0
    /// What loading left out or read around (see the type's documentation).
    public internal(set) var warnings: [MediaWarning] = []

    /// An empty table (a track without samples).
    public init() {}

    /// The size of sample `index`.
    func size(of index: Int) -> UInt32 {
        if defaultSize != 0 { return defaultSize }
        if !sizes32.isEmpty { return sizes32[index] }
        switch packedFieldSize {
        case 4:
            let byte = packedSizes[index / 2]
            return UInt32(index % 2 == 0 ? byte >> 4 : byte & 0x0F)
        case 8: return UInt32(packedSizes[index])
        default: return UInt32(packedSizes[index * 2]) << 8 | UInt32(packedSizes[index * 2 + 1])
        }
    }

    func chunkOffset(_ chunk: Int) -> Int64 {
        offsets64.isEmpty ? Int64(offsets32[chunk]) : Int64(bitPattern: offsets64[chunk])
    }

    /// A cursor at the first sample.
    public func makeCursor() -> Cursor { Cursor(table: self) }

    /// Walks the samples in decode order, one table run at a time.
    public struct Cursor: Sendable {
        let table: SampleTable
        private var index = 0
        private var sttsRun = 0, sttsLeft: UInt32 = 0
        private var cttsRun = 0, cttsLeft: UInt32 = 0
        private var syncPosition = 0
        private var stscRun = 0
        private var chunk = 0, leftInChunk: UInt32 = 0, offsetInChunk: Int64 = 0
        private var decodeTime: Int64 = 0

        init(table: SampleTable) {
            self.table = table
            sttsLeft = table.timeToSample.first?.count ?? 0
            cttsLeft = table.compositionOffsets.first?.count ?? 0
            chunk = -1
        }

        /// The next sample, or nil after the last one.
        public mutating func next() -> SampleInfo? {
            guard index < table.sampleCount else { return nil }
            // Time to sample: a sample past the table keeps the last delta.
            while sttsLeft == 0, sttsRun + 1 < table.timeToSample.count {
                sttsRun += 1
                sttsLeft = table.timeToSample[sttsRun].count
            }
            let duration = table.timeToSample.isEmpty ? 0 : table.timeToSample[sttsRun].value
            if sttsLeft > 0 { sttsLeft -= 1 }
            var composition: Int64 = 0
            if !table.compositionOffsets.isEmpty {
                while cttsLeft == 0, cttsRun + 1 < table.compositionOffsets.count {
                    cttsRun += 1
                    cttsLeft = table.compositionOffsets[cttsRun].count
                }
                composition = table.compositionOffsets[cttsRun].value
                if cttsLeft > 0 { cttsLeft -= 1 }
            }
            var isSync = true
            if let sync = table.syncSamples {
                let number = UInt32(truncatingIfNeeded: index + 1)
                while syncPosition < sync.count, sync[syncPosition] < number { syncPosition += 1 }
                isSync = syncPosition < sync.count && sync[syncPosition] == number
            }
            // Sample to chunk: step to the next chunk when this one is used up.
            while leftInChunk == 0 {
                chunk += 1
                guard chunk < table.chunkCount else {
                    index = table.sampleCount
                    return nil
                }
                while stscRun + 1 < table.sampleToChunk.count,
                    Int(table.sampleToChunk[stscRun + 1].firstChunk) - 1 <= chunk
                {
                    stscRun += 1
                }
                leftInChunk = table.sampleToChunk[stscRun].samplesPerChunk
                offsetInChunk = 0
            }
            // Loading checked that every kept sample lies inside the file and that decode
            // times stay below 2^62, so these sums can't overflow; stop rather than trap.
            let size = Int64(table.size(of: index))
            let (offset, offsetOverflow) = table.chunkOffset(chunk).addingReportingOverflow(offsetInChunk)
            let (nextOffset, sizeOverflow) = offsetInChunk.addingReportingOverflow(size)
            let (nextTime, timeOverflow) = decodeTime.addingReportingOverflow(duration)
            guard !offsetOverflow, !sizeOverflow, !timeOverflow else {
                index = table.sampleCount
                return nil
            }
            let info = SampleInfo(
                index: index, offset: offset, size: Int(size),
                decodeTime: decodeTime, compositionOffset: composition, duration: duration, isSync: isSync,
                sampleDescriptionIndex: Int(table.sampleToChunk[stscRun].descriptionIndex), chunkIndex: chunk)
            leftInChunk -= 1
            offsetInChunk = nextOffset
            decodeTime = nextTime
            index += 1
            return info
        }
    }
}
