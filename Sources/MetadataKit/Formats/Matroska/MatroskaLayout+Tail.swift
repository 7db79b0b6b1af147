#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MatroskaLayout {
    /// Whether the Segment's elements end exactly where the Segment does, so
    /// an element written after them is read as a new top-level element.
    ///
    /// A recording cut off mid-Cluster (a live stream stopped, a download
    /// broken) has a last element that claims more bytes than the file
    /// holds: an element appended there would become that element's data
    /// (its last packet would change). Walks every top-level element from
    /// the first Cluster (Clusters of known size by their size, those of
    /// unknown size child by child until a top-level ID, RFC 9559 §6.2), at
    /// most ``maximumScan`` elements; only a save that appends asks.
    func elementsEndWithSegment(_ source: FileSource) -> Bool {
        walkAfterFirstCluster(source) { _ in } == segmentEnd
    }

    /// Every Cues element from the first Cluster on, found by walking (a
    /// SeekHead may not point at them). A walk that stops early (the file
    /// ends inside an element: a cut recording) has seen every one.
    func cuesAfterFirstCluster(_ source: FileSource) -> [EBMLElement] {
        var cues: [EBMLElement] = []
        _ = walkAfterFirstCluster(source) { if $0.id == MatroskaID.cues { cues.append($0) } }
        return cues
    }

    /// Walks the top-level elements from the first Cluster (see
    /// ``elementsEndWithSegment(_:)``), showing each to `visit`; returns
    /// where the walk ended, nil when an element can't be read.
    func walkAfterFirstCluster(_ source: FileSource, visit: (EBMLElement) -> Void) -> Int64? {
        var position = firstCluster ?? segmentData
        var count = 0
        while position < segmentEnd {
            count += 1
            guard count <= Self.maximumScan, let element = try? EBMLElement(parsing: source, at: position, limit: segmentEnd) else {
                return nil
            }
            visit(element)
            if let end = element.end {
                guard end <= segmentEnd else { return nil }
                position = end
                continue
            }
            guard element.id == MatroskaID.cluster else { return nil }
            var child = element.dataOffset
            while child < segmentEnd {
                count += 1
                guard count <= Self.maximumScan, let inner = try? EBMLElement(parsing: source, at: child, limit: segmentEnd) else {
                    return nil
                }
                if MatroskaID.topLevel.contains(inner.id) { break }
                guard let end = inner.end, end <= segmentEnd else { return nil }
                child = end
            }
            position = child
        }
        return position
    }
}
