#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One ID3v2 tag as read: its frames, the bytes that could not be walked,
/// and the damage the read went around.
///
/// Reads are forgiving, as mutagen's and TagLib's are: a frame with an
/// invalid ID is skipped by its size and kept as stored; a frame that does
/// not decode is kept as stored; the bytes from a frame whose size runs past
/// the end of the tag up to the padding are kept as ``unparsed``. Each is
/// reported as a ``MediaWarning``. A save keeps all of them byte for byte
/// when the tag keeps its version (and is not unsynchronised as a whole), and
/// is refused otherwise (see ``ID3v2TagWriter``).
struct ID3v2Tag: Sendable {
    var header: ID3v2Header
    /// The frames, in file order.
    var frames: [ID3v2FrameRecord] = []
    /// File offsets of the bytes after the last frame that could be walked,
    /// up to the padding (a frame whose size runs past the tag, junk). Nil when
    /// the frames end cleanly.
    var unparsed: Range<Int64>?
    /// True when the tag claims more bytes than the file (or the chunk holding
    /// it) has: the frames that are there were read.
    var isTruncated = false
    /// True when the tag's version is not read (not 2.2–2.4, or a v2.2 tag
    /// with the undefined compression flag): it has no frames, and a save can't
    /// keep it.
    var isUnreadable = false
    /// Local damage read around, in file order.
    var warnings: [MediaWarning] = []

    /// The frames' items.
    var items: [MetadataItem] { frames.items }

    /// False when the tag's frame bytes only mean something under whole-tag
    /// unsynchronisation (they can't be copied into a tag the writer makes).
    var isCopyable: Bool { !header.isUnsynchronised }
}

extension [ID3v2FrameRecord] {
    /// The frames' items, in order, made in one allocation (`compactMap`
    /// grows its result from empty: five allocations for a dozen frames).
    var items: [MetadataItem] {
        var items: [MetadataItem] = []
        items.reserveCapacity(count)
        for frame in self {
            if let item = frame.item { items.append(item) }
        }
        return items
    }
}

/// One frame of a tag as read: where it lies and what it decodes to.
struct ID3v2FrameRecord: Sendable {
    /// The frame ID as stored (three letters in v2.2, and for v2.2 IDs written
    /// into a v2.3/v2.4 tag; for an invalid ID its four bytes as ISO-8859-1).
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
    /// The decoded item. A frame that could not be decoded (``isRaw``) and an
    /// empty frame hold their stored payload as `.data`.
    var item: MetadataItem?
    /// True when the frame could not be decoded (an invalid frame ID, a broken
    /// compressed payload): it can only be written back as stored.
    var isRaw = false
    /// True for a three-letter v2.2 ID in a v2.3/v2.4 tag (stored as the three
    /// letters and a zero byte, as iTunes wrote them; mutagen and TagLib read
    /// them the same way).
    var isLegacyID = false
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
            isCompressed = head[9] & 0x80 != 0 // i
            isEncrypted = head[9] & 0x40 != 0 // j
            hasGroup = head[9] & 0x20 != 0 // k
        case 4:
            hasGroup = head[9] & 0x40 != 0 // h
            isCompressed = head[9] & 0x08 != 0 // k
            isEncrypted = head[9] & 0x04 != 0 // m
            isUnsynchronised = head[9] & 0x02 != 0 || tagUnsynchronised // n
            hasDataLengthIndicator = head[9] & 0x01 != 0 // p
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
