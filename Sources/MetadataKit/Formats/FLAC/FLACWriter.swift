import Foundation

/// Writes the tags of a native FLAC file (RFC 9639 §8).
///
/// The metadata blocks are rebuilt as:
///
///     [leading ID3v2 tag, kept] fLaC STREAMINFO … VORBIS_COMMENT PICTURE… … [PADDING] audio frames
///
/// - STREAMINFO, SEEKTABLE, CUESHEET, APPLICATION and reserved blocks are
///   copied byte for byte, in their order.
/// - The VORBIS_COMMENT block is rebuilt from the `.vorbis` text items where
///   the first one was (right after STREAMINFO when there was none), with the
///   file's vendor string. Further VORBIS_COMMENT blocks (invalid, §8.6) are
///   merged into it.
/// - PICTURE blocks are rebuilt from the picture items, in item order, where
///   the first one was (after the comment when there was none). A picture
///   still read from its old block is copied byte for byte.
///   `METADATA_BLOCK_PICTURE` fields found in the comment (Ogg style, rare in
///   native FLAC) are read as pictures too and written back as PICTURE blocks.
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
enum FLACWriter {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        try plan(source, items, options, padding: .standard)
    }

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions,
                     padding policy: FLACPaddingPolicy) throws -> FileEditPlan {
        let layout = try FLACLayout.read(source)
        let region = try newBlocks(source, layout: layout, items: options.removesAllTags ? [] : items)
        let content = 4 + region.reduce(0) { $0 + 4 + $1.body.count }
        let oldSpace = Int(layout.audioStart - layout.markerOffset)
        let leftover = oldSpace - content - 4
        let fitsExactly = content == oldSpace
        let dropsID3 = options.removesAllTags && layout.markerOffset > 0
        if !dropsID3, fitsExactly || (leftover >= 0 && leftover <= FLACBlock.maximumLength && policy.reuses(space: Int64(leftover + content), content: content)) {
            let bytes = serialize(region, padding: fitsExactly ? nil : leftover)
            return .inPlace(try FileEditPlan.changedPatch(of: bytes, at: layout.markerOffset, in: source).map { [$0] } ?? [])
        }
        let bytes = serialize(region, padding: policy.padding(audioBytes: source.size - layout.audioStart))
        return .rewrite(FileEditPlan.coalesced([
            .original(offset: 0, length: dropsID3 ? 0 : layout.markerOffset),
            .bytes(bytes),
            .original(offset: layout.audioStart, length: source.size - layout.audioStart),
        ]))
    }

    /// The new metadata blocks (type and body), without padding.
    static func newBlocks(_ source: FileSource, layout: FLACLayout, items: [MetadataItem]) throws -> [(type: UInt8, body: [UInt8])] {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        // The vendor string and the pictures as they are now.
        var vendor: String?
        var oldPictures: [(block: FLACBlock, artwork: Artwork)] = []
        for block in layout.blocks {
            if block.kind == .vorbisComment, vendor == nil {
                var reader = try source.reader(at: block.bodyOffset, count: block.length)
                vendor = try VorbisComment.parse(&reader).vendor
            } else if block.kind == .picture {
                let picture = try FLACPicture.read(from: source, at: block.bodyOffset, length: block.length)
                oldPictures.append((block, picture.artwork(source: source, url: url)))
            }
        }
        let fields = try VorbisComment.fields(for: items, picturesAsFields: false)
        var comment: [UInt8]?
        if !fields.isEmpty || vendor != nil {
            comment = try VorbisComment(vendor: vendor ?? VorbisComment.defaultVendor, fields: fields).serialized()
            guard comment!.count <= FLACBlock.maximumLength else {
                throw MediaError(.invalidValue, "the Vorbis comment needs \(comment!.count) bytes; a FLAC block holds at most 16 MiB")
            }
        }
        var pictures: [[UInt8]] = []
        for item in items where item.keySpace == .vorbis {
            guard case .picture(let artwork) = item.value else { continue }
            if let old = oldPictures.first(where: { sameStoredPicture($0.artwork, artwork, in: source) }) {
                pictures.append(try source.read(at: old.block.bodyOffset, count: old.block.length))
                continue
            }
            let body = try FLACPicture(artwork: artwork).serialized()
            guard body.count <= FLACBlock.maximumLength else {
                throw MediaError(.invalidValue, "a picture of \(artwork.byteCount) bytes does not fit in a FLAC PICTURE block (16 MiB)")
            }
            pictures.append(body)
        }

        var result: [(type: UInt8, body: [UInt8])] = []
        var commentPlaced = false, picturesPlaced = false
        let hadComment = layout.blocks.contains { $0.kind == .vorbisComment }
        let hadPicture = layout.blocks.contains { $0.kind == .picture }
        func placeComment() {
            if !commentPlaced, let comment { result.append((FLACBlock.Kind.vorbisComment.rawValue, comment)) }
            commentPlaced = true
        }
        func placePictures() {
            if !picturesPlaced { result += pictures.map { (FLACBlock.Kind.picture.rawValue, $0) } }
            picturesPlaced = true
        }
        for block in layout.blocks {
            switch block.kind {
            case .vorbisComment?: placeComment()
            case .picture?: placePictures()
            case .padding?: break
            default:
                result.append((block.type, try source.read(at: block.bodyOffset, count: block.length)))
                if block.kind == .streamInfo {
                    if !hadComment { placeComment() }
                    if !hadPicture { placePictures() }
                }
            }
        }
        return result
    }

    /// Whether `new` is the picture `old` read from this file, unchanged (a
    /// picture read from another file at the same offset is not).
    private static func sameStoredPicture(_ old: Artwork, _ new: Artwork, in source: FileSource) -> Bool {
        guard let offset = old.fileOffset, offset == new.fileOffset, case .file(let url, _) = new.storage,
              url.resolvingSymlinksInPath().path == URL(fileURLWithPath: source.path).resolvingSymlinksInPath().path else { return false }
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
            writer.write(repeatElement(UInt8(0), count: padding))
        }
        return writer.bytes
    }
}
