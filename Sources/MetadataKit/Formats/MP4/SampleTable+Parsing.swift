#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SampleTable {
    /// Decode times are kept below this (2^62), so that a decode time plus a
    /// composition offset or a duration never overflows.
    static let decodeTimeLimit: Int64 = 1 << 62

    /// Reads the tables of an `stbl` box (ISO/IEC 14496-12 §8.5–8.7) of a
    /// file of `fileSize` bytes (the source's size by default). Every entry
    /// count is checked against its box's size before anything is allocated;
    /// then the tables are checked against each other and against the file
    /// (see the type's documentation): inconsistent tails are left out with
    /// a warning.
    init(parsing stbl: MP4Box, in source: FileSource, fileSize: Int64? = nil) throws {
        func payload(_ type: FourCC) throws -> (reader: ByteReader, header: MP4BoxHeader)? {
            guard let box = stbl.child(type) else { return nil }
            var reader = try source.mp4Payload(of: box.header)
            guard reader.remaining >= 8 else {
                throw MediaError(.malformed, "'\(type)' too small for its header", offset: box.header.offset)
            }
            _ = try reader.readUInt32() // version + flags, read again by callers that need them
            return (reader, box.header)
        }
        func entryCount(_ reader: inout ByteReader, entrySize: Int, _ header: MP4BoxHeader) throws -> Int {
            let count = Int(try reader.readUInt32())
            guard count <= reader.remaining / max(1, entrySize) else {
                throw MediaError(
                    .sizeOutOfRange,
                    "'\(header.type)' claims \(count) entries of \(entrySize) bytes; its box holds \(reader.remaining / max(1, entrySize))",
                    offset: header.offset)
            }
            return count
        }

        // Sizes (§8.7.3): stsz or stz2.
        var sizesHeader: MP4BoxHeader?
        if case (var reader, let header)? = try payload("stsz") {
            sizesHeader = header
            defaultSize = try reader.readUInt32()
            let count = Int(try reader.readUInt32())
            if defaultSize == 0 {
                guard count <= reader.remaining / 4 else {
                    throw MediaError(
                        .sizeOutOfRange, "'stsz' claims \(count) sizes; its box holds \(reader.remaining / 4)", offset: header.offset)
                }
                sizes32.reserveCapacity(count)
                for _ in 0..<count { sizes32.append(try reader.readUInt32()) }
            }
            // With a default size, the count is checked against the file's size with the chunk offsets.
            sampleCount = count
        } else if case (var reader, let header)? = try payload("stz2") {
            sizesHeader = header
            try reader.skip(3)
            packedFieldSize = Int(try reader.readUInt8())
            guard [4, 8, 16].contains(packedFieldSize) else {
                throw MediaError(.malformed, "'stz2' field size \(packedFieldSize) is not 4, 8 or 16", offset: header.offset)
            }
            let count = Int(try reader.readUInt32())
            let bytes = (count * packedFieldSize + 7) / 8
            guard bytes <= reader.remaining else {
                throw MediaError(.sizeOutOfRange, "'stz2' claims \(count) sizes; its box holds fewer", offset: header.offset)
            }
            packedSizes = try reader.readBytes(bytes)
            sampleCount = count
        }
        guard sampleCount > 0, let sizesHeader else { return }

        var sttsHeader = stbl.header
        if case (var reader, let header)? = try payload("stts") {
            sttsHeader = header
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
            let run = ChunkRun(
                firstChunk: try stsc.readUInt32(), samplesPerChunk: try stsc.readUInt32(),
                descriptionIndex: try stsc.readUInt32())
            guard run.firstChunk >= 1, run.firstChunk > (sampleToChunk.last?.firstChunk ?? 0) else {
                throw MediaError(.malformed, "'stsc' first chunks are not ascending from 1", offset: stscHeader.offset)
            }
            sampleToChunk.append(run)
        }
        let offsetsHeader: MP4BoxHeader
        if case (var reader, let header)? = try payload("stco") {
            offsetsHeader = header
            let count = try entryCount(&reader, entrySize: 4, header)
            offsets32.reserveCapacity(count)
            for _ in 0..<count { offsets32.append(try reader.readUInt32()) }
        } else if case (var reader, let header)? = try payload("co64") {
            offsetsHeader = header
            let count = try entryCount(&reader, entrySize: 8, header)
            offsets64.reserveCapacity(count)
            for _ in 0..<count { offsets64.append(try reader.readUInt64()) }
        } else {
            throw MediaError(.malformed, "a track with samples has no 'stco' or 'co64'", offset: stbl.header.offset)
        }
        guard !timeToSample.isEmpty else {
            throw MediaError(.malformed, "a track with samples has no 'stts' entries", offset: stbl.header.offset)
        }
        keepConsistentSamples(
            sizes: sizesHeader, timing: sttsHeader, chunks: stscHeader, offsets: offsetsHeader,
            fileSize: fileSize ?? source.size)
    }

    /// Cuts ``sampleCount`` to the samples the chunks hold, that lie inside
    /// the file and whose bytes add up to no more than the file's size, with
    /// decode times below ``decodeTimeLimit``; sets the totals and a warning
    /// for each cut.
    private mutating func keepConsistentSamples(
        sizes: MP4BoxHeader, timing: MP4BoxHeader, chunks: MP4BoxHeader,
        offsets: MP4BoxHeader, fileSize: Int64
    ) {
        let sizesName = sizes.type.description, offsetsName = offsets.type.description
        func warn(_ message: String, _ header: MP4BoxHeader) {
            warnings.append(MediaWarning(.malformed, message, offset: header.offset))
        }

        // Samples per chunk (§8.7.4): the chunks must hold every sample listed.
        var capacity = 0
        for (position, run) in sampleToChunk.enumerated() where capacity < sampleCount {
            let end = position + 1 < sampleToChunk.count ? Int(sampleToChunk[position + 1].firstChunk) - 1 : chunkCount
            let chunks = max(0, min(end, chunkCount) - (Int(run.firstChunk) - 1))
            let (held, overflow) = chunks.multipliedReportingOverflow(by: Int(run.samplesPerChunk))
            capacity = overflow ? Int.max : capacity.addingReportingOverflow(held).overflow ? Int.max : capacity + held
        }
        if capacity < sampleCount {
            warn(
                "'stsc' and '\(offsetsName)' hold \(capacity) samples; '\(sizesName)' lists \(sampleCount): the other \(sampleCount - capacity) are left out",
                chunks)
            sampleCount = capacity
        }

        // Time to sample (§8.6.1.2): a sample past the table keeps the last delta (as players do).
        var timed: Int64 = 0
        for run in timeToSample { timed = min(timed + Int64(run.count), Int64(Int32.max) << 2) }
        if timed < Int64(sampleCount) {
            warn("'stts' times \(timed) samples; '\(sizesName)' lists \(sampleCount): the last delta is used for the rest", timing)
        }
        var duration: Int64 = 0
        var left = sampleCount
        for (position, run) in timeToSample.enumerated() where left > 0 {
            let used = position + 1 < timeToSample.count ? min(left, Int(run.count)) : left
            let room = run.value == 0 ? used : Int((Self.decodeTimeLimit - duration) / run.value)
            if room < used {
                sampleCount -= left - room
                warn("'stts' decode times pass 2^62 after sample \(sampleCount): the later samples are left out", timing)
                break
            }
            duration += Int64(used) * run.value
            left -= used
        }

        // Chunk offsets (§8.7.5): each sample's bytes inside the file, and no more bytes in all than the file has.
        var index = 0
        var total: Int64 = 0
        var run = 0
        chunks: for chunk in 0..<chunkCount where index < sampleCount {
            while run + 1 < sampleToChunk.count, Int(sampleToChunk[run + 1].firstChunk) - 1 <= chunk { run += 1 }
            let inChunk = min(Int(sampleToChunk[run].samplesPerChunk), sampleCount - index)
            guard inChunk > 0 else { continue }
            let start = chunkOffset(chunk)
            guard start >= 0, start <= fileSize else {
                warn(
                    "chunk \(chunk + 1) of '\(offsetsName)' lies at \(UInt64(bitPattern: start)), past the end of the file (\(fileSize) bytes): samples from \(index + 1) on are left out",
                    offsets)
                sampleCount = index
                break
            }
            if defaultSize != 0 {
                // Equal sizes: the whole chunk at once.
                let size = Int64(defaultSize)
                let inFile = (fileSize - start) / size, inTotal = (fileSize - total) / size
                let fits = min(Int64(inChunk), inFile, inTotal)
                total += fits * size
                index += Int(fits)
                if fits < Int64(inChunk) {
                    cutAtEnd(chunk: chunk, index: index, offsets, overlapping: inTotal < inFile)
                    break
                }
                continue
            }
            var end = start
            for _ in 0..<inChunk {
                let size = Int64(size(of: index))
                guard size <= fileSize - end, size <= fileSize - total else {
                    cutAtEnd(chunk: chunk, index: index, offsets, overlapping: size <= fileSize - end)
                    break chunks
                }
                end += size
                total += size
                index += 1
            }
        }
        totalSampleBytes = total
        sampleCount = min(sampleCount, index)
        totalDuration = timeOfFirst(sampleCount)
    }

    /// The warning for a sample that doesn't fit: past the end of the file,
    /// or (`overlapping`) beyond the file's size in total.
    private mutating func cutAtEnd(chunk: Int, index: Int, _ offsets: MP4BoxHeader, overlapping: Bool) {
        let reason =
            overlapping
            ? "the samples up to it hold more bytes than the file (chunks overlap)"
            : "its bytes run past the end of the file"
        warnings.append(
            MediaWarning(
                .malformed,
                "sample \(index + 1) (chunk \(chunk + 1) of '\(offsets.type)'): \(reason); it and the later samples are left out",
                offset: offsets.offset))
        sampleCount = index
    }

    /// The sum of the durations of the first `count` samples (a sample past
    /// `stts` keeps the last delta). `count` never exceeds what was checked
    /// against ``decodeTimeLimit``.
    func timeOfFirst(_ count: Int) -> Int64 {
        var total: Int64 = 0
        var left = count
        for (position, run) in timeToSample.enumerated() where left > 0 {
            let used = position + 1 < timeToSample.count ? min(left, Int(run.count)) : left
            total += Int64(used) * run.value
            left -= used
        }
        return total
    }
}
