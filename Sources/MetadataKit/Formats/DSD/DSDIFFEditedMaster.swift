#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// DSDIFF edited master information (DSDIFF 1.5 §3.9, the 'DIIN' chunk):
    /// keys are the text chunk IDs `DITI` (title) and `DIAR` (artist).
    public static let dsdiff = MetadataKeySpace(rawValue: "dsdiff")
}

extension MetadataKeyMap {
    /// DSDIFF's 'DIIN' text, ranked after every ID3v2 key of the same field.
    static let dsdiffKeys: [MetadataField: [RawKey]] = [
        .title: [RawKey(.dsdiff, "DITI")],
        .artist: [RawKey(.dsdiff, "DIAR")],
    ]
}

/// The edited master information chunk of a DSDIFF file ('DIIN', DSDIFF 1.5
/// §3.9): local chunks 'EMID' (§3.9.1), 'MARK' (§3.9.2), 'DIAR' (§3.9.3,
/// artist) and 'DITI' (§3.9.4, title). The two text chunks hold a 4-byte
/// count and that many characters (read as UTF-8, else ISO 8859-1, as
/// ``IFFText`` does); they are the ``MetadataKeySpace/dsdiff`` items.
///
/// A save rebuilds the chunk: the text chunks from the items (the first one
/// where the first was, new ones last), every other local chunk byte for byte
/// and in order. A 'DIIN' whose local chunks can't all be read is kept as it
/// is, and `dsdiff` items for it are refused.
struct DSDIFFEditedMaster {
    var chunk: IFFChunk
    /// Local chunks, in order.
    var locals: [IFFChunk]
    /// The text items, in chunk order.
    var items: [MetadataItem]
    /// False when the local chunks couldn't all be read.
    var isWritable: Bool
    var warnings: [MediaWarning]

    static let textIDs: Set<FourCC> = ["DIAR", "DITI"]
    /// Longest text read; a longer count is damage.
    static let maximumText = 1 << 20
}

extension DSDIFFEditedMaster {
    init(parsing chunk: IFFChunk, source: FileSource) throws {
        let walk = try DSDIFFChunkWalker.walk(source, from: chunk.payloadOffset, to: chunk.payloadEnd, in: "DIIN")
        var warnings = walk.warnings
        var items: [MetadataItem] = []
        var isWritable = walk.cut == nil && walk.end == chunk.payloadEnd
        for local in walk.chunks where Self.textIDs.contains(local.id) {
            guard local.size >= 4, local.size <= Int64(Self.maximumText) + 4 else {
                warnings.append(
                    MediaWarning(.sizeOutOfRange, "'\(local.id)' chunk of \(local.size) bytes is not read", offset: local.offset + 4))
                isWritable = false
                continue
            }
            var reader = try source.reader(at: local.payloadOffset, count: 4)
            let count = Int64(try reader.readUInt32())
            guard count <= local.size - 4 else {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "'\(local.id)' says \(count) characters, its chunk holds \(local.size - 4); not read",
                        offset: local.payloadOffset))
                isWritable = false
                continue
            }
            let decoded = IFFText.decode(try source.getBytes(at: local.payloadOffset + 4, count: Int(count)))
            guard !decoded.text.isEmpty else { continue }
            items.append(MetadataItem(keySpace: .dsdiff, key: local.id.description, value: .string(decoded.text), dataType: decoded.type))
        }
        if !isWritable {
            warnings.append(
                MediaWarning(.malformed, "the 'DIIN' chunk can't be read whole; a save keeps it as it is", offset: chunk.offset))
        }
        self.init(chunk: chunk, locals: walk.chunks, items: items, isWritable: isWritable, warnings: warnings)
    }

    /// The text local chunk holding `item`.
    static func textChunk(_ item: MetadataItem) throws -> [UInt8] {
        guard item.key == "DIAR" || item.key == "DITI" else {
            throw MediaError(.invalidValue, "dsdiff key '\(item.key)' is not one of DIAR, DITI")
        }
        let text = try IFFText.encode(item)
        var writer = ByteWriter(capacity: text.count + 17)
        let id: FourCC = item.key == "DIAR" ? "DIAR" : "DITI"
        writer.write(id)
        writer.write(UInt64(4 + text.count))
        writer.write(UInt32(text.count))
        writer.write(text)
        if text.count & 1 == 1 { writer.write(UInt8(0)) }
        return writer.bytes
    }

    /// The 'DIIN' chunk for the `.dsdiff` items of `items` (nil: nothing left
    /// to hold), rebuilt from `existing` (see above).
    static func chunk(for items: [MetadataItem], existing: DSDIFFEditedMaster?, source: FileSource) throws -> [UInt8]? {
        let texts = items.filter { $0.keySpace == .dsdiff }
        if let existing, !existing.isWritable {
            guard texts == existing.items else {
                throw MediaError(
                    .unsupportedFeature, "the 'DIIN' chunk can't be read whole; MetadataKit keeps it as it is and doesn't change its text",
                    offset: existing.chunk.offset)
            }
            return try source.getBytes(at: existing.chunk.offset, count: Int(existing.chunk.end - existing.chunk.offset))
        }
        var body: [UInt8] = []
        var textsWritten = false
        for local in existing?.locals ?? [] {
            if textIDs.contains(local.id) {
                if !textsWritten { body += try texts.flatMap(textChunk) }
                textsWritten = true
            } else {
                body += try source.getBytes(at: local.offset, count: Int(local.end - local.offset))
            }
        }
        if !textsWritten { body += try texts.flatMap(textChunk) }
        guard !body.isEmpty else { return nil }
        var writer = ByteWriter(capacity: body.count + 12)
        let id: FourCC = "DIIN"
        writer.write(id)
        writer.write(UInt64(body.count))
        writer.write(body)
        return writer.bytes
    }
}

extension DSDIFFEditedMaster {
    /// ID3 items carrying the value of each field whose 'DIIN' text item in
    /// `items` is new (`isNew`), for the fields no ID3 item of `items` holds:
    /// most readers (mutagen, ffmpeg, exiftool) read only the ID3 chunk.
    static func id3Copies(of items: [MetadataItem], isNew: (MetadataItem) -> Bool) throws -> [MetadataItem] {
        let map = MetadataKeyMap.standard
        let held = Set(items.filter { $0.keySpace == .id3 }.compactMap { map.field(for: .id3, key: $0.key) })
        let metadata = Metadata(items: items)
        var copied: Set<MetadataField> = []
        var copies: [MetadataItem] = []
        for item in items where item.keySpace == .dsdiff && isNew(item) {
            guard let field = map.field(for: .dsdiff, key: item.key), !held.contains(field), copied.insert(field).inserted,
                let value = metadata[field], let key = map.keys[field]?.first(where: { $0.keySpace == .id3 })
            else { continue }
            copies += try MetadataConverterRegistry.standard.converter(for: field).items(for: field, value: value, key: key, existing: [])
        }
        return copies
    }
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.dsdiffKeys`.
    static let dsdiff = Self("dsdiff", keySpaces: [.dsdiff]) { MetadataKeyMap.dsdiffKeys }
}
