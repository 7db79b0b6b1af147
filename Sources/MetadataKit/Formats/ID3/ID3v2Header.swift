#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The 10-byte header (or footer) of an ID3v2 tag.
///
/// Layout (ID3v2.4.0 structure §3.1, ID3v2.3.0 §3.1, ID3v2.2.0 §3.1):
///
///     "ID3" (or "3DI" for a v2.4 footer, §3.4)
///     major version, revision        2 bytes
///     flags                          1 byte  %abcd0000
///     size                           4 bytes, syncsafe (28 bits)
///
/// The size counts the bytes after the header: extended header, frames and
/// padding, but neither the header nor the footer.
struct ID3v2Header: Sendable, Equatable {
    /// Major version: 2, 3 or 4 (others are reported but not parsed).
    var majorVersion: UInt8
    var revision: UInt8
    var flags: UInt8
    /// Bytes after the header, excluding a footer.
    var size: Int64
    /// File offset of the header's first byte ("ID3").
    var offset: Int64

    /// Header and footer length.
    static let length = 10
    /// Largest size a syncsafe 28-bit field can hold.
    static let maximumSize: Int64 = (1 << 28) - 1

    /// Flag a: unsynchronisation (v2.2 §3.1, v2.3 §3.1, v2.4 §3.1).
    var isUnsynchronised: Bool { flags & 0x80 != 0 }
    /// Flag b in v2.3/v2.4: an extended header follows. In v2.2 this bit means
    /// "compression", a scheme the spec never defined: such tags are skipped.
    var hasExtendedHeader: Bool { majorVersion >= 3 && flags & 0x40 != 0 }
    /// v2.2 only: the tag is compressed with an undefined scheme (ID3v2.2.0 §3.1).
    var isV22Compressed: Bool { majorVersion == 2 && flags & 0x40 != 0 }
    /// Flag d in v2.4: a footer follows the tag (ID3v2.4.0 structure §3.4).
    var hasFooter: Bool { majorVersion == 4 && flags & 0x10 != 0 }
    /// True for the versions this reader understands (2.2, 2.3, 2.4).
    var isSupportedVersion: Bool { (2...4).contains(majorVersion) }

    /// File offset of the first byte after the header.
    var bodyOffset: Int64 { offset + Int64(Self.length) }
    /// File offset of the first byte after the frames and padding (where a footer starts).
    var bodyEnd: Int64 { bodyOffset + size }
    /// Header, body and footer length.
    var totalSize: Int64 { Int64(Self.length) + size + (hasFooter ? Int64(Self.length) : 0) }
    /// File offset of the first byte after the whole tag.
    var end: Int64 { offset + totalSize }

    /// Parses a header (`magic` "ID3") or a footer (`magic` "3DI") from 10 bytes
    /// read at file offset `offset`. Returns nil when the magic does not match;
    /// throws `malformed` when it does but the rest is impossible (a size byte
    /// with its top bit set, version 0xFF).
    init?(bytes: [UInt8], offset: Int64, magic: String = "ID3") throws {
        guard bytes.count >= Self.length, bytes[0..<3].elementsEqual(magic.utf8) else { return nil }
        self = try bytes.withUnsafeBytes { try ID3v2Header(fields: $0, offset: offset) }
    }

    /// The header in the first 10 bytes of `raw`, whose magic was checked.
    private init(fields raw: UnsafeRawBufferPointer, offset: Int64) throws {
        guard raw[3] != 0xFF, raw[4] != 0xFF else {
            throw MediaError(.malformed, "ID3v2 version bytes are 0xFF", offset: offset + 3)
        }
        var size: Int64 = 0
        for index in 6..<10 {
            guard raw[index] & 0x80 == 0 else {
                throw MediaError(.malformed, "syncsafe integer has a byte with its top bit set", offset: offset + Int64(index))
            }
            size = size << 7 | Int64(raw[index])
        }
        self.majorVersion = raw[3]
        self.revision = raw[4]
        self.flags = raw[5]
        self.size = size
        self.offset = offset
    }

    /// Most ID3v2 tags skipped at the start of a file (some tools write one
    /// after another; FLAC and the APE family may follow them).
    static let maximumLeadingTags = 8

    /// The first byte after the ID3v2 tags at the start of `source` (0 when
    /// there are none), at most ``maximumLeadingTags`` of them. A tag whose
    /// header is cut or whose size runs past the end of the file throws, or
    /// with `stoppingAtDamage` ends the walk (the tags before it counted).
    static func endOfLeadingTags(in source: FileSource, stoppingAtDamage: Bool = false) throws -> Int64 {
        var marker: Int64 = 0
        for _ in 0..<maximumLeadingTags {
            let tag = stoppingAtDamage ? (try? read(from: source, at: marker)) : (try read(from: source, at: marker))
            guard let tag else { break }
            marker = tag.end
        }
        return marker
    }

    /// Reads the header at `offset` of `source`, nil when there is no "ID3" there.
    /// Throws `truncated` when the header or the tag it announces runs past the
    /// end of the file (the size is checked before anything else is read).
    static func read(from source: FileSource, at offset: Int64) throws -> ID3v2Header? {
        guard let header = try parse(from: source, at: offset) else { return nil }
        guard header.totalSize <= source.size - offset else {
            throw MediaError(
                .truncated, "ID3v2 tag of \(header.totalSize) bytes runs past the end of the file (\(source.size) bytes)",
                offset: offset + 6)
        }
        return header
    }

    /// Reads the header at `offset` of `source` without checking that the tag
    /// it announces fits in the file (a forgiving reader reads the frames that
    /// are there). Nil when there is no "ID3" there; throws `truncated` when
    /// the 10 header bytes themselves are cut.
    static func parse(from source: FileSource, at offset: Int64) throws -> ID3v2Header? {
        // Read in the window, no array made: detection and the parsers ask
        // this several times per file.
        let available = offset >= 0 && offset < source.size ? min(Int64(length), source.size - offset) : 0
        guard available >= 3, try source.holds("ID3", at: offset) else { return nil }
        guard available == Int64(length) else {
            throw MediaError(.truncated, "ID3v2 header needs 10 bytes, the file ends at byte \(source.size)", offset: offset)
        }
        return try source.withBytes(at: offset, count: length) { try ID3v2Header(fields: $0, offset: offset) }
    }

    /// The tag whose v2.4 footer ("3DI") ends at `end`, for tags appended to the
    /// end of a file (ID3v2.4.0 structure §5). Nil when there is no footer there
    /// or it does not lead back to a matching header.
    static func appended(in source: FileSource, endingAt end: Int64) throws -> ID3v2Header? {
        guard end >= Int64(2 * length) else { return nil }
        let footerOffset = end - Int64(length)
        guard (try? source.holds("3DI", at: footerOffset)) == true,
            let footer = try? source.withBytes(at: footerOffset, count: length, { try ID3v2Header(fields: $0, offset: footerOffset) }),
            footer.majorVersion == 4
        else { return nil }
        let start = footerOffset - footer.size - Int64(length)
        guard start >= 0, let header = try? ID3v2Header.read(from: source, at: start),
            header.size == footer.size, header.hasFooter
        else { return nil }
        return header
    }
}
