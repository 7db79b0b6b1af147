#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ID3v2 tag of a DSD file: in DSF the bytes the header's metadata
/// pointer leads to, in DSDIFF the payload of the `ID3 ` chunk.
///
/// Both are read and written with the code of the ID3 chunk of WAV and AIFF
/// (``IFFID3Chunk``): the tag's bytes are handed to it as the payload of a
/// chunk, so damage is read around in the same way (a tag larger than its
/// space is read within it; a tag that can't be read whole is kept byte for
/// byte and no ID3 items are written beside it), and a save keeps unchanged
/// frames byte for byte, the tag's version (``SaveOptions/id3v2Version``) and
/// the padding policy.
enum DSDID3Tag {
    /// The tag whose bytes lie in `region`; nil when they don't start with "ID3".
    static func read(in region: Range<Int64>, source: FileSource, url: URL) throws -> IFFID3Chunk.Tag? {
        guard region.count >= Int64(ID3v2Header.length) else { return nil }
        // A chunk whose payload is the region (IFF chunk headers are 8 bytes).
        let chunk = IFFChunk(id: "ID3 ", offset: region.lowerBound - IFFChunk.headerLength, size: Int64(region.count))
        return try IFFID3Chunk.read(in: [chunk], source: source, url: url)
    }

    /// The tag in `region` for reading: ``read(in:source:url:)``, and where
    /// it holds bytes that are no frames (a damaged frame), the frames read
    /// around them as mutagen reads them (``ID3v2TagParser/tag()``), with
    /// its warnings. A save keeps such a tag as it is and refuses ID3
    /// changes (``edit(_:items:source:options:audioBytes:)``).
    static func readAround(in region: Range<Int64>, source: FileSource, url: URL) throws -> IFFID3Chunk.Tag? {
        guard var tag = try read(in: region, source: source, url: url) else { return nil }
        guard !tag.isWritable, let header = tag.header, header.isSupportedVersion else { return tag }
        let note = MediaWarning(
            .unsupportedFeature, "the ID3v2 tag is read around its damage; a save keeps it as it is and refuses ID3 changes",
            offset: header.offset)
        // The chunk reader already gave the frames before the damage.
        guard tag.items.isEmpty else {
            tag.warnings.append(note)
            return tag
        }
        let whole = try ID3v2TagParser(source: source, url: url, header: header, limit: region.upperBound).tag()
        guard !whole.items.isEmpty else { return tag }
        tag.items = whole.items
        tag.warnings = whole.warnings + [note]
        return tag
    }

    /// The bytes the tag takes: its declared size, at most its region.
    static func length(of tag: IFFID3Chunk.Tag) -> Int64 {
        guard let header = tag.header, tag.isWritable else { return tag.chunk.size }
        return min(header.totalSize, tag.chunk.size)
    }

    /// The new tag for the `.id3` items of `items` (nil: no ID3 items, the tag
    /// goes), or the old tag's bytes kept as they are (`keep`) when it couldn't
    /// be read whole; ID3 items for a file with such a tag are refused.
    static func edit(
        _ tag: IFFID3Chunk.Tag?, items: [MetadataItem], source: FileSource, options: SaveOptions, audioBytes: Int64
    ) throws -> (bytes: [UInt8]?, keep: Bool) {
        if let tag, !tag.isWritable {
            if items.contains(where: { $0.keySpace == .id3 }) {
                throw MediaError(
                    .unsupportedFeature,
                    "the ID3v2 tag can't be read whole; MetadataKit keeps it as it is and doesn't write ID3 items beside it",
                    offset: tag.chunk.payloadOffset)
            }
            return (nil, !options.removesAllTags)
        }
        var existing: (chunk: IFFChunk, header: ID3v2Header)?
        if let tag, let header = tag.header {
            var chunk = tag.chunk
            chunk.size = length(of: tag) // bytes after the tag are not its padding
            existing = (chunk, header)
        }
        let payload = try IFFID3Chunk.payload(for: items, existing: existing, source: source, options: options, audioBytes: audioBytes)
        return (payload, false)
    }
}
