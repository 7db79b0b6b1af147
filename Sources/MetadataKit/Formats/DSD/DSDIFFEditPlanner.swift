#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of a DSDIFF file (``DSDIFFStructure``).
///
/// - The first 'ID3 ' chunk is replaced by one holding the new tag
///   (``DSDID3Tag``), or removed when no ID3 item is left; a file without one
///   gets it as the last chunk of the FRM8 form (where TagLib and mutagen
///   put it). The 'DIIN' chunk is rebuilt when its text changes
///   (``DSDIFFEditedMaster``), or added last for new `dsdiff` items. A
///   field whose 'DIIN' text changes also goes to the ID3 tag when that
///   doesn't hold it: most readers read only the ID3 chunk.
/// - Every other chunk ('FVER', 'PROP', 'DSD '/'DST ', 'COMT', 'MANF', …) is
///   kept byte for byte and in order; the FRM8 size is written for the chunks
///   present; bytes after the form are kept after it.
/// - A tag that keeps its space is patched in place; tags after the sound
///   data are replaced with a journaled tail edit; otherwise the file is
///   rewritten (``IFFEditPlanner``). A file cut inside its sound data or its
///   'PROP' chunk is refused.
enum DSDIFFEditPlanner {
    static let keySpaces: [MetadataKeySpace] = [.id3, .dsdiff]

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let dff = try DSDIFFStructure(parsing: source)
        guard !dff.isTruncated else {
            throw MediaError(.truncated, "the file ends inside its sound data; MetadataKit doesn't write truncated files")
        }
        // A rewrite would leave the cut 'PROP' outside the form, where no reader finds it.
        if let cut = dff.cut, cut.id == "PROP" {
            throw MediaError(
                .truncated, "the file ends inside its 'PROP' chunk; MetadataKit doesn't write truncated files", offset: cut.offset)
        }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let kept = options.removesAllTags ? items.filter { !keySpaces.contains($0.keySpace) } : items
        let audioBytes = dff.sound?.size ?? 0

        let diinChunk = dff.first("DIIN")
        let master = try diinChunk.map { try DSDIFFEditedMaster(parsing: $0, source: source) }
        let diin = try DSDIFFEditedMaster.chunk(for: kept, existing: master, source: source)

        let id3Chunk = dff.first("ID3 ")
        let tag = try id3Chunk.flatMap { try DSDID3Tag.read(in: $0.payloadOffset..<$0.payloadEnd, source: source, url: url) }
        var tagItems = kept
        if (id3Chunk == nil || tag != nil) && (tag?.isWritable ?? true) {
            let old = master?.items ?? []
            tagItems += try DSDIFFEditedMaster.id3Copies(of: kept) { !old.contains($0) }
        }
        let id3: FileEditPlan.Segment?
        let keptID3 = id3Chunk.map { FileEditPlan.Segment.original(offset: $0.offset, length: $0.end - $0.offset) }
        if let id3Chunk, tag == nil {
            // An 'ID3 ' chunk that holds no ID3v2 tag is kept; nothing is written beside it.
            if kept.contains(where: { $0.keySpace == .id3 }) {
                throw MediaError(
                    .unsupportedFeature, "the 'ID3 ' chunk holds no ID3v2 tag; MetadataKit keeps it and doesn't write ID3 items beside it",
                    offset: id3Chunk.offset)
            }
            id3 = keptID3
        } else {
            let edit = try DSDID3Tag.edit(tag, items: tagItems, source: source, options: options, audioBytes: audioBytes)
            id3 = edit.keep ? keptID3 : edit.bytes.map { FileEditPlan.Segment.bytes(makeID3Chunk(holding: $0)) }
        }
        var segments: [FileEditPlan.Segment] = []
        var body: Int64 = 4 // the form type
        func append(_ segment: FileEditPlan.Segment) {
            segments.append(segment)
            body += segment.length
        }
        for chunk in dff.chunks {
            if chunk == id3Chunk {
                if let id3 { append(id3) }
            } else if chunk == diinChunk {
                if let diin { append(.bytes(diin)) }
            } else {
                append(.original(offset: chunk.offset, length: chunk.end - chunk.offset))
                if chunk.size & 1 == 1, !chunk.hasPadByte { append(.bytes([0])) } // the pad byte it lacked
            }
        }
        if diinChunk == nil, let diin { append(.bytes(diin)) }
        if id3Chunk == nil, let id3 { append(id3) }
        let form: FourCC = "FRM8", formType: FourCC = "DSD "
        var header = ByteWriter(capacity: Int(DSDIFFStructure.formHeaderLength))
        header.write(form)
        header.write(UInt64(body))
        header.write(formType)
        segments.insert(.bytes(header.bytes), at: 0)
        // Leftover bytes of the form (no whole chunk) and anything after it stay, after the form.
        let last = dff.chunks.last?.end ?? DSDIFFStructure.formHeaderLength
        if last < source.size {
            segments.append(.original(offset: last, length: source.size - last))
        }
        return try IFFEditPlanner.plan(segments, source: source, audio: dff.sound.map { $0.payloadOffset..<$0.payloadEnd })
    }

    /// An 'ID3 ' chunk holding the tag `payload`.
    private static func makeID3Chunk(holding payload: [UInt8]) -> [UInt8] {
        let id: FourCC = "ID3 "
        var writer = ByteWriter(capacity: payload.count + 13)
        writer.write(id)
        writer.write(UInt64(payload.count))
        writer.write(payload)
        if payload.count & 1 == 1 { writer.write(UInt8(0)) }
        return writer.bytes
    }
}
