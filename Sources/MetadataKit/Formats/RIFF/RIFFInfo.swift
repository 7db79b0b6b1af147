#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// RIFF `LIST`/`INFO` subchunks of a WAV file; keys are the chunk IDs
    /// (`INAM`, `IART`, `IPRD`, `ICMT`, `IGNR`, `ICRD`, `ITRK`, `IPRT`, `ICOP`, `ISFT`, …).
    public static let riff = MetadataKeySpace(rawValue: "riff")
}

/// One subchunk of a `LIST`/`INFO` chunk as read: where it lies and its item.
struct RIFFInfoEntry: Sendable {
    var id: FourCC
    /// File offsets of the subchunk: header, text and pad byte.
    var range: Range<Int64>
    /// Nil for an empty subchunk.
    var item: MetadataItem?
}

/// The `LIST` chunk of form type `INFO` (Microsoft "Multimedia Programming
/// Interface and Data Specifications 1.0", §"INFO List Chunk"):
///
///     'LIST' size 'INFO'
///       { ckID size ZSTR [pad] } …      e.g. INAM "title", IART "artist"
///
/// Each subchunk becomes a ``MetadataKeySpace/riff`` item keyed by its ID;
/// text is decoded by ``IFFText``. Empty subchunks give no item. Every size
/// is checked against the list; an odd last subchunk may lack its pad byte.
///
/// Written: one subchunk per item, in item order, each a string with its
/// terminating NUL counted in the size (as ffmpeg and the spec's ZSTR do),
/// padded to even length: ISO 8859-1 when the text fits, else UTF-8, or as
/// the file's `CSET` chunk says (``IFFText``). A subchunk whose item is
/// unchanged is copied byte for byte, so text in another code page survives
/// a save.
enum RIFFInfo {
    /// Largest `INFO` list read into memory.
    static let maximumSize: Int64 = 16 << 20

    /// The character set named by the file's `CSET` chunk (RIFF spec
    /// §"CSET": wCodePage, wCountryCode, wLanguageCode, wDialect, 16-bit
    /// little-endian each); ``IFFText/CharacterSet/latin1`` without one.
    static func characterSet(of chunks: [IFFChunk], source: FileSource) throws -> IFFText.CharacterSet {
        guard let cset = chunks.first(where: { $0.id == "CSET" }), cset.size >= 2 else { return .latin1 }
        var reader = try source.reader(at: cset.payloadOffset, count: 2)
        return IFFText.CharacterSet(codePage: try reader.readUInt16(.little))
    }

    /// True when `chunk` is a `LIST` whose form type is `INFO`.
    static func isInfoList(_ chunk: IFFChunk, source: FileSource) throws -> Bool {
        guard chunk.id == "LIST", chunk.size >= 4 else { return false }
        return try source.getBytes(at: chunk.payloadOffset, count: 4) == Array("INFO".utf8)
    }

    /// The subchunks of an `INFO` list; throws when one runs past the list
    /// (a save does not rewrite a list it can't read whole).
    static func entries(in chunk: IFFChunk, source: FileSource) throws -> [RIFFInfoEntry] {
        let (entries, damage) = try readableEntries(in: chunk, source: source)
        if let damage { throw damage }
        return entries
    }

    /// The subchunks of an `INFO` list up to one that runs past the list
    /// (`damage`: the reader reads around it, with a warning).
    static func readableEntries(in chunk: IFFChunk, source: FileSource) throws -> (entries: [RIFFInfoEntry], damage: MediaError?) {
        guard chunk.size <= maximumSize else {
            throw MediaError(.sizeOutOfRange, "LIST/INFO chunk of \(chunk.size) bytes is larger than \(maximumSize)", offset: chunk.offset)
        }
        var reader = try source.reader(at: chunk.payloadOffset + 4, count: Int(chunk.size - 4))
        var entries: [RIFFInfoEntry] = []
        while reader.remaining >= 8 {
            let start = reader.offset
            let id = try reader.readFourCC()
            let size = Int(try reader.readUInt32(.little))
            guard size <= reader.remaining else {
                let damage = MediaError(
                    .sizeOutOfRange, "INFO subchunk '\(id)' of \(size) bytes runs past its list (\(reader.remaining) bytes left)",
                    offset: start)
                return (entries, damage)
            }
            let text = try reader.readBytes(size)
            if size & 1 == 1, reader.remaining > 0 { try reader.skip(1) }
            let decoded = IFFText.decode(text)
            let item =
                decoded.text.isEmpty
                ? nil
                : MetadataItem(keySpace: .riff, key: id.description, value: .string(decoded.text), dataType: decoded.type)
            entries.append(RIFFInfoEntry(id: id, range: start..<reader.offset, item: item))
        }
        return (entries, nil)
    }

    /// The whole new `LIST` chunk for the `.riff` items of `items`; nil when
    /// there are none. `existing` are the subchunks of the file's INFO lists,
    /// whose bytes are reused for unchanged items.
    static func chunk(
        for items: [MetadataItem], existing: [RIFFInfoEntry], source: FileSource,
        characterSet: IFFText.CharacterSet = .latin1
    ) throws -> [UInt8]? {
        let wanted = items.filter { $0.keySpace == .riff }
        guard !wanted.isEmpty else { return nil }
        var used = [Bool](repeating: false, count: existing.count)
        var payload = Array("INFO".utf8)
        for item in wanted {
            if let match = existing.indices.first(where: { !used[$0] && existing[$0].item == item }) {
                used[match] = true
                let range = existing[match].range
                var bytes = try source.getBytes(at: range.lowerBound, count: Int(range.count))
                if bytes.count & 1 == 1 { bytes.append(0) } // a last subchunk without its pad byte
                payload += bytes
                continue
            }
            let id = try IFFText.chunkID(item)
            payload += try IFFChunkBuilder.chunk(id, try IFFText.encode(item, in: characterSet) + [0], .little)
        }
        return try IFFChunkBuilder.chunk("LIST", payload, .little)
    }
}

extension MetadataKeyMap {
    /// Keys of RIFF `INFO` subchunks (WAV), ranked after every ID3v2 key of
    /// the same field, so the ID3 chunk wins where a file has both:
    ///
    /// | field | RIFF INFO |
    /// |---|---|
    /// | title | INAM |
    /// | artist | IART |
    /// | album | IPRD |
    /// | comments | ICMT |
    /// | genre | IGNR |
    /// | year | ICRD |
    /// | track n/N | ITRK, then IPRT (ffmpeg) |
    /// | composer | IMUS |
    /// | copyright | ICOP |
    /// | encodedBy | ITCH (the technician) |
    /// | encoderSettings | ISFT (the software) |
    /// | engineer | IENG |
    /// | language | ILNG |
    static let riffKeys: [MetadataField: [RawKey]] = {
        let track = [RawKey(.riff, "ITRK"), RawKey(.riff, "IPRT")]
        return [
            .title: [RawKey(.riff, "INAM")],
            .artist: [RawKey(.riff, "IART")],
            .album: [RawKey(.riff, "IPRD")],
            .comments: [RawKey(.riff, "ICMT")],
            .genre: [RawKey(.riff, "IGNR")],
            .date: [RawKey(.riff, "ICRD")],
            .trackNumber: track, .trackCount: track,
            // Fields added with the larger field set (RIFF MCI §2.6 "INFO List Chunk" IDs).
            .composer: [RawKey(.riff, "IMUS")], .copyright: [RawKey(.riff, "ICOP")],
            .encodedBy: [RawKey(.riff, "ITCH")], .encoderSettings: [RawKey(.riff, "ISFT")],
            .engineer: [RawKey(.riff, "IENG")], .language: [RawKey(.riff, "ILNG")],
        ]
    }()
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.riffKeys`.
    static let riff = Self("riff", keySpaces: [.riff]) { MetadataKeyMap.riffKeys }
}
