#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Rewrites a Cues element (RFC 9559 §5.1.5) for Clusters that moved by the
/// same amount: every Segment position at or after the insertion point
/// (CueClusterPosition, CueCodecState, and the old CueRefCluster and
/// CueRefCodecState) grows by it; every other byte is kept, each element
/// with the width of its size field, and a CRC-32 at the start of a master
/// is recomputed. A position keeps its byte width when the new value fits,
/// else takes the fewest bytes that hold it.
enum MatroskaCuesShift {
    /// The largest Cues element rewritten (a few MB in hours-long files).
    static let maximumSize: Int64 = 64 << 20

    static let cuePoint: UInt32 = 0xBB
    static let cueTrackPositions: UInt32 = 0xB7
    static let cueReference: UInt32 = 0xDB
    /// Segment positions in Cues: CueClusterPosition, CueCodecState,
    /// CueRefCluster, CueRefCodecState.
    static let positions: Set<UInt32> = [0xF1, 0xEA, 0x97, 0xEB]

    /// The new data of Cues `element`, positions from `from` (relative to the
    /// Segment's data) moved by `delta`; nil when it can't be read whole.
    static func data(_ source: FileSource, element: EBMLElement, from: Int64, delta: Int64) throws -> [UInt8]? {
        var warnings: [MediaWarning] = []
        guard let reader = try MatroskaLayout.data(of: element, in: source, maximum: maximumSize, warnings: &warnings) else {
            return nil
        }
        let data = shifted(reader, from: from, delta: delta, depth: 0, warnings: &warnings)
        return warnings.isEmpty ? data : nil
    }

    private static func shifted(_ reader: ByteReader, from: Int64, delta: Int64, depth: Int, warnings: inout [MediaWarning]) -> [UInt8] {
        var data: [UInt8] = []
        var hasCRC = false
        for (child, value) in EBMLChildren.list(reader, warnings: &warnings) {
            let payload = Array(EBMLChildren.bytes(value))
            switch child.id {
            case MatroskaID.crc32: hasCRC = true
            case let id where [cuePoint, cueTrackPositions, cueReference].contains(id) && depth < 4:
                let inner = shifted(value, from: from, delta: delta, depth: depth + 1, warnings: &warnings)
                data += EBML.element(id, inner, minimumSizeLength: child.sizeLength)
            case let id where positions.contains(id):
                guard let old = EBML.unsigned(payload[...]), old >= UInt64(max(from, 0)), old != 0 || id == 0xF1 else {
                    data += EBML.element(id, payload, minimumSizeLength: child.sizeLength)
                    continue
                }
                let new = UInt64(Int64(old) + delta)
                var bytes = (0..<8).map { UInt8(truncatingIfNeeded: new >> UInt64(8 * (7 - $0))) }
                let minimal = max(1, 8 - (new.leadingZeroBitCount / 8))
                bytes.removeFirst(8 - max(minimal, payload.count))
                data += EBML.element(id, bytes, minimumSizeLength: child.sizeLength)
            default: data += EBML.element(child.id, payload, minimumSizeLength: child.sizeLength)
            }
        }
        return hasCRC ? EBMLCRC32.prefixed(data) : data
    }
}
