#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of an AIFF or AIFF-C file.
///
/// - The `ID3 ` chunk (kept as `id3 ` when the file spells it so) from the
///   ``MetadataKeySpace/id3`` items (``IFFID3Chunk``), and the text chunks
///   `NAME`, `AUTH`, `(c) `, `ANNO` from the ``MetadataKeySpace/aiff`` items
///   (``AIFFText``). A changed normalized field goes to every one of the two
///   that holds it (``MetadataChanges``); when neither does, to the ID3 chunk,
///   created as `ID3 ` after the last chunk (where iTunes and mutagen put it).
/// - The text chunks are written together where the first of them was (their
///   relative order among other chunks is not kept); new ones go last.
/// - The XMP packet (``MetadataKeySpace/xmp`` `APPL`) in its `APPL` chunk
///   with the signature `XMP ` (``XMPChunk``), kept byte for byte while unchanged.
/// - Every other chunk (`COMM`, `FVER`, `MARK`, `INST`, `COMT`, other `APPL`, …) is
///   kept byte for byte and in order, `SSND` untouched, the FORM size updated;
///   a FORM over 4 GiB throws `unsupportedFeature`.
/// - Tags after `SSND` are replaced with a journaled in-place tail edit,
///   tags before it are patched in place when their size is unchanged, and
///   otherwise the file is rewritten (AIFF has no padding chunk to absorb a
///   change).
/// - Text is written in ISO 8859-1 when it fits, else UTF-8 (``IFFText``);
///   a field whose new text isn't ASCII also goes to the ID3 chunk when that
///   doesn't hold it (``IFFID3Chunk/exactCopies(of:isNew:)``): ffmpeg reads
///   the chunk read last, exiftool reads text chunks as Mac Roman.
/// - Damaged files (``IFFChunkWalker``, ``IFFID3Chunk``): the FORM size is
///   written for the chunks present, a missing pad byte is added (the chunks
///   after it move, so the file is rewritten), a chunk cut off at the end of
///   the file is kept byte for byte after the FORM, an ID3 chunk that couldn't
///   be read whole is kept as it is, and a file without `SSND` keeps `COMM`
///   as it is.
enum AIFFEditPlanner {
    static let keySpaces: [MetadataKeySpace] = [.id3, .aiff, .xmp]

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let aiff = try AIFFStructure(parsing: source)
        guard !aiff.structure.isTruncated else {
            throw MediaError(.truncated, "the file ends inside its 'SSND' chunk; MetadataKit doesn't write truncated files")
        }
        let kept = options.removesAllTags ? items.filter { !keySpaces.contains($0.keySpace) } : items
        let sound = aiff.structure.first("SSND")

        let id3 = try IFFID3Chunk.read(in: aiff.chunks, source: source, url: URL(fileURLWithPath: source.path, isDirectory: false))
        let textChunks = aiff.chunks.filter { AIFFText.ids.contains($0.id) }
        let existingText = try textChunks.map { (chunk: $0, item: try AIFFText.item($0, source: source)) }
        var tagItems = kept
        if id3?.isWritable ?? true {
            let old = existingText.compactMap(\.item)
            tagItems += try IFFID3Chunk.exactCopies(of: kept) { !old.contains($0) }
        }
        let tag = try IFFID3Chunk.edit(
            id3, items: tagItems, newID: "ID3 ", endianness: .big, source: source, options: options,
            audioBytes: sound?.size ?? 0)
        let text = try AIFFText.chunks(for: kept, existing: existingText, source: source)
        try XMPChunk.refuseOtherKeys(kept, kind: XMPChunk.aiff, format: "AIFF")
        let xmp = try XMPChunk.edit(aiff.chunks, items: kept, kind: XMPChunk.aiff, source: source)

        var layout = IFFLayout(aiff.chunks)
        var changedBeforeSound = false
        func replace(_ old: [IFFChunk], with bytes: [UInt8]?) {
            if let replaced = layout.replace(old, with: bytes), let sound, replaced.offset < sound.offset {
                changedBeforeSound = true
            }
        }
        replace(tag.old, with: tag.bytes)
        replace(textChunks, with: text)
        replace(xmp.old, with: xmp.bytes)
        if let sound {
            try padBeforeSound(sound, in: &layout, changedBefore: changedBeforeSound, source: source)
        }

        var header = ByteWriter()
        header.write(aiff.structure.form)
        header.write(try IFFEditPlanner.containerSize(chunksLength: layout.chunksLength, format: "AIFF"))
        header.write(aiff.structure.formType)
        var segments: [FileEditPlan.Segment] = [.bytes(header.bytes)] + layout.segments
        if aiff.structure.containerEnd < source.size {
            segments.append(.original(offset: aiff.structure.containerEnd, length: source.size - aiff.structure.containerEnd))
        }
        return try IFFEditPlanner.plan(segments, source: source, audio: sound.map { $0.payloadOffset..<$0.payloadEnd })
    }

    /// The filler chunk: a chunk type AIFF doesn't define, which readers skip
    /// (EA IFF 85 §"Chunks": a reader skips chunks it doesn't understand;
    /// AIFF 1.3 and AIFF-C allow chunks not in the specification), of zeros.
    /// Apple's audio file APIs write `FLLR` chunks for the same purpose
    /// (aligning `SSND`), so readers already meet it.
    static let paddingID: FourCC = "FLLR"
    /// Payload of the `FLLR` chunk added when tags before `SSND` grow on a large file.
    static let rewritePadding = 1024

    /// Keeps `SSND` where it is when an `FLLR` chunk before it can absorb
    /// the change; otherwise, on a file of 1 MiB or more whose tags before
    /// `SSND` grow, puts an `FLLR` chunk after them, sized so that `SSND`
    /// moves by whole file system blocks: the save then inserts blocks
    /// instead of copying the audio, and the next edits fit in the filler.
    static func padBeforeSound(_ sound: IFFChunk, in layout: inout IFFLayout, changedBefore: Bool, source: FileSource) throws {
        guard !(try layout.absorbShift(of: sound, paddingIDs: [paddingID], endianness: .big)), changedBefore,
            let soundIndex = layout.index(of: sound),
            layout.newOffset(ofElementAt: soundIndex) > sound.offset,
            let block = MP4EditPlanner.insertionBlock(for: source)
        else { return }
        let padding = try IFFChunkBuilder.chunk(paddingID, [UInt8](repeating: 0, count: rewritePadding), .big)
        let index: Int
        if let old = layout.elements[..<soundIndex].lastIndex(where: { element in
            if case .original(let chunk) = element { return chunk.id == paddingID }
            return false
        }) {
            layout.elements[old] = .new(padding)
            index = old
        } else if let lastTag = layout.elements[..<soundIndex].lastIndex(where: { if case .new = $0 { true } else { false } }) {
            layout.elements.insert(.new(padding), at: lastTag + 1)
            index = lastTag + 1
        } else {
            return
        }
        try layout.alignShift(of: sound, paddingAt: index, id: paddingID, block: block, endianness: .big)
    }
}
