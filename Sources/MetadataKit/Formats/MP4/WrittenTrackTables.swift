#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The sample tables of a track being written, kept run-length encoded.
struct WrittenTrackTables: Sendable {
    var timeToSample: [(count: UInt32, delta: UInt32)] = []
    var compositionOffsets: [(count: UInt32, offset: Int32)] = []
    var hasCompositionOffsets = false
    /// 1-based numbers of the sync samples; nil while every sample is sync
    /// (no `stss` is written then, §8.6.2).
    var syncSamples: [UInt32]?
    /// Sizes; empty while every sample has ``constantSize`` (`stsz` with a
    /// default size, §8.7.3), so constant-size audio keeps no per-sample list.
    var sizes: [UInt32] = []
    var constantSize: UInt32?
    private(set) var sampleCount = 0
    /// Chunk offsets relative to the start of the `mdat` payload.
    var chunkOffsets: [Int64] = []
    var sampleToChunk: [(firstChunk: UInt32, samplesPerChunk: UInt32, descriptionIndex: UInt32)] = []
    var mediaDuration: Int64 = 0

    mutating func appendSample(size: Int, duration: Int64, compositionOffset: Int64, isSync: Bool) {
        let delta = UInt32(clamping: duration)
        if let last = timeToSample.last, last.delta == delta {
            timeToSample[timeToSample.count - 1].count += 1
        } else {
            timeToSample.append((1, delta))
        }
        let offset = Int32(clamping: compositionOffset)
        if offset != 0 { hasCompositionOffsets = true }
        if let last = compositionOffsets.last, last.offset == offset {
            compositionOffsets[compositionOffsets.count - 1].count += 1
        } else {
            compositionOffsets.append((1, offset))
        }
        let size = UInt32(size)
        if sampleCount == 0 {
            constantSize = size
        } else if let constant = constantSize, constant != size {
            sizes = [UInt32](repeating: constant, count: sampleCount)
            constantSize = nil
        }
        if constantSize == nil { sizes.append(size) }
        if !isSync, syncSamples == nil { syncSamples = (0..<UInt32(sampleCount)).map { $0 + 1 } }
        sampleCount += 1
        if isSync { syncSamples?.append(UInt32(sampleCount)) }
        mediaDuration += Int64(delta)
    }

    mutating func appendChunk(offset: Int64, samples: Int, descriptionIndex: Int) {
        chunkOffsets.append(offset)
        let chunk = UInt32(chunkOffsets.count)
        if let last = sampleToChunk.last, last.samplesPerChunk == UInt32(samples), last.descriptionIndex == UInt32(descriptionIndex) {
            return
        }
        sampleToChunk.append((chunk, UInt32(samples), UInt32(descriptionIndex)))
    }
}
