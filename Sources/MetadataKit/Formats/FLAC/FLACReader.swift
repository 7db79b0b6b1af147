import Foundation

/// One metadata block of a FLAC stream (RFC 9639 §8.1): where it is and what it is.
struct FLACBlock: Sendable, Hashable {
    /// Block types (RFC 9639 §8.1, table 5).
    enum Kind: UInt8, Sendable {
        case streamInfo = 0, padding = 1, application = 2, seekTable = 3, vorbisComment = 4, cueSheet = 5, picture = 6
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

    /// Leading ID3v2 tags skipped before `fLaC` (non-standard, but written by some tools).
    static let maximumLeadingTags = 8

    /// Whether `fLaC` follows the leading ID3v2 tag(s) (for the format detector).
    static func hasMarkerAfterID3(_ source: FileSource) -> Bool {
        var marker: Int64 = 0
        for _ in 0..<maximumLeadingTags {
            guard let tag = try? ID3v2Header.read(from: source, at: marker) else { break }
            marker = tag.end
        }
        return marker > 0 && (try? source.readAvailable(at: marker, count: 4)) == Array("fLaC".utf8)
    }

    /// Reads the layout. Every block length is checked against the file's
    /// size; STREAMINFO must come first and be 34 bytes (RFC 9639 §8.2);
    /// type 127 is refused (§8.1). A second STREAMINFO (§8.2 allows one) is
    /// ignored with a warning and kept as a block of its own.
    static func read(_ source: FileSource) throws -> FLACLayout {
        var marker: Int64 = 0
        for _ in 0..<maximumLeadingTags {
            guard let tag = try ID3v2Header.read(from: source, at: marker) else { break }
            marker = tag.end
        }
        guard try source.readAvailable(at: marker, count: 4) == Array("fLaC".utf8) else {
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
        return FLACLayout(markerOffset: marker, blocks: blocks, audioStart: offset, warnings: warnings)
    }
}

/// STREAMINFO (RFC 9639 §8.2).
struct FLACStreamInfo: Sendable, Hashable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// 0 when unknown.
    var totalSamples: UInt64

    /// Parses the 34-byte body.
    static func parse(_ reader: inout ByteReader) throws -> FLACStreamInfo {
        try reader.skip(10)  // block sizes (2 × u16), frame sizes (2 × u24)
        let packed = try reader.readUInt64()
        // sample rate 20 bits, channels − 1 3 bits, bits per sample − 1 5 bits, total samples 36 bits
        let rate = Int(packed >> 44)
        let channels = Int(packed >> 41 & 0x7) + 1
        let bits = Int(packed >> 36 & 0x1F) + 1
        try reader.skip(16)  // MD5 of the decoded audio
        return FLACStreamInfo(sampleRate: rate, channels: channels, bitsPerSample: bits, totalSamples: packed & 0xF_FFFF_FFFF)
    }

    /// Properties; the bit rate comes from `audioBytes` over the duration.
    func properties(audioBytes: Int64?) -> MediaProperties {
        var properties = MediaProperties()
        properties.codec = "FLAC"
        properties.sampleRate = sampleRate > 0 ? sampleRate : nil
        properties.channels = channels
        properties.bitsPerSample = bitsPerSample
        if sampleRate > 0, totalSamples > 0 {
            let duration = Double(totalSamples) / Double(sampleRate)
            properties.duration = duration
            if let audioBytes, audioBytes > 0 { properties.bitrate = Int((Double(audioBytes) * 8 / duration).rounded()) }
        }
        return properties
    }
}

/// The tags of a native FLAC file: the VORBIS_COMMENT blocks as one comment
/// and the PICTURE blocks, read forgivingly (see ``read(_:layout:)``).
struct FLACTags {
    /// The fields of every VORBIS_COMMENT block, in block order, with the
    /// first block's vendor string; nil when there is none.
    var comment: VorbisComment?
    var commentBlocks: [FLACBlock] = []
    /// The PICTURE blocks that could be read, and whether their length
    /// disagreed with their content.
    var pictures: [(block: FLACBlock, picture: FLACPicture, isDamaged: Bool)] = []
    /// The layout's warnings and the damage read around in the blocks.
    var warnings: [MediaWarning] = []

    /// Reads the comment and picture blocks of `layout`. A comment that claims
    /// more fields or longer ones than its block holds, or leaves bytes of its
    /// block unread, is read as far as it goes (``VorbisComment/isDamaged``);
    /// a picture whose image runs past its block is read as far as the block
    /// goes; a picture whose fields don't fit is skipped. Each is a warning.
    static func read(_ source: FileSource, layout: FLACLayout) throws -> FLACTags {
        var tags = FLACTags(warnings: layout.warnings)
        for block in layout.blocks {
            switch block.kind {
            case .vorbisComment?:
                var reader = try source.reader(at: block.bodyOffset, count: block.length)
                var comment = try VorbisComment.parse(&reader, framingBit: false, forgiving: true)
                if reader.remaining > 0 {
                    comment.warnings.append(MediaWarning(.malformed, "\(reader.remaining) bytes after the Vorbis comment in its "
                                                         + "\(block.length)-byte block", offset: reader.offset))
                }
                tags.warnings += comment.warnings
                tags.commentBlocks.append(block)
                if var merged = tags.comment {
                    merged.fields += comment.fields
                    merged.storedFields += comment.storedFields
                    merged.warnings += comment.warnings
                    tags.comment = merged
                } else {
                    tags.comment = comment
                }
            case .picture?:
                var warnings: [MediaWarning] = []
                if let picture = try FLACPicture.read(from: source, at: block.bodyOffset, length: block.length, warnings: &warnings) {
                    tags.pictures.append((block, picture, !warnings.isEmpty))
                }
                tags.warnings += warnings
            default:
                break
            }
        }
        return tags
    }
}

/// Reads native FLAC files (RFC 9639 §6–§8): STREAMINFO properties, the
/// VORBIS_COMMENT fields and the PICTURE blocks, as ``MetadataKeySpace/vorbis``
/// items (see ``VorbisComment``). A leading ID3v2 tag is skipped, not read.
///
/// Picture items (key `METADATA_BLOCK_PICTURE`) come after the comment's
/// fields, in block order; their image bytes stay in the file until asked
/// for. Several VORBIS_COMMENT blocks (forbidden by §8.6) are all read.
///
/// Forgiving: damage inside a block is read around and reported in
/// ``ParsedFile/warnings`` (see ``FLACTags``). The file stays editable: a
/// save keeps damaged blocks byte for byte while their items are unchanged
/// and refuses, before writing, a change that would rebuild one (see
/// ``FLACWriter``).
enum FLACReader {
    static func read(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let layout = try FLACLayout.read(source)
        var streamReader = try source.reader(at: layout.blocks[0].bodyOffset, count: 34)
        let info = try FLACStreamInfo.parse(&streamReader)
        let tags = try FLACTags.read(source, layout: layout)
        var items = tags.comment?.items() ?? []
        for (_, picture, _) in tags.pictures {
            let artwork = picture.artwork(source: source, url: url)
            items.append(MetadataItem(keySpace: .vorbis, key: VorbisComment.pictureKey, value: .picture(artwork),
                                      dataType: FLACPicture.dataType(of: artwork)))
        }
        let properties = info.properties(audioBytes: source.size - layout.audioStart)
        return ParsedFile(fileType: .flac, items: items, properties: properties, isEditable: true, warnings: tags.warnings)
    }

    /// Items of the same text key (from several comment blocks) joined into one.
    static func merged(_ items: [MetadataItem]) -> [MetadataItem] {
        var result: [MetadataItem] = []
        var positions: [String: Int] = [:]
        for item in items {
            if case .picture = item.value { result.append(item); continue }
            if let position = positions[item.key] {
                result[position].value = .strings(result[position].value.stringValues + item.value.stringValues)
            } else {
                positions[item.key] = result.count
                result.append(item)
            }
        }
        return result
    }
}
