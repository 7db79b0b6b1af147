#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the ID3v2 tag of a DSF file (``DSFStructure``).
///
/// - The tag stays where the metadata pointer has it (after the sample data,
///   DSF 1.01 §"Metadata chunk"); a file without one (pointer 0, or a pointer
///   that leads to no tag) gets it at the end of the file. Bytes after the old
///   tag and bytes the pointer led to that were no tag are kept after it.
/// - The 'DSD ' chunk's pointer (0 when no tag is left) and total file size
///   are written for the new file; the 'fmt ' and 'data' chunks are copied
///   untouched.
/// - The tag keeps its space when it fits (``ID3v2PaddingPolicy``): the save
///   is then a set of same-size patches; otherwise the tag at the end is
///   replaced with a journaled tail edit (``IFFEditPlanner``).
/// - A tag that couldn't be read whole is kept as it is, and ID3 items are
///   then refused (``DSDID3Tag``); a file cut inside its data chunk is refused.
enum DSFEditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let dsf = try DSFStructure(parsing: source)
        guard !dsf.isTruncated else {
            throw MediaError(.truncated, "the file ends inside its 'data' chunk; MetadataKit doesn't write truncated files")
        }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let tag = try dsf.tagRegion.flatMap { try DSDID3Tag.read(in: $0, source: source, url: url) }
        let kept = options.removesAllTags ? items.filter { $0.keySpace != .id3 } : items
        let edit = try DSDID3Tag.edit(tag, items: kept, source: source, options: options, audioBytes: Int64(dsf.sampleData.count))

        // The old tag's place (an empty range at the end when there is none).
        let old: Range<Int64>
        if let tag {
            old = tag.chunk.payloadOffset..<(tag.chunk.payloadOffset + DSDID3Tag.length(of: tag))
        } else {
            old = source.size..<source.size
        }
        // The tag's new bytes, or the old ones kept where they are.
        let newTag: FileEditPlan.Segment? =
            edit.keep ? .original(offset: old.lowerBound, length: Int64(old.count)) : edit.bytes.map { FileEditPlan.Segment.bytes($0) }
        let newSize = source.size - Int64(old.count) + (newTag?.length ?? 0)
        var header = ByteWriter(capacity: Int(DSFStructure.headerLength))
        header.write(try source.getBytes(at: 0, count: 12))
        header.write(UInt64(newSize), .little)
        header.write(UInt64(newTag == nil ? 0 : old.lowerBound), .little)

        var segments: [FileEditPlan.Segment] = [.bytes(header.bytes)]
        segments.append(.original(offset: DSFStructure.headerLength, length: old.lowerBound - DSFStructure.headerLength))
        if let newTag { segments.append(newTag) }
        segments.append(.original(offset: old.upperBound, length: source.size - old.upperBound))
        return try IFFEditPlanner.plan(segments, source: source, audio: dsf.sampleData)
    }
}
