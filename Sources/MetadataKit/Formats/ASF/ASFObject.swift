#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One object of an ASF header (ASF Specification §3.1): a 16-byte GUID, a
/// 64-bit little-endian size that counts the 24-byte object header, and the
/// object's data.
struct ASFObject: Sendable {
    let guid: ASFGUID
    /// File offset of the object's first byte.
    let offset: Int64
    /// The whole object, header included, over the bytes of the header it
    /// was read from (shared, not copied: a header holds pictures).
    private let reader: ByteReader

    /// Bytes of the object header (GUID and size).
    static let headerSize = 24

    init(guid: ASFGUID, offset: Int64, reader: ByteReader) {
        self.guid = guid
        self.offset = offset
        self.reader = reader
    }

    /// The whole object, header included (a copy).
    var bytes: [UInt8] {
        var copy = reader
        return copy.readRemainingBytes()
    }

    /// The object's data (after the GUID and size), with its file offsets.
    var dataReader: ByteReader {
        var data = reader
        try? data.skip(Self.headerSize)
        return data
    }

    /// The objects in `reader`, one after another to its end. An object whose
    /// size is less than its header or runs past the end stops the walk: the
    /// objects before it are returned, and the damage as a warning (the bytes
    /// from there on are left unread in `reader`).
    static func objects(in reader: inout ByteReader, what container: String) -> (objects: [ASFObject], damage: MediaWarning?) {
        var objects: [ASFObject] = []
        while !reader.isAtEnd {
            let offset = reader.offset
            guard let head = reader.peekBytes(headerSize) else {
                return (
                    objects,
                    MediaWarning(.truncated, "\(reader.remaining) bytes at the end of the \(container) are no object", offset: offset)
                )
            }
            let guid = ASFGUID(bytes: head.prefix(16))
            var sizeReader = ByteReader(Array(head.suffix(8)))
            let size = (try? sizeReader.readUInt64(.little)) ?? 0
            guard size >= UInt64(headerSize), size <= UInt64(reader.remaining) else {
                return (
                    objects,
                    MediaWarning(
                        .sizeOutOfRange, "an object in the \(container) declares \(size) bytes; \(reader.remaining) are left",
                        offset: offset)
                )
            }
            guard let object = try? reader.readReader(count: Int(size)) else { break }
            objects.append(ASFObject(guid: guid, offset: offset, reader: object))
        }
        return (objects, nil)
    }

    /// The warning for damage read around (every error of a parser is a ``MediaError``).
    static func warning(_ error: any Error) -> MediaWarning {
        MediaWarning(error as? MediaError ?? MediaError(.malformed, "\(error)"))
    }

    /// An object of type `guid` holding `data`.
    static func serialized(_ guid: ASFGUID, _ data: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(guid.bytes)
        writer.write(UInt64(headerSize + data.count), .little)
        writer.write(data)
        return writer.bytes
    }
}
