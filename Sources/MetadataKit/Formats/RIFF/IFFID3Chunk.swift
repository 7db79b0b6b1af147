import Foundation

/// An ID3v2 tag stored as the payload of a chunk: `id3 ` or `ID3 ` in WAV
/// (as written by mutagen, foobar2000, TagLib), `ID3 ` in AIFF (as written by
/// iTunes, mutagen, TagLib).
///
/// The tag inside is read and written exactly as in an MP3 (key space
/// ``MetadataKeySpace/id3``, ``ID3v2TagReader``, ``ID3v2TagWriter``): the same
/// frame keys, version handling (``SaveOptions/id3v2Version``), byte-for-byte
/// copies of unchanged frames and padding policy. The tag must lie wholly
/// inside its chunk.
enum IFFID3Chunk {
    /// Chunk IDs that hold an ID3v2 tag.
    static let ids: Set<FourCC> = ["id3 ", "ID3 "]

    /// The header of the tag in `chunk`; nil when the payload doesn't start with "ID3".
    static func header(in chunk: IFFChunk, source: FileSource) throws -> ID3v2Header? {
        guard ids.contains(chunk.id), chunk.size >= Int64(ID3v2Header.length) else { return nil }
        guard let header = try ID3v2Header.read(from: source, at: chunk.payloadOffset) else { return nil }
        guard header.totalSize <= chunk.size else {
            throw MediaError(.sizeOutOfRange, "ID3v2 tag of \(header.totalSize) bytes is larger than its chunk '\(chunk.id)' (\(chunk.size) bytes)",
                             offset: chunk.payloadOffset)
        }
        return header
    }

    /// The first chunk of `chunks` that holds an ID3v2 tag, with the tag's header.
    /// Later ID3 chunks (rare) are neither read nor written: writers keep them as they are.
    static func find(in chunks: [IFFChunk], source: FileSource) throws -> (chunk: IFFChunk, header: ID3v2Header)? {
        for chunk in chunks where ids.contains(chunk.id) {
            if let header = try header(in: chunk, source: source) { return (chunk, header) }
        }
        return nil
    }

    /// The `.id3` items of the tag.
    static func items(_ header: ID3v2Header, source: FileSource, url: URL) throws -> [MetadataItem] {
        try ID3v2TagReader(source: source, url: url, header: header).read()
    }

    /// The new chunk payload (a whole ID3v2 tag) for the `.id3` items of
    /// `items`; nil when there are none (the chunk is then removed).
    ///
    /// The tag keeps the old chunk's size when its frames fit there
    /// (``ID3v2PaddingPolicy``), so an edit can stay in place; otherwise it
    /// gets the standard padding for `audioBytes` of audio.
    static func payload(for items: [MetadataItem], existing: (chunk: IFFChunk, header: ID3v2Header)?, source: FileSource,
                        options: SaveOptions, audioBytes: Int64, policy: ID3v2PaddingPolicy = .standard) throws -> [UInt8]? {
        guard items.contains(where: { $0.keySpace == .id3 }) else { return nil }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let version: UInt8
        switch options.id3v2Version {
        case .v2_3: version = 3
        case .v2_4: version = 4
        case .keep: version = existing?.header.majorVersion == 3 ? 3 : 4
        }
        let records = try existing.map { try ID3v2TagReader(source: source, url: url, header: $0.header).frames() } ?? []
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
