#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Segment Info (RFC 9559 §5.1.2): timestamp scale, duration, title.
struct MatroskaInfo: Sendable, Hashable {
    var element: EBMLElement
    /// Nanoseconds per timestamp tick (default 1,000,000).
    var timestampScale: UInt64 = 1_000_000
    /// Duration in ticks of ``timestampScale``.
    var duration: Double?
    var title: String?
    var muxingApp: String?
    var writingApp: String?

    /// Duration in seconds.
    var seconds: Double? {
        guard let duration, duration.isFinite, duration >= 0 else { return nil }
        let value = duration * Double(timestampScale) / 1e9
        return value.isFinite ? value : nil
    }

    /// An Info larger than this is damage.
    static let maximumSize: Int64 = 1 << 20
}

extension MatroskaInfo {
    init(parsing source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws {
        self.init(element: element)
        guard let data = try MatroskaLayout.data(of: element, in: source, maximum: Self.maximumSize, warnings: &warnings) else { return }
        for (child, value) in EBMLChildren.list(data, warnings: &warnings) {
            switch child.id {
            case MatroskaID.timestampScale:
                if let scale = EBMLChildren.unsigned(value), scale > 0 { timestampScale = scale }
            case MatroskaID.duration: duration = EBMLChildren.float(value)
            case MatroskaID.title: title = EBMLChildren.string(value)
            case MatroskaID.muxingApp: muxingApp = EBMLChildren.string(value)
            case MatroskaID.writingApp: writingApp = EBMLChildren.string(value)
            default: break
            }
        }
    }
}

extension MatroskaLayout {
    /// A reader over the data of `element`, or nil (with a warning) when it
    /// is of unknown size, larger than `maximum`, or runs past the Segment.
    static func data(
        of element: EBMLElement, in source: FileSource, maximum: Int64, warnings: inout [MediaWarning]
    ) throws -> ByteReader? {
        guard let size = element.dataSize, size <= maximum else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "element 0x\(String(element.id, radix: 16)) of \(element.dataSize.map(String.init) ?? "unknown") bytes is not read",
                    offset: element.offset))
            return nil
        }
        guard element.dataOffset + size <= source.size else {
            warnings.append(
                MediaWarning(
                    .truncated, "element 0x\(String(element.id, radix: 16)) runs past the end of the file; not read", offset: element.offset
                ))
            return nil
        }
        return try source.reader(at: element.dataOffset, count: Int(size))
    }
}
