#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// XMP packets in IFF-style chunks: the WAV `_PMX` chunk (the whole payload
/// is the packet, as Adobe's XMP Specification Part 3 "WAV" and exiftool
/// have it) and the AIFF `APPL` chunk whose application signature is
/// `XMP ` (Part 3 "AIFF": the packet follows the 4-byte signature; `APPL`
/// chunks of other applications are not touched).
///
/// Each chunk is one ``MetadataKeySpace/xmp`` item keyed by the chunk kind's
/// ``Kind/key``. A save keeps the chunks byte for byte while their items are
/// unchanged; otherwise the first chunk is replaced in place in the chunk
/// order by the wanted packets (one chunk each), the others are removed, and
/// a packet for a file that had none gets a chunk after the last one.
enum XMPChunk {
    /// Where one container keeps its packet.
    struct Kind: Sendable {
        var id: FourCC
        /// Bytes before the packet in the payload.
        var signature: [UInt8]
        /// The key of its items.
        var key: String
        var endianness: Endianness
    }

    static let wav = Kind(id: "_PMX", signature: [], key: "_PMX", endianness: .little)
    static let aiff = Kind(id: "APPL", signature: Array("XMP ".utf8), key: "APPL", endianness: .big)

    /// Packets larger than this are not read (the chunk is kept as it is).
    static let maximumSize: Int64 = 64 << 20

    /// Whether `chunk` holds a packet of `kind` that can be read whole.
    static func holds(_ chunk: IFFChunk, _ kind: Kind, source: FileSource) throws -> Bool {
        guard chunk.id == kind.id, chunk.size >= Int64(kind.signature.count), chunk.payloadEnd <= source.size,
            chunk.size - Int64(kind.signature.count) <= maximumSize
        else { return false }
        if kind.signature.isEmpty { return true }
        return try source.getBytes(at: chunk.payloadOffset, count: kind.signature.count) == kind.signature
    }

    /// The item and XML warnings of a chunk that ``holds(_:_:source:)`` a packet.
    static func read(_ chunk: IFFChunk, _ kind: Kind, source: FileSource) throws -> (item: MetadataItem, warnings: [MediaWarning]) {
        let start = chunk.payloadOffset + Int64(kind.signature.count)
        let bytes = try source.getBytes(at: start, count: Int(chunk.payloadEnd - start))
        return XMPFields.read(key: kind.key, bytes: bytes, offset: start)
    }

    /// The chunks a save replaces and their replacement (nil: none; both
    /// empty when the packets are unchanged).
    static func edit(_ chunks: [IFFChunk], items: [MetadataItem], kind: Kind, source: FileSource) throws -> (
        old: [IFFChunk], bytes: [UInt8]?
    ) {
        var old: [IFFChunk] = []
        var loaded: [MetadataItem] = []
        for chunk in chunks where try holds(chunk, kind, source: source) {
            old.append(chunk)
            loaded.append(try read(chunk, kind, source: source).item)
        }
        let wanted = items.filter { $0.keySpace == .xmp && $0.key == kind.key }
        if wanted == loaded { return ([], nil) }
        guard !wanted.isEmpty else { return (old, nil) }
        var bytes: [UInt8] = []
        for item in wanted {
            bytes += try IFFChunkBuilder.chunk(kind.id, kind.signature + (try XMPFields.bytes(of: item)), kind.endianness)
        }
        return (old, bytes)
    }

    /// Refuses an ``MetadataKeySpace/xmp`` item whose key `kind` doesn't store.
    static func refuseOtherKeys(_ items: [MetadataItem], kind: Kind, format: String) throws {
        if let other = items.first(where: { $0.keySpace == .xmp && $0.key != kind.key }) {
            throw MediaError(.invalidValue, "\(format) files keep XMP as 'xmp:\(kind.key)', not 'xmp:\(other.key)'")
        }
    }
}
