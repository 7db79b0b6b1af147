#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the frames of one ID3v2 tag (versions 2.2, 2.3 and 2.4) into
/// ``MetadataItem``s.
///
/// The tag is not read as a whole: frame headers are walked with positioned
/// reads (``FileSource`` keeps a window, so neighbouring reads are cheap), each
/// frame's payload is read on its own, and the image bytes of `APIC`/`PIC`
/// frames are not read at all — the ``Artwork`` records where they are. Only
/// a v2.2/v2.3 tag with whole-tag unsynchronisation is read into memory and
/// decoded there (its bytes no longer match the file's).
///
/// The read is forgiving (see ``ID3v2Tag``): damage inside the tag is read
/// around and reported as warnings; only a header that can't be read throws.
struct ID3v2TagParser {
    let source: FileSource
    let url: URL
    let header: ID3v2Header
    /// File offset the tag's bytes end at, at most (the end of the chunk
    /// holding it); the end of the file when nil. A tag claiming more is read
    /// as far as it goes and marked truncated.
    var limit: Int64?

    init(source: FileSource, url: URL, header: ID3v2Header, limit: Int64? = nil) {
        self.source = source
        self.url = url
        self.header = header
        self.limit = limit
    }

    /// Where the tag's bytes are read from. Offsets are absolute file offsets;
    /// for a de-unsynchronised tag held in memory they are offsets into the
    /// decoded body counted from its file offset, so errors there point near
    /// (at or before) the real position.
    private enum Bytes {
        case file(FileSource)
        case memory([UInt8], base: Int64)

        func getBytes(at offset: Int64, count: Int) throws -> [UInt8] {
            switch self {
            case .file(let source):
                return try source.getBytes(at: offset, count: count)
            case .memory(let bytes, let base):
                let start = offset - base
                guard start >= 0, count >= 0, start <= Int64(bytes.count), Int64(count) <= Int64(bytes.count) - start else {
                    throw MediaError(.truncated, "read of \(count) bytes runs past the decoded ID3v2 tag", offset: offset)
                }
                return Array(bytes[Int(start)..<Int(start) + count])
            }
        }

        var isFile: Bool { if case .file = self { return true } else { return false } }
    }

    /// The tag's items, in frame order.
    func read() throws -> [MetadataItem] {
        try tag().items
    }

    /// The tag's frames, in order, with where they lie in the file: what the
    /// writer needs to copy unchanged frames byte for byte.
    /// - Throws: `unsupportedFeature` (or `truncated`) when the tag has bytes
    ///   that are no frames, is cut, or is of a version that is not read: a
    ///   writer given only the frames would lose them. Use ``tag()`` and
    ///   ``ID3v2TagWriter/init(source:version:tag:)`` to keep them.
    func frames() throws -> [ID3v2FrameRecord] {
        try framesAndWarnings().frames
    }

    /// ``frames()`` and the warnings about frames read around (text invalid
    /// in its encoding, …) that don't stop a save.
    func framesAndWarnings() throws -> (frames: [ID3v2FrameRecord], warnings: [MediaWarning]) {
        let tag = try tag()
        if tag.isTruncated {
            throw MediaError(
                .truncated, "the ID3v2 tag runs past the space it is given: a save could not keep it", offset: header.offset + 6)
        }
        if tag.isUnreadable || tag.unparsed != nil {
            throw MediaError(
                .unsupportedFeature, "the ID3v2 tag holds bytes that could not be read as frames: a save could not keep them",
                offset: tag.unparsed?.lowerBound ?? header.offset)
        }
        return (tag.frames, tag.warnings)
    }

    /// The whole tag: frames, unparsed bytes and warnings.
    func tag() throws -> ID3v2Tag {
        var tag = ID3v2Tag(header: header)
        guard header.isSupportedVersion, !header.isV22Compressed else {
            tag.isUnreadable = true
            tag.warnings.append(
                MediaWarning(
                    .unsupportedFeature,
                    header.isV22Compressed
                        ? "ID3v2.2 tag with the undefined compression flag is not read"
                        : "ID3v2.\(header.majorVersion) tag is not read (unknown version)", offset: header.offset))
            return tag
        }
        let available = min(limit ?? source.size, source.size)
        var end = header.bodyEnd
        if end > available {
            tag.isTruncated = true
            tag.warnings.append(
                MediaWarning(
                    .truncated,
                    "ID3v2 tag of \(header.totalSize) bytes runs past the end of the "
                        + "\(limit == nil ? "file" : "space it is given") (\(available - header.offset) bytes): the frames there were read",
                    offset: header.offset + 6))
            end = max(header.bodyOffset, available)
        }
        guard end > header.bodyOffset else { return tag }
        var position = header.bodyOffset
        let bytes: Bytes
        if header.isUnsynchronised && header.majorVersion < 4 {
            // ID3v2.3.0 §5 / ID3v2.2.0 §5: the whole body (extended header included) is unsynchronised.
            let raw = try source.getBytes(at: position, count: Int(end - position))
            let decoded = ID3v2Transforms.removeUnsynchronisation(raw)
            bytes = .memory(decoded, base: position)
            end = position + Int64(decoded.count)
        } else {
            bytes = .file(source)
        }
        if header.hasExtendedHeader {
            guard let start = try framesStart(bytes, at: position, end: end, warnings: &tag.warnings) else {
                tag.unparsed = position..<end
                return tag
            }
            position = start
        }
        try readFrames(bytes, from: position, to: end, into: &tag)
        return tag
    }

    /// Whether `item`'s text holds U+FFFD that its frame's bytes don't:
    /// bytes invalid in the frame's encoding (a lone UTF-16 surrogate,
    /// broken UTF-8), which mutagen drops the frame for. Read only then.
    private static func hasUndecodableText(_ item: MetadataItem, _ bytes: Bytes, dataStart: Int64, size: Int) throws -> Bool {
        switch item.value {
        case .string(let text): guard containsReplacementCharacter(text) else { return false }
        case .strings(let texts): guard texts.contains(where: containsReplacementCharacter) else { return false }
        default: return false
        }
        let payload = try bytes.getBytes(at: dataStart, count: size)
        let encoded: [[UInt8]] = [[0xFD, 0xFF], [0xFF, 0xFD], [0xEF, 0xBF, 0xBD]]
        return !encoded.contains { pattern in
            payload.indices.contains { payload[$0...].starts(with: pattern) }
        }
    }

    /// Whether `text` holds U+FFFD (UTF-8 EF BF BD), found with `memchr`:
    /// this runs for every text frame read.
    private static func containsReplacementCharacter(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count >= 3 else { return false }
            var start = 0
            while start <= utf8.count - 3, let found = memchr(base + start, 0xEF, utf8.count - 2 - start) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if utf8[index + 1] == 0xBF && utf8[index + 2] == 0xBD { return true }
                start = index + 1
            }
            return false
        }
    }

    // MARK: Extended header

    /// Where the frames start after the extended header at `offset`; nil when
    /// no frame can be found.
    ///
    /// v2.3 (ID3v2.3.0 §3.2): a 4-byte size that excludes itself (6 or 10).
    /// v2.4 (ID3v2.4.0 structure §3.2): a syncsafe size that includes itself (≥ 6).
    /// Some taggers (EasyTag) set the flag without writing an extended header:
    /// as mutagen does, a frame ID where the size should be means there is none.
    /// A size that is nonsense (beyond the tag, or not landing on a frame) is
    /// skipped with a warning, and the frames are looked for in the first
    /// bytes after it.
    private func framesStart(_ bytes: Bytes, at offset: Int64, end: Int64, warnings: inout [MediaWarning]) throws -> Int64? {
        guard end - offset >= 4 else {
            warnings.append(MediaWarning(.truncated, "extended header does not fit in the ID3v2 tag", offset: offset))
            return nil
        }
        let field = try bytes.getBytes(at: offset, count: 4)
        if Self.isValidID(field[...]) {
            warnings.append(
                MediaWarning(
                    .malformed, "the extended header flag is set but a frame follows the header: read as no extended header",
                    offset: offset))
            return offset
        }
        let length: Int64
        if header.majorVersion == 3 {
            length = (Int64(field[0]) << 24 | Int64(field[1]) << 16 | Int64(field[2]) << 8 | Int64(field[3])) + 4
        } else {
            length =
                field.allSatisfy { $0 & 0x80 == 0 }
                ? field.reduce(Int64(0)) { $0 << 7 | Int64($1) } : -1
        }
        if length >= 6, length <= end - offset, try isFrameBoundary(bytes, at: offset + length, end: end) {
            return offset + length
        }
        // Nonsense: look for the first frame in the next bytes.
        let searchEnd = min(end - Int64(frameHeaderLength), offset + 64)
        var candidate = offset + 4
        while candidate <= searchEnd {
            let head = try bytes.getBytes(at: candidate, count: frameHeaderLength)
            if Self.isValidID(head[0..<idLength]),
                let size = try? frameSize(head, bytes, dataStart: candidate + Int64(frameHeaderLength), end: end),
                size <= end - candidate - Int64(frameHeaderLength)
            {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "extended header size \(length) is nonsense: skipped, frames read from byte \(candidate)",
                        offset: offset))
                return candidate
            }
            candidate += 1
        }
        warnings.append(
            MediaWarning(
                .sizeOutOfRange,
                "extended header size \(length) is nonsense and no frame follows it: the tag's frames are not read (kept as they are)",
                offset: offset))
        return nil
    }

    // MARK: Frames

    /// Frame header length: 6 bytes in v2.2 (ID3v2.2.0 §3.2), 10 after.
    private var frameHeaderLength: Int { header.majorVersion == 2 ? 6 : 10 }
    private var idLength: Int { header.majorVersion == 2 ? 3 : 4 }

    /// Frame IDs are made of `A-Z` and `0-9` (ID3v2.4.0 structure §4).
    static func isValidID(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// Walks the frames in `start..<end`. A zero byte where a frame ID should be
    /// starts the padding. A frame with an invalid ID is skipped by its size
    /// and kept as stored; a frame whose size runs past `end` ends the walk,
    /// and the bytes from it up to the padding are kept as ``ID3v2Tag/unparsed``.
    private func readFrames(_ bytes: Bytes, from start: Int64, to end: Int64, into tag: inout ID3v2Tag) throws {
        var position = start
        let headerLength = Int64(frameHeaderLength)
        var legacyIDs: [String] = []
        var legacyOffset: Int64 = 0
        tag.frames.reserveCapacity(16) // a dozen frames is usual: one allocation, not five
        while end - position >= headerLength {
            let head = try bytes.getBytes(at: position, count: frameHeaderLength)
            guard head[0] != 0 else { break }
            var id: String
            var isValid = true, isLegacy = false
            if Self.isValidID(head[0..<idLength]) {
                id = String(decoding: head[0..<idLength], as: UTF8.self)
            } else if header.majorVersion >= 3, head[3] == 0, Self.isValidID(head[0..<3]) {
                id = String(decoding: head[0..<3], as: UTF8.self)
                isLegacy = true
                if legacyIDs.isEmpty { legacyOffset = position }
                legacyIDs.append(id)
            } else {
                id = ID3Text.latin1Scalars(head[0..<idLength])
                isValid = false
            }
            let dataStart = position + headerLength
            let size = try frameSize(head, bytes, dataStart: dataStart, end: end)
            guard size <= end - dataStart else {
                tag.unparsed = position..<(try contentEnd(bytes, from: position, to: end))
                tag.warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "\(isValid ? "frame '\(id)'" : "bytes that are no frame") (size \(size), \(end - dataStart) bytes left in the tag): "
                            + "the rest of the tag is not read (kept as it is)", offset: position))
                return
            }
            let flags = ID3v2FrameFlags(version: header.majorVersion, head: head, tagUnsynchronised: header.isUnsynchronised)
            let range = position..<dataStart + size
            var record = ID3v2FrameRecord(
                id: id, version: header.majorVersion, range: range,
                // A whole-tag unsynchronised tag (v2.2/v2.3 in memory, or v2.4 with the
                // tag flag) has frame bytes that only mean something under that flag.
                isCopyable: bytes.isFile && !header.isUnsynchronised,
                isEncrypted: flags.isEncrypted, plainPayload: nil, item: nil, isLegacyID: isLegacy)
            let payloadStart = dataStart + Int64(flags.extraLength)
            if bytes.isFile, !flags.isTransformed, !flags.hasGroup, payloadStart <= range.upperBound {
                record.plainPayload = payloadStart..<range.upperBound
            }
            if !isValid {
                record.isRaw = true
                record.item = ID3v2FrameDecoder.binary(id, try bytes.getBytes(at: dataStart, count: Int(size)))
                tag.warnings.append(
                    MediaWarning(
                        .malformed,
                        "frame ID '\(Self.printable(id))' is not valid (A–Z, 0–9): frame of \(size) bytes skipped, kept as it is",
                        offset: position))
            } else {
                do {
                    record.item = try frameItem(id: id, flags: flags, bytes, dataStart: dataStart, size: Int(size))
                    if !flags.isTransformed, let item = record.item,
                        try Self.hasUndecodableText(item, bytes, dataStart: dataStart, size: Int(size))
                    {
                        tag.warnings.append(
                            MediaWarning(
                                .malformed, "frame '\(id)': text that is not valid in its encoding, read with U+FFFD in its place",
                                offset: position))
                    }
                } catch let error as MediaError {
                    record.isRaw = true
                    record.item = ID3v2FrameDecoder.binary(id, try bytes.getBytes(at: dataStart, count: Int(size)))
                    tag.warnings.append(
                        MediaWarning(
                            error.code, "frame '\(id)' not decoded (\(error.reason)): kept as it is",
                            offset: error.offset ?? position))
                }
            }
            tag.frames.append(record)
            position = range.upperBound
        }
        // Too few bytes left for a frame header, and not all zero: no frame, kept.
        // (Bytes after a zero where a frame ID should be are padding, as for
        // mutagen and TagLib, whatever they hold.)
        if position < end, end - position < headerLength {
            let stop = try contentEnd(bytes, from: position, to: end)
            if stop > position, try bytes.getBytes(at: position, count: 1)[0] != 0 {
                tag.unparsed = position..<stop
                tag.warnings.append(
                    MediaWarning(.malformed, "\(stop - position) bytes after the frames are no frame: kept as they are", offset: position))
            }
        }
        if !legacyIDs.isEmpty {
            tag.warnings.append(
                MediaWarning(
                    .malformed,
                    "\(legacyIDs.count) frame\(legacyIDs.count == 1 ? " has a" : "s have") three-letter ID3v2.2 ID\(legacyIDs.count == 1 ? "" : "s") in a v2.\(header.majorVersion) tag "
                        + "(\(legacyIDs.prefix(6).joined(separator: ", "))\(legacyIDs.count > 6 ? ", …" : "")): read as v2.2 frames",
                    offset: legacyOffset))
        }
    }

    /// The end of the bytes in `start..<end` that are not trailing zeros (padding).
    private func contentEnd(_ bytes: Bytes, from start: Int64, to end: Int64) throws -> Int64 {
        var stop = end
        let chunk: Int64 = 4096
        while stop > start {
            let from = max(start, stop - chunk)
            let block = try bytes.getBytes(at: from, count: Int(stop - from))
            if let last = block.lastIndex(where: { $0 != 0 }) { return from + Int64(last) + 1 }
            stop = from
        }
        return start
    }

    /// An ID for messages: control characters shown as `\u{…}`.
    static func printable(_ id: String) -> String {
        id.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }

    /// The size of the frame whose header is `head`.
    ///
    /// v2.2: 24 bits; v2.3: 32 bits; v2.4: syncsafe 28 bits (ID3v2.4.0
    /// structure §4.1). iTunes wrote v2.4 tags with plain 32-bit sizes; as
    /// mutagen and TagLib do, a v2.4 size is read as plain when its bytes
    /// can't be syncsafe, or when the syncsafe reading lands on something that
    /// is not a frame while the plain reading does.
    private func frameSize(_ head: [UInt8], _ bytes: Bytes, dataStart: Int64, end: Int64) throws -> Int64 {
        if header.majorVersion == 2 {
            return Int64(head[3]) << 16 | Int64(head[4]) << 8 | Int64(head[5])
        }
        let plain = Int64(head[4]) << 24 | Int64(head[5]) << 16 | Int64(head[6]) << 8 | Int64(head[7])
        guard header.majorVersion == 4, plain & 0x8080_8080 == 0 else { return plain }
        let syncsafe = Int64(head[4]) << 21 | Int64(head[5]) << 14 | Int64(head[6]) << 7 | Int64(head[7])
        if syncsafe == plain { return plain }
        if try !isFrameBoundary(bytes, at: dataStart + syncsafe, end: end),
            try isFrameBoundary(bytes, at: dataStart + plain, end: end)
        {
            return plain
        }
        return syncsafe
    }

    /// True when `offset` could be where the next frame starts: the end of the
    /// frames, padding, or a valid frame ID.
    private func isFrameBoundary(_ bytes: Bytes, at offset: Int64, end: Int64) throws -> Bool {
        if offset == end { return true }
        guard offset < end else { return false }
        let count = Int(min(Int64(idLength), end - offset))
        let next = try bytes.getBytes(at: offset, count: count)
        if next[0] == 0 { return true }
        return count == idLength && Self.isValidID(next[...])
    }

    /// Decodes the frame `id` whose `size` bytes start at `dataStart`. An
    /// empty frame (no payload after its flag fields) gives empty `.data`.
    private func frameItem(id: String, flags: ID3v2FrameFlags, _ bytes: Bytes, dataStart: Int64, size: Int) throws -> MetadataItem {
        guard size > flags.extraLength else {
            if size < flags.extraLength {
                throw MediaError(.malformed, "frame '\(id)' is shorter than its flag fields", offset: dataStart)
            }
            return ID3v2FrameDecoder.binary(id, [])
        }
        var declaredSize: Int?
        if flags.extraLength > 0 {
            let extra = try bytes.getBytes(at: dataStart, count: flags.extraLength)
            declaredSize = flags.declaredSize(extra)
        }
        let payloadStart = dataStart + Int64(flags.extraLength)
        let payloadSize = size - flags.extraLength
        let isPicture = ID3v2FrameDecoder.isPicture(id)

        if isPicture && bytes.isFile && !flags.isTransformed {
            return try lazyPicture(id: id, at: payloadStart, size: payloadSize)
        }
        var payload = try bytes.getBytes(at: payloadStart, count: payloadSize)
        if flags.isUnsynchronised {
            payload = ID3v2Transforms.removeUnsynchronisation(payload)
        }
        if flags.isEncrypted {
            return ID3v2FrameDecoder.binary(id, payload)
        }
        if flags.isCompressed {
            payload = try ID3v2Transforms.inflate(payload, declaredSize: declaredSize, offset: dataStart)
        }
        if isPicture {
            guard let picture = ID3v2PictureHeader(payload, legacy: id == "PIC") else {
                return ID3v2FrameDecoder.binary(id, payload)
            }
            let artwork = Artwork(
                data: Data(payload[picture.length...]), mimeType: Artwork.normalizedMIMEType(picture.format),
                pictureType: .init(rawValue: picture.pictureType), description: picture.description)
            return ID3v2PictureHeader.item(id: id, artwork: artwork)
        }
        return payload.isEmpty ? ID3v2FrameDecoder.binary(id, []) : ID3v2FrameDecoder.item(id: id, payload: payload)
    }

    /// A picture frame stored as is: reads the fields before the image (growing
    /// the read until they fit) and records where the image lies.
    private func lazyPicture(id: String, at offset: Int64, size: Int) throws -> MetadataItem {
        var count = min(size, 1024)
        while true {
            let prefix = try source.getBytes(at: offset, count: count)
            if let picture = ID3v2PictureHeader(prefix, legacy: id == "PIC") {
                let artwork = Artwork(
                    source: source, url: url, offset: offset + Int64(picture.length),
                    byteCount: size - picture.length, mimeType: picture.format,
                    pictureType: .init(rawValue: picture.pictureType), description: picture.description)
                return ID3v2PictureHeader.item(id: id, artwork: artwork)
            }
            if count == size { return ID3v2FrameDecoder.binary(id, prefix) }
            count = min(size, count * 8)
        }
    }
}
