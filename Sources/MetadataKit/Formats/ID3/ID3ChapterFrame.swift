#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The payload of an ID3v2 `CHAP` frame (ID3v2 Chapter Frame Addendum 1.0
/// §3): element ID (ISO-8859-1, null-terminated), start and end time in
/// milliseconds, start and end byte offsets (`0xFFFFFFFF`: not used), then
/// embedded frames (`TIT2`, `TIT3`, `WXXX`, `APIC` are read).
struct ID3ChapterFrame {
    var elementID: String
    var startMilliseconds: UInt32
    var endMilliseconds: UInt32
    var startOffset: UInt32
    var endOffset: UInt32
    var subFrames: [ID3EmbeddedFrame]
    /// Where the embedded frames start in the parsed payload.
    var subFramesStart = 0

    /// Parses a `CHAP` payload of a tag of major `version`; nil when the fixed
    /// fields don't fit. Embedded frames that can't be read are skipped and
    /// reported in `warnings` at `offset` (the payload's file offset) plus
    /// their position.
    init?(parsing payload: [UInt8], version: UInt8, offset: Int64, warnings: inout [MediaWarning]) {
        guard let zero = payload.firstIndex(of: 0), zero > 0, payload.count - zero - 1 >= 16 else { return nil }
        elementID = ID3Text.latin1(payload[..<zero])
        func field(_ index: Int) -> UInt32 {
            let at = zero + 1 + 4 * index
            return UInt32(payload[at]) << 24 | UInt32(payload[at + 1]) << 16 | UInt32(payload[at + 2]) << 8 | UInt32(payload[at + 3])
        }
        startMilliseconds = field(0)
        endMilliseconds = field(1)
        startOffset = field(2)
        endOffset = field(3)
        subFramesStart = zero + 17
        subFrames = ID3EmbeddedFrame.parse(payload, from: zero + 17, version: version, offset: offset, warnings: &warnings)
    }

    init(elementID: String, start: UInt32, end: UInt32, subFrames: [ID3EmbeddedFrame]) {
        self.elementID = elementID
        startMilliseconds = start
        endMilliseconds = end
        startOffset = 0xFFFF_FFFF
        endOffset = 0xFFFF_FFFF
        self.subFrames = subFrames
    }

    /// The payload with the embedded frames written for `version`.
    func payload(version: UInt8) throws -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.write(ID3v2FrameEncoder.latin1(elementID) + [0])
        writer.write(startMilliseconds)
        writer.write(endMilliseconds)
        writer.write(startOffset)
        writer.write(endOffset)
        for frame in subFrames { writer.write(try frame.bytes(version: version)) }
        return writer.bytes
    }
}

/// The payload of an ID3v2 `CTOC` frame (Chapter Frame Addendum 1.0 §4):
/// element ID, flags (bit 1 top-level, bit 0 ordered), entry count (one
/// byte), the child element IDs (null-terminated), then embedded frames
/// (`TIT2` is read).
struct ID3TableOfContentsFrame {
    var elementID: String
    var isTopLevel: Bool
    var isOrdered: Bool
    var children: [String]
    var subFrames: [ID3EmbeddedFrame]
    /// Where the embedded frames start in the parsed payload.
    var subFramesStart = 0

    /// Parses a `CTOC` payload; nil when the fixed fields don't fit. A child
    /// list cut short keeps the IDs that are there (with a warning).
    init?(parsing payload: [UInt8], version: UInt8, offset: Int64, warnings: inout [MediaWarning]) {
        guard let zero = payload.firstIndex(of: 0), zero > 0, payload.count - zero - 1 >= 2 else { return nil }
        elementID = ID3Text.latin1(payload[..<zero])
        let flags = payload[zero + 1]
        isTopLevel = flags & 0x02 != 0
        isOrdered = flags & 0x01 != 0
        let count = Int(payload[zero + 2])
        var index = zero + 3
        children = []
        children.reserveCapacity(count)
        while children.count < count {
            guard index < payload.count, let end = payload[index...].firstIndex(of: 0) else {
                warnings.append(
                    MediaWarning(
                        .truncated, "CTOC '\(elementID)' lists \(count) entries but holds \(children.count): the rest are not read",
                        offset: offset + Int64(index)))
                index = payload.count
                break
            }
            children.append(ID3Text.latin1(payload[index..<end]))
            index = end + 1
        }
        subFramesStart = index
        subFrames = ID3EmbeddedFrame.parse(payload, from: index, version: version, offset: offset, warnings: &warnings)
    }

    init(elementID: String, isTopLevel: Bool, isOrdered: Bool, children: [String], subFrames: [ID3EmbeddedFrame]) {
        self.elementID = elementID
        self.isTopLevel = isTopLevel
        self.isOrdered = isOrdered
        self.children = children
        self.subFrames = subFrames
    }

    func payload(version: UInt8) throws -> [UInt8] {
        guard children.count <= 255 else {
            throw MediaError(.invalidValue, "an ID3 CTOC frame lists at most 255 chapters; '\(elementID)' would list \(children.count)")
        }
        var bytes = ID3v2FrameEncoder.latin1(elementID) + [0]
        bytes.append((isTopLevel ? 0x02 : 0) | (isOrdered ? 0x01 : 0))
        bytes.append(UInt8(children.count))
        for child in children { bytes += ID3v2FrameEncoder.latin1(child) + [0] }
        for frame in subFrames { bytes += try frame.bytes(version: version) }
        return bytes
    }
}

/// A frame embedded in a `CHAP` or `CTOC` frame: a frame of the tag's version
/// (Chapter Frame Addendum §3), its payload as stored.
struct ID3EmbeddedFrame: Equatable {
    var id: String
    var flags: UInt16
    var payload: [UInt8]

    /// The frame under a header for `version` (v2.4 syncsafe size, v2.3 plain).
    func bytes(version: UInt8) throws -> [UInt8] {
        var frame = try ID3v2FrameEncoder.frame(id: id, payload: payload, version: version)
        frame[8] = UInt8(flags >> 8)
        frame[9] = UInt8(flags & 0xFF)
        return frame
    }

    /// How the frame sizes of a run of embedded frames are read.
    enum SizeRule { case syncsafe, plain }

    /// The embedded frames of `payload` from `start`. Sizes are read by the
    /// rule of the tag's version; when that rule doesn't tile the bytes and
    /// the other one does (a writer that used the wrong one, or frames built
    /// for the other version), the other is used. What can't be walked is
    /// skipped with a warning. Only v2.3/v2.4 tags have chapter frames.
    static func parse(_ payload: [UInt8], from start: Int, version: UInt8, offset: Int64, warnings: inout [MediaWarning])
        -> [ID3EmbeddedFrame]
    {
        guard start < payload.count else { return [] }
        let preferred: SizeRule = version == 4 ? .syncsafe : .plain
        let first = walk(payload, from: start, rule: preferred)
        if first.stop == nil { return first.frames }
        let second = walk(payload, from: start, rule: preferred == .syncsafe ? .plain : .syncsafe)
        if second.stop == nil { return second.frames }
        if let stop = first.stop {
            warnings.append(
                MediaWarning(
                    .malformed, "\(payload.count - stop) bytes of embedded frames could not be read: skipped",
                    offset: offset + Int64(stop)))
        }
        return first.frames
    }

    /// The frames walked by `rule`, and where the walk stopped on bytes that
    /// are no frame (nil when it reached the end or padding).
    static func walk(_ payload: [UInt8], from start: Int, rule: SizeRule) -> (frames: [ID3EmbeddedFrame], stop: Int?) {
        var frames: [ID3EmbeddedFrame] = []
        var index = start
        while payload.count - index >= 10 {
            if payload[index] == 0 { return (frames, nil) }
            let head = payload[index..<index + 10]
            guard ID3v2TagParser.isValidID(head.prefix(4)) else { return (frames, index) }
            let b = head.dropFirst(4).prefix(4).map(Int.init)
            let size: Int
            switch rule {
            case .plain: size = b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
            case .syncsafe:
                guard b.allSatisfy({ $0 & 0x80 == 0 }) else { return (frames, index) }
                size = b[0] << 21 | b[1] << 14 | b[2] << 7 | b[3]
            }
            guard size <= payload.count - index - 10 else { return (frames, index) }
            frames.append(
                ID3EmbeddedFrame(
                    id: String(decoding: head.prefix(4), as: UTF8.self),
                    flags: UInt16(payload[index + 8]) << 8 | UInt16(payload[index + 9]),
                    payload: Array(payload[(index + 10)..<(index + 10 + size)])))
            index += 10 + size
        }
        if index < payload.count, payload[index...].contains(where: { $0 != 0 }) { return (frames, index) }
        return (frames, nil)
    }

    /// A `CHAP`/`CTOC` payload (`chapter` tells which) with its embedded
    /// frames' headers written for `version`: the bytes as they are when they
    /// already read by that version's size rule (or can't be read at all).
    static func adapt(_ payload: [UInt8], chapter: Bool, to version: UInt8) -> [UInt8] {
        let rule: SizeRule = version == 4 ? .syncsafe : .plain
        var problems: [MediaWarning] = []
        if chapter {
            guard let frame = ID3ChapterFrame(parsing: payload, version: version, offset: 0, warnings: &problems), problems.isEmpty,
                walk(payload, from: frame.subFramesStart, rule: rule).stop != nil
            else { return payload }
            return (try? frame.payload(version: version)) ?? payload
        }
        guard let toc = ID3TableOfContentsFrame(parsing: payload, version: version, offset: 0, warnings: &problems),
            problems.isEmpty, walk(payload, from: toc.subFramesStart, rule: rule).stop != nil
        else { return payload }
        return (try? toc.payload(version: version)) ?? payload
    }
}
