#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tags of a native FLAC file: the VORBIS_COMMENT blocks as one comment
/// and the PICTURE blocks, read forgivingly (see ``init(parsing:layout:)``).
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

}

extension FLACTags {
    /// Reads the comment and picture blocks of `layout`. A comment that claims
    /// more fields or longer ones than its block holds, or leaves bytes of its
    /// block unread, is read as far as it goes (``VorbisComment/isDamaged``);
    /// a picture whose image runs past its block is read as far as the block
    /// goes; a picture whose fields don't fit is skipped. Each is a warning.
    init(parsing source: FileSource, layout: FLACLayout) throws {
        var tags = FLACTags(warnings: layout.warnings)
        for block in layout.blocks {
            switch block.kind {
            case .vorbisComment?:
                var reader = try source.reader(at: block.bodyOffset, count: block.length)
                var comment = try VorbisComment(parsing: &reader, framingBit: false, forgiving: true)
                if reader.remaining > 0 {
                    comment.warnings.append(
                        MediaWarning(
                            .malformed,
                            "\(reader.remaining) bytes after the Vorbis comment in its "
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
        self = tags
    }
}
