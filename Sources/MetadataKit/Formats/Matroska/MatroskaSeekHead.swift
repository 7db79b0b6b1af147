#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A SeekHead (RFC 9559 §5.1.1): where the other top-level elements are,
/// as positions relative to the Segment's data.
struct MatroskaSeekHead: Sendable, Hashable {
    /// One Seek: the target's ID, its position (relative to the Segment
    /// data), and where the SeekPosition value sits in the file (to patch it).
    struct Entry: Sendable, Hashable {
        var id: UInt32
        var position: Int64
        var positionOffset: Int64
        var positionLength: Int
    }

    var element: EBMLElement
    var entries: [Entry] = []
    /// Whether the SeekHead starts with a CRC-32 element.
    var hasCRC = false

    /// A SeekHead larger than this is damage (one Seek is about 15 bytes).
    static let maximumSize: Int64 = 1 << 20
}

extension MatroskaSeekHead {
    init(parsing source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws {
        self.init(element: element)
        guard let size = element.dataSize, size <= Self.maximumSize else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange, "SeekHead of \(element.dataSize.map(String.init) ?? "unknown") bytes skipped", offset: element.offset))
            return
        }
        let reader = try source.reader(at: element.dataOffset, count: Int(size))
        var entries: [Entry] = []
        var crc = false
        for (child, data) in EBMLChildren.list(reader, warnings: &warnings) {
            if child.id == MatroskaID.crc32 { crc = true }
            guard child.id == MatroskaID.seek else { continue }
            var id: UInt32?
            var position: (value: UInt64, offset: Int64, length: Int)?
            for (field, value) in EBMLChildren.list(data, warnings: &warnings) {
                switch field.id {
                case MatroskaID.seekID:
                    let bytes = EBMLChildren.bytes(value)
                    if (1...4).contains(bytes.count) { id = UInt32(EBML.unsigned(bytes) ?? 0) }
                case MatroskaID.seekPosition:
                    if let number = EBMLChildren.unsigned(value) { position = (number, field.dataOffset, Int(field.dataSize ?? 0)) }
                default: break
                }
            }
            if let id, let position, position.value < UInt64(Int64.max / 2) {
                entries.append(
                    Entry(id: id, position: Int64(position.value), positionOffset: position.offset, positionLength: position.length))
            } else {
                warnings.append(MediaWarning(.malformed, "Seek without an ID or a position skipped", offset: child.offset))
            }
        }
        self.entries = entries
        hasCRC = crc
    }
}
