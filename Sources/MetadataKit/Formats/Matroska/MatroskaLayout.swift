#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the parts of a Matroska or WebM file are (RFC 9559 §5.1): the EBML
/// header, the Segment, and the Segment's top-level elements — found by
/// walking the elements before the first Cluster and following the SeekHead
/// (a second SeekHead, and Tags or Cues after the Clusters, are normal).
///
/// Lazy: Clusters are never read. When the file has no SeekHead, or one of
/// its entries points at the wrong element, the top-level elements after the
/// first Cluster are found by jumping over Clusters by their size (a Cluster
/// of unknown size is walked child by child, at most ``maximumScan``
/// elements, until a top-level ID).
struct MatroskaLayout: Sendable {
    var header: EBMLHeader
    var segment: EBMLElement
    /// Where the Segment's children end: its end, or the end of the file for
    /// an unknown size (or a size past the end, with a warning).
    var segmentEnd: Int64
    /// Every top-level element found that is not a Cluster, in file order.
    var elements: [EBMLElement] = []
    var seekHeads: [MatroskaSeekHead] = []
    /// The first Cluster's offset.
    var firstCluster: Int64?
    /// Whether Clusters were walked to find the elements after them.
    var scannedClusters = false
    /// The offsets of ``elements``.
    private var known = Set<Int64>()
    private var voidCount = 0
    var warnings: [MediaWarning] = []

    /// The most top-level elements walked (a bomb of tiny Voids stops here).
    static let maximumScan = 1_000_000
    /// The most top-level Voids remembered.
    static let maximumVoids = 256

    /// The Segment's data offset: SeekHead positions are relative to it.
    var segmentData: Int64 { segment.dataOffset }

    /// The first top-level element with `id`.
    func first(_ id: UInt32) -> EBMLElement? { elements.first { $0.id == id } }
    /// Every top-level element with `id`, in file order.
    func all(_ id: UInt32) -> [EBMLElement] { elements.filter { $0.id == id } }
}

extension MatroskaLayout {
    init(parsing source: FileSource) throws {
        var warnings: [MediaWarning] = []
        let header = try EBMLHeader(parsing: source, warnings: &warnings)
        // The Segment: the first Segment after the header (Voids may sit between).
        var position = header.element.end ?? source.size
        var segment: EBMLElement?
        for _ in 0..<64 where position < source.size {
            let element = try EBMLElement(parsing: source, at: position, limit: source.size)
            if element.id == MatroskaID.segment {
                segment = element
                break
            }
            guard let end = element.end else { break }
            position = end
        }
        guard let segment else { throw MediaError(.malformed, "no Segment after the EBML header", offset: position) }
        var end = source.size
        if let segmentEnd = segment.end {
            if segmentEnd > source.size {
                warnings.append(
                    MediaWarning(
                        .truncated, "the Segment claims \(segmentEnd - source.size) bytes more than the file has", offset: segment.offset))
            } else {
                end = segmentEnd
            }
        }
        self.init(header: header, segment: segment, segmentEnd: end, warnings: warnings)
        try walk(source, from: segment.dataOffset, stoppingAtCluster: true)
        try followSeekHeads(source)
    }

    /// Walks top-level elements from `start`; stops at the first Cluster when
    /// asked, else jumps over Clusters to the Segment's end.
    private mutating func walk(_ source: FileSource, from start: Int64, stoppingAtCluster: Bool) throws {
        var position = start
        var count = 0
        while position < segmentEnd, segmentEnd - position >= 2 {
            count += 1
            if count > Self.maximumScan {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "more than \(Self.maximumScan) top-level elements; the rest is not read", offset: position))
                return
            }
            let element: EBMLElement
            do {
                element = try EBMLElement(parsing: source, at: position, limit: segmentEnd)
            } catch let error as MediaError {
                warnings.append(
                    MediaWarning(
                        error.code, "unreadable top-level element (\(error.reason)); the rest of the Segment is not read", offset: position)
                )
                return
            }
            if element.id == MatroskaID.cluster {
                if firstCluster == nil { firstCluster = element.offset }
                if stoppingAtCluster { return }
                scannedClusters = true
                guard let next = try element.end ?? clusterEnd(source, element) else { return }
                position = next
                continue
            }
            guard let next = element.end else {
                warnings.append(
                    MediaWarning(
                        .malformed,
                        "top-level element 0x\(String(element.id, radix: 16)) of unknown size (only a Segment or Cluster may have one); the rest is not read",
                        offset: element.offset))
                return
            }
            if next > segmentEnd {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "top-level element 0x\(String(element.id, radix: 16)) runs \(next - segmentEnd) bytes past the Segment",
                        offset: element.offset))
            }
            // Voids are kept as free space for saves, up to a limit (a file of
            // tiny Voids is not worth remembering).
            let keeps = MatroskaID.topLevel.contains(element.id) || (element.id == MatroskaID.void && voidCount < Self.maximumVoids)
            if keeps, known.insert(element.offset).inserted {
                elements.append(element)
                if element.id == MatroskaID.void { voidCount += 1 }
            }
            position = next
        }
    }

    /// Where a Cluster of unknown size ends: at the first child whose ID is a
    /// top-level one (RFC 9559 §6.2), walking at most ``maximumScan`` children.
    private mutating func clusterEnd(_ source: FileSource, _ cluster: EBMLElement) throws -> Int64? {
        var position = cluster.dataOffset
        for _ in 0..<Self.maximumScan {
            guard position < segmentEnd else { return nil }
            guard let child = try? EBMLElement(parsing: source, at: position, limit: segmentEnd) else {
                warnings.append(
                    MediaWarning(.malformed, "unreadable element in a Cluster of unknown size; the rest is not read", offset: position))
                return nil
            }
            if MatroskaID.topLevel.contains(child.id) { return position }
            guard let next = child.end else { return nil }
            position = next
        }
        return nil
    }

    /// Reads every SeekHead found and checks its targets; a target not yet
    /// known is looked at (another SeekHead is followed too). With no
    /// SeekHead, or a wrong target, the Clusters are walked.
    private mutating func followSeekHeads(_ source: FileSource) throws {
        var pending = all(MatroskaID.seekHead)
        var seen = Set<Int64>()
        var misses = false
        while let element = pending.first, seen.count < 8 {
            pending.removeFirst()
            guard seen.insert(element.offset).inserted else { continue }
            let seekHead = try MatroskaSeekHead(parsing: source, element: element, warnings: &warnings)
            seekHeads.append(seekHead)
            for entry in seekHead.entries where entry.id != MatroskaID.cluster && entry.id != MatroskaID.cues {
                let target = segmentData + entry.position
                if known.contains(target) { continue }
                guard target < segmentEnd, let found = try? EBMLElement(parsing: source, at: target, limit: segmentEnd),
                    found.id == entry.id, found.dataSize != nil
                else {
                    warnings.append(
                        MediaWarning(
                            .malformed, "SeekHead entry for 0x\(String(entry.id, radix: 16)) points at byte \(target), where it isn't",
                            offset: entry.positionOffset))
                    misses = true
                    continue
                }
                elements.append(found)
                known.insert(found.offset)
                if found.id == MatroskaID.seekHead { pending.append(found) }
            }
        }
        if seekHeads.isEmpty || misses, let firstCluster {
            try walk(source, from: firstCluster, stoppingAtCluster: false)
            for element in all(MatroskaID.seekHead) where !seen.contains(element.offset) {
                seekHeads.append(try MatroskaSeekHead(parsing: source, element: element, warnings: &warnings))
            }
        }
        elements.sort { $0.offset < $1.offset }
    }
}
