#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Elements that would go after the last Cluster go before the first one
/// instead, when readers would otherwise not find them:
///
/// - the file has no SeekHead (what MediaRecorder, OBS and live encoders
///   write, often with a Segment and Clusters of unknown size): ffprobe,
///   mediainfo and exiftool read only what comes before the first Cluster
///   and what a SeekHead points at;
/// - an element that was before the Clusters (Tags, Info, …) no longer fits
///   there: exiftool (without `-ee`) reads nothing after the first Cluster.
///
/// The elements are inserted right before the first Cluster (starting in
/// the free Voids just before it, the old element's place among them),
/// followed by a Void of ``PaddingPolicy`` padding so the next save fits in
/// place. The
/// Clusters and Cues move unchanged (the file is rewritten through the save
/// layer's temporary file); what points at them follows: SeekHead entries,
/// the Cues' cluster positions (``MatroskaCuesShift``) and a known Segment
/// size. A Cluster's own optional Position element is not rewritten (the
/// Clusters stay byte for byte; readers don't rely on it). A recording cut
/// inside its last Cluster can be written this way (nothing is appended
/// after the cut). When the Cues can't be read whole, the elements go at
/// the end as before.
extension MatroskaSpaceLayout {
    /// An offset of the old file in the new one.
    func newOffset(_ offset: Int64) -> Int64 {
        guard let insertion, offset >= insertion.offset else { return offset }
        return offset + Int64(insertion.bytes.count)
    }

    /// Moves what would be appended before the first Cluster when readers
    /// need it there (see above).
    mutating func insertBeforeClusters() throws {
        let layout = file.layout
        guard !appended.isEmpty, let first = layout.firstCluster, first < source.size else { return }
        let fromFront = moves.contains { move in (move.from ?? .max) < first && (move.to ?? -1) >= source.size }
        guard layout.seekHeads.isEmpty || fromFront else { return }
        // Free Voids right before the first Cluster (an old element voided by
        // this save among them) are taken first: the elements start there.
        var start = first
        while let index = voids.firstIndex(where: { $0.offset + $0.size == start }) {
            start = voids[index].offset
            voids.remove(at: index)
        }
        let free = Int(first - start)
        var padding = PaddingPolicy.standard.padding(audioBytes: source.size - first)
        if appended.count + 2 <= free { padding = free - appended.count }
        let combined = appended + EBML.void(count: max(2, padding))
        let bytes = Array(combined[free...])
        let delta = Int64(bytes.count)
        // Every Cues element, before the Clusters or after them.
        let after = layout.cuesAfterFirstCluster(source)
        var cues: [(EBMLElement, [UInt8])] = []
        for element in layout.all(MatroskaID.cues).filter({ $0.offset < first }) + after {
            guard let data = try MatroskaCuesShift.data(source, element: element, from: first - layout.segmentData, delta: delta)
            else { return }
            cues.append((element, data))
        }
        moves = moves.map { move in
            guard let to = move.to, to >= source.size else { return move }
            return (move.id, move.from, start + (to - source.size), true)
        }
        appended = []
        if free > 0 { patch(start, Array(combined[..<free])) }
        insertion = (first, bytes)
        for (element, data) in cues { try replace(element, id: MatroskaID.cues, data: data) }
    }

    /// The rewrite that puts `insertion` before the first Cluster: the
    /// patches, the Segment's new size (when known) and what is appended.
    mutating func insertionPlan(_ insertion: (offset: Int64, bytes: [UInt8])) throws -> FileEditPlan {
        try checkAppendable()
        let segment = file.layout.segment
        if let size = segment.dataSize {
            guard
                let bytes = EBML.sizeBytes(
                    size + Int64(insertion.bytes.count) + Int64(appended.count), length: segment.sizeLength)
            else {
                throw MediaError(.unsupportedFeature, "the Segment's size field can't hold its new size", offset: segment.offset)
            }
            patches.append((segment.offset + Int64(segment.idLength), bytes))
        }
        let segments = FileEditPlan.inPlace(try changedPatches()).segments(originalSize: source.size)
        var result: [FileEditPlan.Segment] = []
        var position: Int64 = 0
        var inserted = false
        for segment in segments {
            if !inserted, position == insertion.offset {
                result.append(.bytes(insertion.bytes))
                inserted = true
            }
            if !inserted, case .original(let offset, let length) = segment, offset < insertion.offset,
                offset + length > insertion.offset
            {
                let head = insertion.offset - offset
                result += [.original(offset: offset, length: head), .bytes(insertion.bytes)]
                result.append(.original(offset: insertion.offset, length: length - head))
                inserted = true
            } else {
                result.append(segment)
            }
            position += segment.length
        }
        precondition(inserted, "the insertion point lies in the file")
        if !appended.isEmpty { result.append(.bytes(appended)) }
        return .rewrite(FileEditPlan.coalesced(result))
    }
}
