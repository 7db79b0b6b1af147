#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An ID3v2 tag stored as the payload of a chunk: `id3 ` or `ID3 ` in WAV
/// (as written by mutagen, foobar2000, TagLib), `ID3 ` in AIFF (as written by
/// iTunes, mutagen, TagLib).
///
/// The tag inside is read and written exactly as in an MP3 (key space
/// ``MetadataKeySpace/id3``, ``ID3v2TagParser``, ``ID3v2TagWriter``): the same
/// frame keys, version handling (``SaveOptions/id3v2Version``), byte-for-byte
/// copies of unchanged frames and padding policy.
///
/// Damage is read around (ffmpeg and mutagen read such files too):
/// - A tag whose size runs past its chunk (or the file) is read only within
///   the chunk: the reader is handed a header whose size is cut to the chunk.
///   A warning says so; a save writes the tag with the right size, as long
///   as everything in the chunk after the frames read is padding.
/// - A tag whose frames stop being readable (a frame cut by the end of the
///   chunk) gives the frames before that point and a warning, as ffprobe
///   reads it; one that can't be read at all (broken header fields, an
///   unknown version) gives no items and a warning. Either way the chunk is
///   kept byte for byte by a save, which refuses to write ID3 items rather
///   than drop it or add a second ID3 chunk.
enum IFFID3Chunk {
    /// Chunk IDs that hold an ID3v2 tag.
    static let ids: Set<FourCC> = ["id3 ", "ID3 "]

    /// The first ID3 chunk of a file, as read.
    struct Tag {
        var chunk: IFFChunk
        /// The tag's header, its size cut to the chunk when it claimed more;
        /// nil when it couldn't be parsed.
        var header: ID3v2Header?
        /// The tag's items in frame order; empty when it couldn't be read.
        var items: [MetadataItem]
        /// False when a save can't rewrite the tag without losing bytes: it
        /// then keeps the chunk as it is.
        var isWritable: Bool
        var warnings: [MediaWarning]
        /// The tag's chapters (``ID3Chapters``).
        var chapterTables: [ChapterTable] = []
    }

    /// The first chunk of `chunks` that holds an ID3v2 tag ("ID3" at the
    /// start of its payload), read. Later ID3 chunks (rare) are neither read
    /// nor written: writers keep them as they are.
    static func read(in chunks: [IFFChunk], source: FileSource, url: URL) throws -> Tag? {
        for chunk in chunks where ids.contains(chunk.id) && chunk.size >= Int64(ID3v2Header.length) {
            let head = try source.getBytes(at: chunk.payloadOffset, count: ID3v2Header.length)
            if let tag = try read(chunk, head: head, source: source, url: url) { return tag }
        }
        return nil
    }

    /// The tag in `chunk` whose first 10 payload bytes are `head`; nil when they don't start with "ID3".
    private static func read(_ chunk: IFFChunk, head: [UInt8], source: FileSource, url: URL) throws -> Tag? {
        let keptRaw = "its items are not read and a save keeps the chunk as it is"
        var header: ID3v2Header
        do {
            guard let parsed = try ID3v2Header(bytes: head, offset: chunk.payloadOffset) else { return nil }
            header = parsed
        } catch let error as MediaError {
            return Tag(
                chunk: chunk, header: nil, items: [], isWritable: false,
                warnings: [MediaWarning(error.code, "\(error.reason) in chunk '\(chunk.id)'; \(keptRaw)", offset: error.offset)])
        }
        var warnings: [MediaWarning] = []
        guard header.isSupportedVersion else {
            warnings.append(
                MediaWarning(
                    .unsupportedFeature, "ID3v2.\(header.majorVersion) tag in chunk '\(chunk.id)'; \(keptRaw)",
                    offset: chunk.payloadOffset))
            return Tag(chunk: chunk, header: header, items: [], isWritable: false, warnings: warnings)
        }
        let isCut = header.totalSize > chunk.size
        if isCut {
            let place = header.end > source.size ? "the file" : "its chunk '\(chunk.id)' (\(chunk.size) bytes)"
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "ID3v2 tag of \(header.totalSize) bytes runs past \(place); read within "
                        + "the chunk, and a save writes the tag with its right size", offset: chunk.payloadOffset + 6))
            header.flags &= ~0x10 // a footer can't be inside the chunk any more
            header.size = chunk.size - Int64(ID3v2Header.length)
        }
        let records: [ID3v2FrameRecord]
        var isWritable = true
        do {
            let read = try ID3v2TagParser(source: source, url: url, header: header).tag()
            records = read.frames
            warnings += read.warnings
            if read.isUnreadable { return Tag(chunk: chunk, header: header, items: [], isWritable: false, warnings: warnings) }
            if read.isTruncated { isWritable = false }
            if let unparsed = read.unparsed {
                // One warning for the unreadable bytes: this one, which says what is kept.
                warnings.removeAll { ($0.offset ?? 0) >= unparsed.lowerBound }
                // A tag larger than its chunk, cut inside a frame: the frames
                // before the cut are read (ffprobe shows them too); a save
                // keeps the chunk as it is (the cut frame can't be rewritten).
                isWritable = false
                warnings.append(
                    MediaWarning(
                        .malformed,
                        "\(unparsed.count) bytes of the ID3v2 tag in chunk '\(chunk.id)' could not be read as frames (a frame cut by the "
                            + "chunk's end?); the \(records.count) frames before them are read, and a save keeps the chunk as it is",
                        offset: unparsed.lowerBound))
            }
        } catch let error as MediaError {
            warnings.append(MediaWarning(error.code, "\(error.reason); \(keptRaw)", offset: error.offset))
            return Tag(chunk: chunk, header: header, items: [], isWritable: false, warnings: warnings)
        }
        if isCut, isWritable {
            // A rewrite keeps the frames read; it may only drop padding.
            let framesEnd = header.isUnsynchronised ? chunk.payloadOffset : records.last?.range.upperBound ?? header.bodyOffset
            if try !isPadding(source, from: framesEnd, to: chunk.payloadEnd) {
                isWritable = false
                warnings.append(
                    MediaWarning(
                        .malformed,
                        "bytes after the last ID3v2 frame that fits in chunk '\(chunk.id)' are not padding; "
                            + "a save keeps the chunk as it is", offset: framesEnd))
            }
        }
        let chapters = ID3Chapters.read(records)
        return Tag(
            chunk: chunk, header: header, items: records.items, isWritable: isWritable,
            warnings: warnings + chapters.warnings, chapterTables: chapters.tables)
    }

    /// True when every byte in `start..<end` is zero.
    private static func isPadding(_ source: FileSource, from start: Int64, to end: Int64) throws -> Bool {
        var position = start
        while position < end {
            let count = Int(min(end - position, 64 << 10))
            guard try source.getBytes(at: position, count: count).allSatisfy({ $0 == 0 }) else { return false }
            position += Int64(count)
        }
        return true
    }

    /// The ID3 part of a save: the old chunks to replace and the new chunk
    /// (nil: none). A tag that isn't writable is kept unless all tags are
    /// removed; ID3 items for a file with such a tag, other than those read
    /// from it, are refused.
    static func edit(
        _ tag: Tag?, items: [MetadataItem], newID: FourCC, endianness: Endianness, source: FileSource,
        options: SaveOptions, audioBytes: Int64
    ) throws -> (old: [IFFChunk], bytes: [UInt8]?) {
        if let tag, !tag.isWritable {
            // The frames read from such a tag may stay as they are, unchanged.
            let id3Items = items.filter { $0.keySpace == .id3 }
            if !id3Items.isEmpty, !id3Items.isStoredLike(tag.items) {
                throw MediaError(
                    .unsupportedFeature,
                    "the ID3v2 tag in chunk '\(tag.chunk.id)' can't be read whole; MetadataKit keeps it "
                        + "as it is and doesn't write ID3 items beside it", offset: tag.chunk.offset)
            }
            return (options.removesAllTags ? [tag.chunk] : [], nil)
        }
        let existing = tag.flatMap { tag in tag.header.map { (chunk: tag.chunk, header: $0) } }
        let payload = try payload(for: items, existing: existing, source: source, options: options, audioBytes: audioBytes)
        return (tag.map { [$0.chunk] } ?? [], try payload.map { try IFFChunkBuilder.chunk(tag?.chunk.id ?? newID, $0, endianness) })
    }

    /// ID3 items carrying the exact value of each field whose INFO or AIFF
    /// text item in `items` is new (`isNew`) and not ASCII, for the fields no
    /// ID3 item of `items` holds: readers decode such text differently
    /// (``IFFText``), ID3 readers (TagLib, mutagen, exiftool, ffmpeg for
    /// AIFF) then get the value right.
    static func exactCopies(of items: [MetadataItem], isNew: (MetadataItem) -> Bool) throws -> [MetadataItem] {
        let map = MetadataKeyMap.standard
        let held = Set(items.filter { $0.keySpace == .id3 }.compactMap { map.field(for: .id3, key: $0.key) })
        var fields: [MetadataField] = []
        for item in items where [.riff, .aiff].contains(item.keySpace) && isNew(item) {
            guard item.value.stringValues.contains(where: { $0.unicodeScalars.contains { !$0.isASCII } }),
                let field = map.field(for: item.keySpace, key: item.key), !held.contains(field), !fields.contains(field)
            else { continue }
            fields.append(field)
        }
        guard !fields.isEmpty else { return [] }
        let metadata = Metadata(items: items)
        var copies: [MetadataItem] = []
        for field in fields {
            guard let value = metadata[field], let key = map.keys[field]?.first(where: { $0.keySpace == .id3 }) else { continue }
            copies += try MetadataConverterRegistry.standard.converter(for: field).items(for: field, value: value, key: key, existing: [])
        }
        return copies
    }

    /// The new chunk payload (a whole ID3v2 tag) for the `.id3` items of
    /// `items`; nil when there are none (the chunk is then removed).
    ///
    /// The tag keeps the old chunk's size when its frames fit there
    /// (``ID3v2PaddingPolicy``), so an edit can stay in place; otherwise it
    /// gets the standard padding for `audioBytes` of audio.
    static func payload(
        for items: [MetadataItem], existing: (chunk: IFFChunk, header: ID3v2Header)?, source: FileSource,
        options: SaveOptions, audioBytes: Int64, policy: ID3v2PaddingPolicy = .standard
    ) throws -> [UInt8]? {
        guard items.contains(where: { $0.keySpace == .id3 }) else { return nil }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let version: UInt8
        switch options.id3v2Version {
        case .v2_3: version = 3
        case .v2_4: version = 4
        case .keep: version = existing?.header.majorVersion == 3 ? 3 : 4
        }
        let records = try existing.map { try ID3v2TagParser(source: source, url: url, header: $0.header).frames() } ?? []
        let frames = try ID3v2TagWriter(source: source, version: version, existing: records).frames(for: items)
        guard !frames.isEmpty else { return nil }
        let space = (existing?.chunk.size ?? 0) - Int64(ID3v2Header.length)
        let padding: Int
        if existing != nil, policy.reuses(space: space, content: frames.count) {
            padding = Int(space) - frames.count
        } else {
            padding = policy.padding(audioBytes: audioBytes)
        }
        return try ID3v2TagWriter.tag(frames: frames, version: version, padding: padding)
    }
}
