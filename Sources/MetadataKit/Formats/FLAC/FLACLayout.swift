#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One metadata block of a FLAC stream (RFC 9639 §8.1): where it is and what it is.
struct FLACBlock: Sendable, Hashable {
    /// Block types (RFC 9639 §8.1, table 5).
    enum Kind: UInt8, Sendable {
        case streamInfo = 0
        case padding = 1
        case application = 2
        case seekTable = 3
        case vorbisComment = 4
        case cueSheet = 5
        case picture = 6
    }

    /// The 7-bit type; 127 is forbidden, 7–126 are reserved (kept as they are).
    var type: UInt8
    var isLast: Bool
    /// File offset of the 4-byte block header.
    var offset: Int64
    /// Length of the body (after the header).
    var length: Int

    var kind: Kind? { Kind(rawValue: type) }
    var bodyOffset: Int64 { offset + 4 }
    var end: Int64 { bodyOffset + Int64(length) }

    /// The 4-byte header: last-block flag, type, 24-bit length.
    static func header(type: UInt8, isLast: Bool, length: Int) -> [UInt8] {
        [(isLast ? 0x80 : 0) | type & 0x7F, UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }
    /// Largest body a block can have (24-bit length).
    static let maximumLength = (1 << 24) - 1
}

/// Where a FLAC file's parts are: an optional leading ID3v2 tag, the `fLaC`
/// marker, the metadata blocks and the audio frames after them.
struct FLACLayout: Sendable {
    /// Offset of `fLaC` (after any leading ID3v2 tags).
    var markerOffset: Int64
    var blocks: [FLACBlock]
    /// Where the audio frames start (the end of the last metadata block).
    var audioStart: Int64
    /// Damage read around (a second STREAMINFO block).
    var warnings: [MediaWarning] = []
}

extension FLACLayout {
    /// Reads the layout. Every block length is checked against the file's
    /// size; STREAMINFO must come first and be 34 bytes (RFC 9639 §8.2);
    /// type 127 is refused (§8.1). A second STREAMINFO (§8.2 allows one) is
    /// ignored with a warning and kept as a block of its own.
    init(parsing source: FileSource) throws {
        // Leading ID3v2 tags (non-standard, but written by some tools) are skipped.
        let marker = try ID3v2Header.endOfLeadingTags(in: source)
        guard try source.getAvailableBytes(at: marker, count: 4) == Array("fLaC".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'fLaC' stream marker", offset: marker)
        }
        var blocks: [FLACBlock] = []
        var warnings: [MediaWarning] = []
        var offset = marker + 4
        while true {
            var header = try source.reader(at: offset, count: 4)
            let first = try header.readUInt8()
            var length = Int(try header.readUInt24())
            let type = first & 0x7F
            // A VORBIS_COMMENT shorter than its fields, or a PICTURE longer
            // than what remains: read by its structure, as libFLAC and
            // mutagen do (mutagen "distrusts" these two sizes).
            if type == 4 || type == 6,
                try !Self.isFollowedPlausibly(source, end: offset + 4 + Int64(length), isLast: first & 0x80 != 0),
                let real = try Self.structuralLength(source, type: type, at: offset + 4),
                real > length || offset + 4 + Int64(length) > source.size
            {
                let name = type == 4 ? "VORBIS_COMMENT" : "PICTURE"
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "the \(name) block's length field says \(length) bytes, but its fields take \(real); read as \(real), "
                            + "and a save writes the right length", offset: offset + 1))
                length = real
            }
            let block = FLACBlock(type: type, isLast: first & 0x80 != 0, offset: offset, length: length)
            guard block.type != 127 else {
                throw MediaError(.malformed, "metadata block type 127 is forbidden", offset: offset)
            }
            guard block.end <= source.size else {
                throw MediaError(.sizeOutOfRange, "metadata block of \(length) bytes runs past the end of the file", offset: offset)
            }
            if blocks.isEmpty {
                guard block.kind == .streamInfo, length == 34 else {
                    throw MediaError(.malformed, "the first metadata block must be a 34-byte STREAMINFO", offset: offset)
                }
            } else if block.kind == .streamInfo {
                warnings.append(MediaWarning(.malformed, "a second STREAMINFO block: ignored, kept as it is", offset: offset))
            }
            blocks.append(block)
            offset = block.end
            if block.isLast { break }
        }
        self.init(markerOffset: marker, blocks: blocks, audioStart: offset, warnings: warnings)
    }

    /// Whether what follows a block ending at `end` looks right: another
    /// block header of a known type that fits the file, or (after the last
    /// block) a frame sync code (RFC 9639 §9.1). Only a block that fails
    /// this is measured by its fields.
    static func isFollowedPlausibly(_ source: FileSource, end: Int64, isLast: Bool) throws -> Bool {
        guard end + 4 <= source.size else { return end == source.size }
        let next = try source.getBytes(at: end, count: 4)
        if isLast { return next[0] == 0xFF && next[1] & 0xFE == 0xF8 }
        let length = Int64(next[1]) << 16 | Int64(next[2]) << 8 | Int64(next[3])
        return next[0] & 0x7F <= 6 && end + 4 + length <= source.size
    }

    /// The bytes a VORBIS_COMMENT (type 4: vendor, then each comment, with
    /// 32-bit little-endian lengths) or PICTURE block (type 6, RFC 9639
    /// §8.8: big-endian lengths of its media type, description and data)
    /// whose body starts at `start` takes by its own fields; nil when they
    /// run past the file or exceed a block's largest body.
    static func structuralLength(_ source: FileSource, type: UInt8, at start: Int64) throws -> Int? {
        var position = start
        func field(littleEndian: Bool) throws -> Int64? {
            guard position + 4 <= source.size else { return nil }
            let bytes = try source.getBytes(at: position, count: 4)
            let value = (littleEndian ? bytes.reversed() : bytes).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            position += 4
            return value
        }
        func skip(_ count: Int64) -> Bool {
            position += count
            return position <= source.size && position - start <= Int64(FLACBlock.maximumLength)
        }
        if type == 4 {
            guard let vendor = try field(littleEndian: true), skip(vendor), let count = try field(littleEndian: true) else { return nil }
            for _ in 0..<count {
                guard let length = try field(littleEndian: true), skip(length) else { return nil }
            }
        } else {
            guard skip(4), let mime = try field(littleEndian: false), skip(mime), let description = try field(littleEndian: false),
                skip(description), skip(16), let data = try field(littleEndian: false), skip(data)
            else { return nil }
        }
        return Int(position - start)
    }
}
