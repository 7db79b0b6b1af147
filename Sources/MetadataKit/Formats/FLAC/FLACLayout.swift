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
            let length = Int(try header.readUInt24())
            let block = FLACBlock(type: first & 0x7F, isLast: first & 0x80 != 0, offset: offset, length: length)
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
}
