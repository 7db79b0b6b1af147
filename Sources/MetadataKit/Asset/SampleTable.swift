import Foundation

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
public struct SampleTable: Sendable {
    struct Run: Sendable { var count: UInt32; var value: Int64 }
    struct ChunkRun: Sendable { var firstChunk: UInt32; var samplesPerChunk: UInt32; var descriptionIndex: UInt32 }

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
    public private(set) var sampleCount = 0
    /// Number of chunks (`stco`/`co64` entry_count).
    public var chunkCount: Int { offsets64.isEmpty ? offsets32.count : offsets64.count }
    /// Sum of the sample sizes.
    public private(set) var totalSampleBytes: Int64 = 0
    /// Sum of the sample durations.
    public private(set) var totalDuration: Int64 = 0

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
                guard chunk < table.chunkCount else { index = table.sampleCount; return nil }
                while stscRun + 1 < table.sampleToChunk.count,
                      Int(table.sampleToChunk[stscRun + 1].firstChunk) - 1 <= chunk {
                    stscRun += 1
                }
                leftInChunk = table.sampleToChunk[stscRun].samplesPerChunk
                offsetInChunk = 0
            }
            let size = table.size(of: index)
            let info = SampleInfo(
                index: index, offset: table.chunkOffset(chunk) + offsetInChunk, size: Int(size),
                decodeTime: decodeTime, compositionOffset: composition, duration: duration, isSync: isSync,
                sampleDescriptionIndex: Int(table.sampleToChunk[stscRun].descriptionIndex), chunkIndex: chunk)
            leftInChunk -= 1
            offsetInChunk += Int64(size)
            decodeTime += duration
            index += 1
            return info
        }
    }
}

// MARK: Parsing

extension SampleTable {
    /// Reads the tables of an `stbl` box. Every entry count is checked against
    /// its box's size before anything is allocated.
    init(stbl: MP4Box, source: FileSource) throws {
        func payload(_ type: FourCC) throws -> (reader: ByteReader, header: MP4BoxHeader)? {
            guard let box = stbl.child(type) else { return nil }
            var reader = try source.mp4Payload(of: box.header)
            guard reader.remaining >= 8 else {
                throw MediaError(.malformed, "'\(type)' too small for its header", offset: box.header.offset)
            }
            _ = try reader.readUInt32()                       // version + flags, read again by callers that need them
            return (reader, box.header)
        }
        func entryCount(_ reader: inout ByteReader, entrySize: Int, _ header: MP4BoxHeader) throws -> Int {
            let count = Int(try reader.readUInt32())
            guard count <= reader.remaining / max(1, entrySize) else {
                throw MediaError(.sizeOutOfRange, "'\(header.type)' claims \(count) entries of \(entrySize) bytes; its box holds \(reader.remaining / max(1, entrySize))", offset: header.offset)
            }
            return count
        }

        // Sizes: stsz or stz2.
        if case (var reader, let header)? = try payload("stsz") {
            defaultSize = try reader.readUInt32()
            let count = Int(try reader.readUInt32())
            if defaultSize == 0 {
                guard count <= reader.remaining / 4 else {
                    throw MediaError(.sizeOutOfRange, "'stsz' claims \(count) sizes; its box holds \(reader.remaining / 4)", offset: header.offset)
                }
                sizes32.reserveCapacity(count)
                for _ in 0..<count { sizes32.append(try reader.readUInt32()) }
                totalSampleBytes = sizes32.reduce(0) { $0 + Int64($1) }
            } else {
                guard count <= 1 << 31 else {
                    throw MediaError(.sizeOutOfRange, "'stsz' claims \(count) samples", offset: header.offset)
                }
                totalSampleBytes = Int64(defaultSize) * Int64(count)
            }
            sampleCount = count
        } else if case (var reader, let header)? = try payload("stz2") {
            try reader.skip(3)
            packedFieldSize = Int(try reader.readUInt8())
            guard [4, 8, 16].contains(packedFieldSize) else {
                throw MediaError(.malformed, "'stz2' field size \(packedFieldSize) is not 4, 8 or 16", offset: header.offset)
            }
            let count = Int(try reader.readUInt32())
            let bytes = (count * packedFieldSize + 7) / 8
            guard count >= 0, bytes <= reader.remaining else {
                throw MediaError(.sizeOutOfRange, "'stz2' claims \(count) sizes; its box holds fewer", offset: header.offset)
            }
            packedSizes = try reader.readBytes(bytes)
            sampleCount = count
            for index in 0..<count { totalSampleBytes += Int64(size(of: index)) }
        }
        guard sampleCount > 0 else { return }

        if case (var reader, let header)? = try payload("stts") {
            let count = try entryCount(&reader, entrySize: 8, header)
            timeToSample.reserveCapacity(count)
            for _ in 0..<count {
                timeToSample.append(Run(count: try reader.readUInt32(), value: Int64(try reader.readUInt32())))
            }
        }
        if case (var reader, let header)? = try payload("ctts") {
            // Version 0 offsets are unsigned in the spec but read as signed, as players do.
            let count = try entryCount(&reader, entrySize: 8, header)
            compositionOffsets.reserveCapacity(count)
            for _ in 0..<count {
                compositionOffsets.append(Run(count: try reader.readUInt32(), value: Int64(try reader.readInt32())))
            }
        }
        if case (var reader, let header)? = try payload("stss") {
            let count = try entryCount(&reader, entrySize: 4, header)
            var numbers: [UInt32] = []
            numbers.reserveCapacity(count)
            for _ in 0..<count { numbers.append(try reader.readUInt32()) }
            if zip(numbers, numbers.dropFirst()).contains(where: { $0 >= $1 }) { numbers.sort() }
            syncSamples = numbers
        }
        guard case (var stsc, let stscHeader)? = try payload("stsc") else {
            throw MediaError(.malformed, "a track with samples has no 'stsc'", offset: stbl.header.offset)
        }
        let runs = try entryCount(&stsc, entrySize: 12, stscHeader)
        sampleToChunk.reserveCapacity(runs)
        for _ in 0..<runs {
            let run = ChunkRun(firstChunk: try stsc.readUInt32(), samplesPerChunk: try stsc.readUInt32(),
                               descriptionIndex: try stsc.readUInt32())
            guard run.firstChunk >= 1, run.firstChunk > (sampleToChunk.last?.firstChunk ?? 0) else {
                throw MediaError(.malformed, "'stsc' first chunks are not ascending from 1", offset: stscHeader.offset)
            }
            sampleToChunk.append(run)
        }
        if case (var reader, let header)? = try payload("stco") {
            let count = try entryCount(&reader, entrySize: 4, header)
            offsets32.reserveCapacity(count)
            for _ in 0..<count { offsets32.append(try reader.readUInt32()) }
        } else if case (var reader, let header)? = try payload("co64") {
            let count = try entryCount(&reader, entrySize: 8, header)
            offsets64.reserveCapacity(count)
            for _ in 0..<count { offsets64.append(try reader.readUInt64()) }
        } else {
            throw MediaError(.malformed, "a track with samples has no 'stco' or 'co64'", offset: stbl.header.offset)
        }
        // The chunks must hold every sample.
        var capacity = 0
        for (position, run) in sampleToChunk.enumerated() {
            let end = position + 1 < sampleToChunk.count ? Int(sampleToChunk[position + 1].firstChunk) - 1 : chunkCount
            let chunks = max(0, min(end, chunkCount) - (Int(run.firstChunk) - 1))
            capacity += chunks * Int(run.samplesPerChunk)
            if capacity >= sampleCount { break }
        }
        guard capacity >= sampleCount else {
            throw MediaError(.malformed, "'stsc' and the chunk offsets hold \(capacity) samples; 'stsz' lists \(sampleCount)", offset: stscHeader.offset)
        }
        guard !timeToSample.isEmpty else {
            throw MediaError(.malformed, "a track with samples has no 'stts' entries", offset: stbl.header.offset)
        }
        // The duration of the samples that exist (a sample past the table keeps the last delta).
        totalDuration = 0
        var left = sampleCount
        for run in timeToSample where left > 0 {
            let used = min(left, Int(run.count))
            totalDuration += Int64(used) * run.value
            left -= used
        }
        totalDuration += Int64(left) * timeToSample[timeToSample.count - 1].value
    }
}
