#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The production-metadata chunks of a Broadcast Wave file — `bext`
/// (``BroadcastExtension``), `iXML` (``IXML``) and `cart` (``CartChunk``) —
/// as the WAV reader and writer, and the FLAC reader (`riff` APPLICATION
/// blocks), see them.
///
/// The first chunk of each ID is read and edited; further ones are kept as
/// they are. A chunk whose items are unchanged is never rewritten. A new
/// chunk (items set on a file without it) goes after the last chunk. A chunk
/// left with no items is removed.
enum BroadcastWAV {
    /// The key spaces, in the order a WAV file's items list them.
    static let keySpaces: [MetadataKeySpace] = [.bext, .iXML, .cart, .broadcastWAV]
    static let ids: [FourCC] = ["bext", "iXML", "cart"]
    /// Largest chunk read into memory.
    static let maximumSize: Int64 = 16 << 20
    static let secondsKey = "TimeReferenceSeconds"

    /// The items of one chunk's payload (`offset`: the payload's file offset,
    /// for warnings); nil for another chunk ID.
    static func items(
        of id: FourCC, payload: [UInt8], at offset: Int64, sampleRate: Int?
    ) -> (items: [MetadataItem], warnings: [MediaWarning])? {
        switch id {
        case "bext":
            let (items, warning) = BroadcastExtension.record.items(of: payload, at: offset)
            return (items + secondsItem(items, sampleRate: sampleRate), warning.map { [$0] } ?? [])
        case "iXML":
            let (items, warning) = IXML.items(of: payload, at: offset)
            return (items, warning.map { [$0] } ?? [])
        case "cart":
            let (items, warning) = CartChunk.record.items(of: payload, at: offset)
            return (items, warning.map { [$0] } ?? [])
        default:
            return nil
        }
    }

    /// `TimeReferenceSeconds`: the time reference over the sample rate, as
    /// decimal seconds (up to 6 decimals, no trailing zeros).
    static func secondsItem(_ bextItems: [MetadataItem], sampleRate: Int?) -> [MetadataItem] {
        guard let samples = bextItems.first(where: { $0.key == "TimeReference" })?.value.stringValue.flatMap({ UInt64($0) }),
            let sampleRate, sampleRate > 0
        else { return [] }
        let whole = samples / UInt64(sampleRate)
        let micro = (samples % UInt64(sampleRate)) * 1_000_000 / UInt64(sampleRate)
        var text = "\(whole)"
        if micro > 0 {
            var fraction = String(cFormat: "%06llu", micro)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return [MetadataItem(keySpace: .broadcastWAV, key: secondsKey, value: .string(text), dataType: .utf8)]
    }

    /// The items of a WAV chunk, if it is the first of its ID among `chunks`;
    /// a chunk larger than ``maximumSize`` gives a warning and no items.
    static func items(
        of chunk: IFFChunk, in chunks: [IFFChunk], source: FileSource, sampleRate: Int
    ) throws -> (items: [MetadataItem], warnings: [MediaWarning])? {
        guard ids.contains(chunk.id), chunks.first(where: { $0.id == chunk.id }) == chunk else { return nil }
        guard chunk.size <= maximumSize else {
            return (
                [],
                [
                    MediaWarning(
                        .sizeOutOfRange, "'\(chunk.id)' chunk of \(chunk.size) bytes is larger than \(maximumSize); not read",
                        offset: chunk.offset)
                ]
            )
        }
        let end = chunk.payloadEnd(atMost: source.size)
        let payload = try source.getBytes(at: chunk.payloadOffset, count: Int(end - chunk.payloadOffset))
        return items(of: chunk.id, payload: payload, at: chunk.payloadOffset, sampleRate: sampleRate)
    }

    /// The chunks to replace for `items` (bytes nil: remove the chunk; `old`
    /// empty: a new chunk); only chunks whose items changed.
    static func edits(
        for items: [MetadataItem], chunks: [IFFChunk], source: FileSource, sampleRate: Int
    ) throws -> [(old: [IFFChunk], bytes: [UInt8]?)] {
        var edits: [(old: [IFFChunk], bytes: [UInt8]?)] = []
        for id in ids {
            let chunk = chunks.first { $0.id == id }
            var old: [UInt8]?
            if let chunk {
                guard chunk.size <= maximumSize, chunk.payloadEnd <= source.size else {
                    // Unreadable or cut off: kept as it is, its items can't change.
                    if items.contains(where: { $0.keySpace == keySpace(of: id) }) {
                        throw MediaError(
                            .unsupportedFeature, "the '\(id)' chunk is too large or cut off; it can't be edited", offset: chunk.offset)
                    }
                    continue
                }
                old = try source.getBytes(at: chunk.payloadOffset, count: Int(chunk.size))
            }
            let payload: [UInt8]?
            switch id {
            case "bext":
                try checkSeconds(items, old: old, sampleRate: sampleRate)
                let wanted = items.filter { $0.keySpace == .bext }
                payload = wanted.isEmpty ? (old == nil ? nil : []) : try BroadcastExtension.record.payload(for: wanted, old: old)
            case "iXML":
                payload = try IXML.payload(for: items, old: old)
            default:
                let wanted = items.filter { $0.keySpace == .cart }
                payload = wanted.isEmpty ? (old == nil ? nil : []) : try CartChunk.record.payload(for: wanted, old: old)
            }
            guard let payload else { continue }
            if payload.isEmpty {
                if let chunk { edits.append(([chunk], nil)) }
            } else {
                edits.append((chunk.map { [$0] } ?? [], try IFFChunkBuilder.chunk(id, payload, .little)))
            }
        }
        return edits
    }

    private static func keySpace(of id: FourCC) -> MetadataKeySpace {
        id == "bext" ? .bext : id == "iXML" ? .iXML : .cart
    }

    /// `TimeReferenceSeconds` is computed: a change to it alone is refused.
    private static func checkSeconds(_ items: [MetadataItem], old: [UInt8]?, sampleRate: Int) throws {
        let before = old.map { BroadcastExtension.record.items(of: $0, at: 0).items } ?? []
        let wanted = items.first { $0.keySpace == .broadcastWAV && $0.key == secondsKey }
        let reference = items.first { $0.keySpace == .bext && $0.key == "TimeReference" }
        if wanted != secondsItem(before, sampleRate: sampleRate).first, reference == before.first(where: { $0.key == "TimeReference" }),
            wanted != nil
        {
            throw MediaError(
                .invalidValue, "bwf:\(secondsKey) is computed from the time reference; set bext:TimeReference (in samples) instead")
        }
    }
}

extension MetadataKeyMap {
    /// Keys of the Broadcast Wave chunks (WAV). Only fields no other tag
    /// holds: the key map ranks keys across formats, and a `cart` title
    /// ranked with ID3 and Vorbis titles would hide them in a FLAC file that
    /// keeps a `cart` chunk (the cart's title and artist, like every other
    /// field here, are raw items):
    ///
    /// | field | bext | iXML |
    /// |---|---|---|
    /// | description | Description | – |
    /// | originator | Originator | – |
    /// | originatorReference | OriginatorReference | – |
    /// | originationDate | OriginationDate | – |
    /// | originationTime | OriginationTime | – |
    /// | timeReference | TimeReference (samples) | – |
    /// | project, scene, take, tape, circled, note | – | PROJECT, SCENE, TAKE, TAPE, CIRCLED, NOTE |
    static let broadcastWAVKeys: [MetadataField: [RawKey]] = [
        .description: [RawKey(.bext, "Description")],
        .originator: [RawKey(.bext, "Originator")], .originatorReference: [RawKey(.bext, "OriginatorReference")],
        .originationDate: [RawKey(.bext, "OriginationDate")], .originationTime: [RawKey(.bext, "OriginationTime")],
        .timeReference: [RawKey(.bext, "TimeReference")],
        .project: [RawKey(.iXML, "PROJECT")], .scene: [RawKey(.iXML, "SCENE")], .take: [RawKey(.iXML, "TAKE")],
        .tape: [RawKey(.iXML, "TAPE")], .circled: [RawKey(.iXML, "CIRCLED")], .note: [RawKey(.iXML, "NOTE")],
    ]
}

extension MetadataKeyMap.KeyTable {
    /// The rows of `MetadataKeyMap.broadcastWAVKeys`.
    static let broadcastWAV = Self("broadcastWAV", keySpaces: [.bext, .iXML]) { MetadataKeyMap.broadcastWAVKeys }
}
