#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of a WAV file (RIFF, RF64, BW64).
///
/// What is written:
/// - The `id3 `/`ID3 ` chunk from the ``MetadataKeySpace/id3`` items
///   (``IFFID3Chunk``), and one `LIST`/`INFO` chunk from the
///   ``MetadataKeySpace/riff`` items (``RIFFInfo``). A changed normalized
///   field is written to every one of the two that holds it
///   (``MetadataChanges``), so both stay consistent.
/// - When one of the two tags exists but doesn't hold a field, the new field
///   goes to the ID3 chunk (the primary key space), created as `id3 ` after
///   the last chunk if needed.
/// - **When the file has neither tag**, both are created after the last
///   chunk: the `id3 ` chunk with every field, and an INFO list mirroring
///   the fields INFO can hold (title, artist, album, comments, genre, year,
///   track — ``infoFields``). ID3 holds everything (pictures, disc numbers,
///   full Unicode) and is what mutagen and TagLib read; INFO is what ffmpeg
///   5.x (which ignores an `id3 ` chunk after `data`) and Windows read. Later
///   saves keep both consistent as above.
/// - The `bext`, `iXML` and `cart` chunks from their items, in their place
///   (``BroadcastWAV``), each rewritten only when its items changed.
/// - The XMP packet (``MetadataKeySpace/xmp`` `_PMX`) in its `_PMX` chunk
///   (``XMPChunk``), kept byte for byte while unchanged.
/// - A chunk kind that disappears (no items left) is removed; several INFO
///   lists are merged into the first one.
///
/// INFO text is written in ISO 8859-1 when it fits, else UTF-8
/// (``IFFText``); a field whose new INFO text isn't ASCII also goes to the
/// ID3 chunk when that doesn't hold it, so the exact value is there
/// (``IFFID3Chunk/exactCopies(of:isNew:)``).
///
/// Damaged files (see ``IFFChunkWalker``, ``IFFID3Chunk``): the RIFF size is
/// written for the chunks present, a missing pad byte is added, a chunk cut
/// off at the end of the file and bytes after the last chunk are kept byte
/// for byte after the RIFF container, and an ID3 chunk that couldn't be read
/// whole is kept as it is (ID3 items for such a file are refused).
///
/// What is kept: every other chunk byte for byte and in order (`fmt `,
/// `fact`, `cue `, `LIST`/`adtl`, unknown ones, a second ID3
/// chunk), the `data` chunk untouched and bytes after the RIFF container.
/// The RIFF size is updated; in RF64/BW64 the header keeps 0xFFFFFFFF and the
/// `ds64` RIFF size is updated (EBU Tech 3306 §3.2). A plain RIFF that would
/// exceed 4 GiB throws `unsupportedFeature` (no wrapped 32-bit size is ever
/// written).
///
/// How: tags after `data` (mutagen's layout) are replaced with a journaled
/// in-place tail edit; tags before `data` (ffmpeg's layout) are patched in
/// place when their size is unchanged or a `JUNK`/`PAD ` chunk before `data`
/// can shrink or grow to absorb the difference; otherwise the file is
/// rewritten, and then gets a 1 KiB `JUNK` chunk after the tags so that the
/// next edits fit in place. On a file of 1 MiB or more the `JUNK` chunk is
/// made larger, so that `data` moves by a whole number of file system blocks:
/// the save then inserts blocks before `data` instead of copying the audio
/// (``FileEditor/insertionForm(of:size:in:url:)``). (A 28-byte `JUNK` right after the header is the
/// RF64 placeholder of EBU Tech 3306 §3.3 and is never touched.)
enum WAVEditPlanner {
    static let keySpaces: [MetadataKeySpace] = [.id3, .riff, .xmp] + BroadcastWAV.keySpaces
    static let paddingIDs: Set<FourCC> = ["JUNK", "junk", "PAD ", "pad "]
    /// Payload of the `JUNK` chunk added when pre-`data` tags force a rewrite.
    static let rewritePadding = 1024

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let wav = try WAVStructure(parsing: source)
        guard !wav.structure.isTruncated else {
            throw MediaError(.truncated, "the file ends inside its 'data' chunk; MetadataKit doesn't write truncated files")
        }
        guard let data = wav.structure.first("data") else {
            throw MediaError(.malformed, "the WAVE file has no 'data' chunk", offset: 12)
        }
        let kept = options.removesAllTags ? items.filter { !keySpaces.contains($0.keySpace) } : items

        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let id3 = try IFFID3Chunk.read(in: wav.chunks, source: source, url: url)
        var infoChunks: [IFFChunk] = []
        var infoEntries: [RIFFInfoEntry] = []
        for chunk in wav.chunks where try RIFFInfo.isInfoList(chunk, source: source) {
            infoChunks.append(chunk)
            infoEntries += try RIFFInfo.entries(in: chunk, source: source)
        }
        var tagItems = kept
        if id3?.isWritable ?? true {
            let old = infoEntries.compactMap(\.item)
            tagItems += try IFFID3Chunk.exactCopies(of: kept) { !old.contains($0) }
        }
        let tag = try IFFID3Chunk.edit(
            id3, items: tagItems, newID: "id3 ", endianness: .little, source: source, options: options,
            audioBytes: data.size)
        var infoItems = kept
        if id3 == nil, infoChunks.isEmpty, !kept.contains(where: { $0.keySpace == .riff }) {
            infoItems += try mirroredInfo(kept)
        }
        let info = try RIFFInfo.chunk(
            for: infoItems, existing: infoEntries, source: source,
            characterSet: try RIFFInfo.characterSet(of: wav.chunks, source: source))

        try XMPChunk.refuseOtherKeys(kept, kind: XMPChunk.wav, format: "WAV")
        let xmp = try XMPChunk.edit(wav.chunks, items: kept, kind: XMPChunk.wav, source: source)

        var layout = IFFLayout(wav.chunks)
        var changedBeforeData = false
        func replace(_ old: [IFFChunk], with bytes: [UInt8]?) {
            if let replaced = layout.replace(old, with: bytes), replaced.offset < data.offset { changedBeforeData = true }
        }
        replace(tag.old, with: tag.bytes)
        replace(infoChunks, with: info)
        let sampleRate = try wav.structure.first("fmt ").map {
            try WAVFormatChunk(source.reader(at: $0.payloadOffset, count: Int(min($0.size, 64)))).sampleRate
        }
        for edit in try BroadcastWAV.edits(for: kept, chunks: wav.chunks, source: source, sampleRate: sampleRate ?? 0) {
            replace(edit.old, with: edit.bytes)
        }
        replace(xmp.old, with: xmp.bytes)

        // Keep `data` where it is if a padding chunk can absorb the change; else rewrite with padding.
        let isPlaceholder: (IFFChunk) -> Bool = { $0.offset == 12 && $0.id == "JUNK" && $0.size == 28 }
        if !(try layout.absorbShift(of: data, paddingIDs: paddingIDs, endianness: .little, protected: isPlaceholder)),
            changedBeforeData, let dataIndex = layout.index(of: data)
        {
            let padding = try IFFChunkBuilder.chunk("JUNK", [UInt8](repeating: 0, count: rewritePadding), .little)
            var paddingIndex: Int?
            if let old = layout.elements[..<dataIndex].lastIndex(where: { element in
                if case .original(let chunk) = element { return paddingIDs.contains(chunk.id) && !isPlaceholder(chunk) }
                return false
            }) {
                layout.elements[old] = .new(padding)
                paddingIndex = old
            } else if let lastTag = layout.elements[..<dataIndex].lastIndex(where: { if case .new = $0 { true } else { false } }) {
                layout.elements.insert(.new(padding), at: lastTag + 1)
                paddingIndex = lastTag + 1
            }
            // A large file: the padding grows until `data` moves by whole file
            // system blocks, so the save inserts blocks instead of moving the audio.
            if let paddingIndex, let block = MP4EditPlanner.insertionBlock(for: source) {
                try layout.alignShift(of: data, paddingAt: paddingIndex, id: "JUNK", block: block, endianness: .little)
            }
        }

        var segments: [FileEditPlan.Segment] = []
        var header = ByteWriter()
        header.write(wav.structure.form)
        if let ds64 = wav.ds64 {
            header.write(UInt32.max, .little)
            header.write(wav.structure.formType)
            // The ds64 chunk stays first; only its RIFF size changes.
            guard layout.index(of: ds64.chunk) == 0 else {
                throw MediaError(.malformed, "the 'ds64' chunk is not the first chunk", offset: 12)
            }
            var bytes = try source.getBytes(at: ds64.chunk.offset, count: Int(ds64.chunk.end - ds64.chunk.offset))
            let riffSize = UInt64(layout.chunksLength + 4)
            for index in 0..<8 { bytes[8 + index] = UInt8(riffSize >> UInt64(8 * index) & 0xFF) }
            layout.elements[0] = .new(bytes)
        } else {
            header.write(try IFFEditPlanner.containerSize(chunksLength: layout.chunksLength, format: "RIFF WAVE"), .little)
            header.write(wav.structure.formType)
        }
        segments.append(.bytes(header.bytes))
        segments += layout.segments
        if wav.structure.containerEnd < source.size {
            segments.append(.original(offset: wav.structure.containerEnd, length: source.size - wav.structure.containerEnd))
        }
        return try IFFEditPlanner.plan(segments, source: source, audio: data.payloadOffset..<data.payloadEnd)
    }

    /// Fields mirrored into a new INFO list (see the type's documentation).
    static let infoFields: [MetadataField] = [.title, .artist, .album, .comments, .genre, .date, .trackNumber, .trackCount]

    /// INFO items holding the ``infoFields`` of `items` (nothing when they hold no ID3 item).
    static func mirroredInfo(_ items: [MetadataItem]) throws -> [MetadataItem] {
        guard items.contains(where: { $0.keySpace == .id3 }) else { return [] }
        let metadata = Metadata(items: items)
        var result: [MetadataItem] = []
        for field in infoFields {
            guard let value = metadata[field],
                let key = MetadataKeyMap.riffKeys[field]?.first
            else { continue }
            let existing = result.filter { $0.key == key.key }
            let converted = try MetadataConverterRegistry.standard.converter(for: field)
                .items(for: field, value: value, key: key, existing: existing)
            result.removeAll { $0.key == key.key }
            result += converted
        }
        return result
    }
}
