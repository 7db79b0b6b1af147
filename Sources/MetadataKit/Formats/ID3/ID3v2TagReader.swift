import Foundation

/// Reads the frames of one ID3v2 tag (versions 2.2, 2.3 and 2.4) into
/// ``MetadataItem``s.
///
/// The tag is not read as a whole: frame headers are walked with positioned
/// reads (``FileSource`` keeps a window, so neighbouring reads are cheap), each
/// frame's payload is read on its own, and the image bytes of `APIC`/`PIC`
/// frames are not read at all — the ``Artwork`` records where they are. Only
/// a v2.2/v2.3 tag with whole-tag unsynchronisation is read into memory and
/// decoded there (its bytes no longer match the file's).
struct ID3v2TagReader {
    let source: FileSource
    let url: URL
    let header: ID3v2Header

    /// Where the tag's bytes are read from. Offsets are absolute file offsets;
    /// for a de-unsynchronised tag held in memory they are offsets into the
    /// decoded body counted from its file offset, so errors there point near
    /// (at or before) the real position.
    private enum Bytes {
        case file(FileSource)
        case memory([UInt8], base: Int64)

        func read(at offset: Int64, count: Int) throws -> [UInt8] {
            switch self {
            case .file(let source):
                return try source.read(at: offset, count: count)
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

    /// The tag's items, in frame order. Tags of unknown versions and v2.2 tags
    /// with the undefined compression flag give no items.
    /// - Throws: ``MediaError`` for a frame or extended header that runs past
    ///   the end of the tag, and for broken compressed frames.
    func read() throws -> [MetadataItem] {
        try frames().compactMap(\.item)
    }

    /// The tag's frames, in order, with where they lie in the file: what the
    /// writer needs to copy unchanged frames byte for byte. Frames that decode
    /// to no item (empty frames) are listed with a nil ``ID3v2FrameRecord/item``.
    func frames() throws -> [ID3v2FrameRecord] {
        guard header.isSupportedVersion, !header.isV22Compressed, header.size > 0 else { return [] }
        var position = header.bodyOffset
        var end = header.bodyEnd
        let bytes: Bytes
        if header.isUnsynchronised && header.majorVersion < 4 {
            // ID3v2.3.0 §5 / ID3v2.2.0 §5: the whole body (extended header included) is unsynchronised.
            let raw = try source.read(at: position, count: Int(header.size))
            let decoded = ID3v2Transforms.removeUnsynchronisation(raw)
            bytes = .memory(decoded, base: position)
            end = position + Int64(decoded.count)
        } else {
            bytes = .file(source)
        }
        if header.hasExtendedHeader {
            position += try extendedHeaderLength(bytes, at: position, end: end)
        }
        return try readFrames(bytes, from: position, to: end)
    }

    /// Length of the extended header at `offset`, to be skipped.
    ///
    /// v2.3 (ID3v2.3.0 §3.2): a 4-byte size that excludes itself (6 or 10).
    /// v2.4 (ID3v2.4.0 structure §3.2): a syncsafe size that includes itself (≥ 6).
    private func extendedHeaderLength(_ bytes: Bytes, at offset: Int64, end: Int64) throws -> Int64 {
        guard end - offset >= 4 else {
            throw MediaError(.truncated, "extended header does not fit in the ID3v2 tag", offset: offset)
        }
        var reader = ByteReader(try bytes.read(at: offset, count: 4), fileOffset: offset)
        let length: Int64
        if header.majorVersion == 3 {
            length = Int64(try reader.readUInt32()) + 4
        } else {
            length = Int64(try reader.readSyncSafeUInt32())
            guard length >= 6 else {
                throw MediaError(.malformed, "v2.4 extended header size \(length) is below 6", offset: offset)
            }
        }
        guard length <= end - offset else {
            throw MediaError(.sizeOutOfRange, "extended header of \(length) bytes runs past the end of the ID3v2 tag", offset: offset)
        }
        return length
    }

    // MARK: Frames

    /// Frame header length: 6 bytes in v2.2 (ID3v2.2.0 §3.2), 10 after.
    private var frameHeaderLength: Int { header.majorVersion == 2 ? 6 : 10 }
    private var idLength: Int { header.majorVersion == 2 ? 3 : 4 }

    /// Frame IDs are made of `A-Z` and `0-9` (ID3v2.4.0 structure §4).
    private static func isValidID(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// Walks the frames in `start..<end`. Padding (a zero byte where a frame ID
    /// should be) or bytes that can't be a frame ID end the list.
    private func readFrames(_ bytes: Bytes, from start: Int64, to end: Int64) throws -> [ID3v2FrameRecord] {
        var frames: [ID3v2FrameRecord] = []
        var position = start
        let headerLength = Int64(frameHeaderLength)
        while end - position >= headerLength {
            let head = try bytes.read(at: position, count: frameHeaderLength)
            guard head[0] != 0, Self.isValidID(head[0..<idLength]) else { break }
            let id = String(decoding: head[0..<idLength], as: UTF8.self)
            let dataStart = position + headerLength
            let size = try frameSize(head, bytes, dataStart: dataStart, end: end)
            guard size <= end - dataStart else {
                throw MediaError(.sizeOutOfRange, "frame '\(id)' of \(size) bytes runs past the end of the ID3v2 tag (\(end - dataStart) bytes left)",
                                 offset: position)
            }
            let item = try frameItem(id: id, head: head, bytes, dataStart: dataStart, size: Int(size))
            let flags = ID3v2FrameFlags(version: header.majorVersion, head: head, tagUnsynchronised: header.isUnsynchronised)
            let payloadStart = dataStart + Int64(flags.extraLength)
            frames.append(ID3v2FrameRecord(
                id: id, version: header.majorVersion, range: position..<dataStart + size,
                // A whole-tag unsynchronised tag (v2.2/v2.3 in memory, or v2.4 with the
                // tag flag) has frame bytes that only mean something under that flag.
                isCopyable: bytes.isFile && !header.isUnsynchronised,
                isEncrypted: flags.isEncrypted,
                plainPayload: bytes.isFile && !flags.isTransformed && !flags.hasGroup && payloadStart <= dataStart + size
                    ? payloadStart..<dataStart + size : nil,
                item: item))
            position = dataStart + size
        }
        return frames
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
           try isFrameBoundary(bytes, at: dataStart + plain, end: end) {
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
        let next = try bytes.read(at: offset, count: count)
        if next[0] == 0 { return true }
        return count == idLength && Self.isValidID(next[...])
    }

    /// Decodes the frame `id` whose `size` bytes start at `dataStart`; nil for
    /// an empty frame.
    private func frameItem(id: String, head: [UInt8], _ bytes: Bytes, dataStart: Int64, size: Int) throws -> MetadataItem? {
        let flags = ID3v2FrameFlags(version: header.majorVersion, head: head,
                                    tagUnsynchronised: header.isUnsynchronised)
        guard size > flags.extraLength else {
            if size < flags.extraLength {
                throw MediaError(.malformed, "frame '\(id)' is shorter than its flag fields", offset: dataStart)
            }
            return nil
        }
        var declaredSize: Int?
        if flags.extraLength > 0 {
            let extra = try bytes.read(at: dataStart, count: flags.extraLength)
            declaredSize = flags.declaredSize(extra)
        }
        let payloadStart = dataStart + Int64(flags.extraLength)
        let payloadSize = size - flags.extraLength
        let isPicture = ID3v2FrameDecoder.isPicture(id)

        if isPicture && bytes.isFile && !flags.isTransformed {
            return try lazyPicture(id: id, at: payloadStart, size: payloadSize)
        }
        var payload = try bytes.read(at: payloadStart, count: payloadSize)
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
            let artwork = Artwork(data: Data(payload[picture.length...]), mimeType: Artwork.normalizedMIMEType(picture.format),
                                  pictureType: .init(rawValue: picture.pictureType), description: picture.description)
            return ID3v2PictureHeader.item(id: id, artwork: artwork)
        }
        return payload.isEmpty ? nil : ID3v2FrameDecoder.item(id: id, payload: payload)
    }

    /// A picture frame stored as is: reads the fields before the image (growing
    /// the read until they fit) and records where the image lies.
    private func lazyPicture(id: String, at offset: Int64, size: Int) throws -> MetadataItem {
        var count = min(size, 1024)
        while true {
            let prefix = try source.read(at: offset, count: count)
            if let picture = ID3v2PictureHeader(prefix, legacy: id == "PIC") {
                let artwork = Artwork(source: source, url: url, offset: offset + Int64(picture.length),
                                      byteCount: size - picture.length, mimeType: picture.format,
                                      pictureType: .init(rawValue: picture.pictureType), description: picture.description)
                return ID3v2PictureHeader.item(id: id, artwork: artwork)
            }
            if count == size { return ID3v2FrameDecoder.binary(id, prefix) }
            count = min(size, count * 8)
        }
    }
}

/// One frame of a tag as read: where it lies and what it decodes to.
struct ID3v2FrameRecord: Sendable {
    /// The frame ID as stored (three letters in v2.2).
    var id: String
    /// The major version of the tag holding the frame.
    var version: UInt8
    /// File offsets of the frame: header, flag fields and payload.
    var range: Range<Int64>
    /// True when the bytes in `range` are the frame as it would be written
    /// into another tag of the same version (the tag is not unsynchronised as
    /// a whole).
    var isCopyable: Bool
    /// True for an encrypted frame: its item holds the encrypted bytes.
    var isEncrypted: Bool
    /// File offsets of the payload when it is stored as is (no compression,
    /// encryption, unsynchronisation or group byte); for copying the payload
    /// under a new frame header.
    var plainPayload: Range<Int64>?
    /// The decoded item; nil for an empty frame.
    var item: MetadataItem?
}

/// The per-frame flags of v2.3 (ID3v2.3.0 §3.3.1) and v2.4 (ID3v2.4.0
/// structure §4.1.2), and the fields they add after the frame header.
struct ID3v2FrameFlags {
    var isCompressed = false
    var isEncrypted = false
    var isUnsynchronised = false
    var hasGroup = false
    var hasDataLengthIndicator = false
    let version: UInt8

    /// Reads the flags from a frame header (no flags in v2.2). In v2.4 the
    /// tag-level unsynchronisation flag means every frame is unsynchronised.
    init(version: UInt8, head: [UInt8], tagUnsynchronised: Bool) {
        self.version = version
        switch version {
        case 3:
            isCompressed = head[9] & 0x80 != 0      // i
            isEncrypted = head[9] & 0x40 != 0       // j
            hasGroup = head[9] & 0x20 != 0          // k
        case 4:
            hasGroup = head[9] & 0x40 != 0          // h
            isCompressed = head[9] & 0x08 != 0      // k
            isEncrypted = head[9] & 0x04 != 0       // m
            isUnsynchronised = head[9] & 0x02 != 0 || tagUnsynchronised   // n
            hasDataLengthIndicator = head[9] & 0x01 != 0                   // p
        default:
            break
        }
    }

    /// Bytes the flags add between the frame header and the payload, in the
    /// order of the flags: v2.3 decompressed size (4), encryption method (1),
    /// group (1); v2.4 group (1), encryption method (1), data length (4).
    var extraLength: Int {
        (isCompressed && version == 3 ? 4 : 0) + (isEncrypted ? 1 : 0) + (hasGroup ? 1 : 0)
            + (hasDataLengthIndicator ? 4 : 0)
    }

    /// True when the payload bytes in the file are not the frame's content.
    var isTransformed: Bool { isCompressed || isEncrypted || isUnsynchronised }

    /// The decompressed size the extra fields declare: v2.3's 32-bit size,
    /// v2.4's syncsafe data length indicator (nil when its bytes aren't syncsafe).
    func declaredSize(_ extra: [UInt8]) -> Int? {
        if version == 3 && isCompressed && extra.count >= 4 {
            return Int(extra[0]) << 24 | Int(extra[1]) << 16 | Int(extra[2]) << 8 | Int(extra[3])
        }
        if version == 4 && hasDataLengthIndicator && extra.count >= 4 {
            let field = extra[(extra.count - 4)...]
            guard field.allSatisfy({ $0 & 0x80 == 0 }) else { return nil }
            return field.reduce(0) { $0 << 7 | Int($1) }
        }
        return nil
    }
}
