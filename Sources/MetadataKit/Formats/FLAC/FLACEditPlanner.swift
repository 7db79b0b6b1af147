#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of a native FLAC file (RFC 9639 §8).
///
/// The metadata blocks are rebuilt as:
///
///     [leading ID3v2 tag, kept] fLaC STREAMINFO … VORBIS_COMMENT PICTURE… … [PADDING] audio frames
///
/// - STREAMINFO, SEEKTABLE, CUESHEET, APPLICATION and reserved blocks are
///   copied byte for byte, in their order. The Broadcast Wave items of `riff`
///   APPLICATION blocks can't change (``FLACForeignMetadata``).
/// - The VORBIS_COMMENT block is updated from the `.vorbis` text items where
///   the first one was (right after STREAMINFO when there was none), with the
///   file's vendor string: fields of unchanged items keep their bytes, case
///   and place (``VorbisComment/updated(for:picturesAsFields:)``); a comment
///   nobody changed is copied byte for byte. Further VORBIS_COMMENT blocks
///   (invalid, §8.6) are merged into it.
/// - Pictures stay where they are: `METADATA_BLOCK_PICTURE` fields of the
///   comment (Ogg style, rare in native FLAC) stay fields, byte for byte;
///   PICTURE blocks still read from their old block are copied byte for byte.
///   PICTURE blocks go, in item order, where the first one was (after the
///   comment when there was none); new pictures become PICTURE blocks.
/// - Damage (see ``FLACTags``): a damaged comment or picture block is kept
///   byte for byte while its items are unchanged; a save that would rebuild
///   it from what was read around the damage is refused (`malformed`) before
///   anything is written. A picture block too damaged to read, and a second
///   STREAMINFO, are kept as they are, in their place.
/// - PADDING blocks are merged into one at the end (§8.3).
/// - The last-metadata-block flag is set on the last block only (§8.1).
/// - A leading ID3v2 tag (not part of FLAC, but written by some tools) is kept
///   as it is; its frames are neither read nor written. With
///   ``SaveOptions/removesAllTags`` it is removed along with the comment
///   fields and pictures (the vendor string stays).
///
/// When the new blocks fit in the old metadata region, leaving room for a
/// padding block (or filling it exactly), the save patches that region in
/// place (only the bytes that differ); otherwise the file is rewritten with
/// ``FLACPaddingPolicy`` padding and the audio frames copied untouched.
enum FLACEditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        try plan(source, items, options, padding: .standard)
    }

    static func plan(
        _ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions,
        padding policy: FLACPaddingPolicy
    ) throws -> FileEditPlan {
        let layout = try FLACLayout(parsing: source)
        if !options.removesAllTags { try FLACForeignMetadata.refuseChanges(in: items, layout: layout, source: source) }
        let region = try newBlocks(source, layout: layout, items: options.removesAllTags ? [] : items, removesAll: options.removesAllTags)
        let content = 4 + region.reduce(0) { $0 + 4 + $1.body.count }
        let oldSpace = Int(layout.audioStart - layout.markerOffset)
        let leftover = oldSpace - content - 4
        let fitsExactly = content == oldSpace
        let dropsID3 = options.removesAllTags && layout.markerOffset > 0
        if !dropsID3,
            fitsExactly
                || (leftover >= 0 && leftover <= FLACBlock.maximumLength
                    && policy.reuses(space: Int64(leftover + content), content: content))
        {
            let bytes = serialize(region, padding: fitsExactly ? nil : leftover)
            return .inPlace(try FileEditPlan.changedPatch(of: bytes, at: layout.markerOffset, in: source).map { [$0] } ?? [])
        }
        var padding = policy.padding(audioBytes: source.size - layout.audioStart)
        // A large file: padding up to whole file system blocks, so the save can
        // insert blocks instead of moving the audio frames.
        if !dropsID3, let block = MP4EditPlanner.insertionBlock(for: source) {
            let shift = layout.markerOffset + Int64(content + 4 + padding) - layout.audioStart
            let extra = Int((block - shift % block) % block)
            if padding + extra <= FLACBlock.maximumLength { padding += extra }
        }
        let bytes = serialize(region, padding: padding)
        return .rewrite(
            FileEditPlan.coalesced([
                .original(offset: 0, length: dropsID3 ? 0 : layout.markerOffset),
                .bytes(bytes),
                .original(offset: layout.audioStart, length: source.size - layout.audioStart),
            ]))
    }

    /// The new metadata blocks (type and body), without padding.
    /// With `removesAll`, the comment keeps only its vendor string.
    static func newBlocks(
        _ source: FileSource, layout: FLACLayout, items: [MetadataItem],
        removesAll: Bool = false
    ) throws -> [(type: UInt8, body: [UInt8])] {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        var tags = try FLACTags(parsing: source, layout: layout)
        if removesAll, let old = tags.comment {
            var empty = VorbisComment(vendor: old.vendor)
            empty.vendorBytes = old.vendorBytes
            tags.comment = empty
            tags.commentBlocks = []
        }
        // The comment keeps every field nobody changed, and the pictures that were fields of it.
        var comment: [UInt8]?
        var pictureItems: Set<Int> = []
        if let old = tags.comment {
            let updated = try old.updated(for: items, picturesAsFields: false)
            pictureItems = updated.pictureItems
            if tags.commentBlocks.count == 1, updated.comment.storedFields == old.storedFields {
                comment = try source.getBytes(at: tags.commentBlocks[0].bodyOffset, count: tags.commentBlocks[0].length)
            } else if old.isDamaged {
                throw MediaError(
                    .malformed, "a damaged Vorbis comment in several blocks can't be merged", offset: tags.commentBlocks[0].offset)
            } else {
                comment = try updated.comment.serialized()
            }
        } else {
            let updated = try VorbisComment(vendor: VorbisComment.defaultVendor).updated(for: items, picturesAsFields: false)
            if !updated.comment.storedFields.isEmpty { comment = try updated.comment.serialized() }
        }
        if let comment, comment.count > FLACBlock.maximumLength {
            throw MediaError(.invalidValue, "the Vorbis comment needs \(comment.count) bytes; a FLAC block holds at most 16 MiB")
        }
        // Pictures that aren't comment fields are PICTURE blocks: an unchanged one
        // is copied byte for byte, a new one built; a damaged one can't be rebuilt.
        let oldPictures = tags.pictures.map {
            (block: $0.block, artwork: $0.picture.artwork(source: source, url: url), isDamaged: $0.isDamaged)
        }
        var pictures: [[UInt8]] = []
        for (index, item) in items.enumerated() where item.keySpace == .vorbis && !pictureItems.contains(index) {
            guard case .picture(let artwork) = item.value else { continue }
            if let old = oldPictures.first(where: { sameStoredPicture($0.artwork, artwork, in: source) }) {
                pictures.append(try source.getBytes(at: old.block.bodyOffset, count: old.block.length))
                continue
            }
            if let damaged = oldPictures.first(where: {
                $0.isDamaged && sameFile(artwork, source) && artwork.fileOffset == $0.artwork.fileOffset
            }) {
                throw MediaError(
                    .malformed,
                    "the PICTURE block's length disagrees with its content; the picture can be kept "
                        + "as it is or removed, not changed", offset: damaged.block.offset)
            }
            let body = try FLACPicture(artwork: artwork).serialized()
            guard body.count <= FLACBlock.maximumLength else {
                throw MediaError(.invalidValue, "a picture of \(artwork.byteCount) bytes does not fit in a FLAC PICTURE block (16 MiB)")
            }
            pictures.append(body)
        }

        var result: [(type: UInt8, body: [UInt8])] = []
        var commentPlaced = false, picturesPlaced = false
        let readable = Set(tags.pictures.map(\.block.offset))
        let hadComment = layout.blocks.contains { $0.kind == .vorbisComment }
        let hadPicture = !readable.isEmpty
        func placeComment() {
            if !commentPlaced, let comment { result.append((FLACBlock.Kind.vorbisComment.rawValue, comment)) }
            commentPlaced = true
        }
        func placePictures() {
            if !picturesPlaced { result += pictures.map { (FLACBlock.Kind.picture.rawValue, $0) } }
            picturesPlaced = true
        }
        for (index, block) in layout.blocks.enumerated() {
            switch block.kind {
            case .vorbisComment?: placeComment()
            case .picture? where readable.contains(block.offset): placePictures()
            case .padding?: break
            default:
                // STREAMINFO, a second STREAMINFO, unreadable pictures and other blocks stay as they are.
                result.append((block.type, try source.getBytes(at: block.bodyOffset, count: block.length)))
                if index == 0 {
                    if !hadComment { placeComment() }
                    if !hadPicture { placePictures() }
                }
            }
        }
        return result
    }

    /// Whether `artwork`'s bytes are in the file of `source` (device and
    /// inode: another spelling of the path, a link, is the same file).
    private static func sameFile(_ artwork: Artwork, _ source: FileSource) -> Bool {
        guard case .file(let url, _) = artwork.storage else { return false }
        return Platform.isSameFile(url, URL(fileURLWithPath: source.path))
    }

    /// Whether `new` is the picture `old` read from this file, unchanged (a
    /// picture read from another file at the same offset is not).
    private static func sameStoredPicture(_ old: Artwork, _ new: Artwork, in source: FileSource) -> Bool {
        guard let offset = old.fileOffset, offset == new.fileOffset, sameFile(new, source) else { return false }
        return old.byteCount == new.byteCount && old.mimeType == new.mimeType && old.pictureType == new.pictureType
            && old.description == new.description
    }

    /// `fLaC` and the blocks, with a padding block of `padding` bytes at the end
    /// when given; the last block gets the last-block flag.
    static func serialize(_ blocks: [(type: UInt8, body: [UInt8])], padding: Int?) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Array("fLaC".utf8))
        for (index, block) in blocks.enumerated() {
            let isLast = padding == nil && index == blocks.count - 1
            writer.write(FLACBlock.header(type: block.type, isLast: isLast, length: block.body.count))
            writer.write(block.body)
        }
        if let padding {
            writer.write(FLACBlock.header(type: FLACBlock.Kind.padding.rawValue, isLast: true, length: padding))
            writer.write(zeros: padding)
        }
        return writer.bytes
    }
}
