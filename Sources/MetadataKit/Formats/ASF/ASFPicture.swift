#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The value of a `WM/Picture` attribute (a byte array; Windows Media
/// Format SDK, "WM/Picture" and `WM_PICTURE`): picture type (1 byte, ID3v2
/// APIC numbering), image size (32-bit little-endian), MIME type and
/// description (UTF-16LE, NUL-terminated), then the image.
struct ASFPicture: Sendable {
    var pictureType: UInt8
    var mimeType: String
    var description: String
    /// File offset of the image (reading), or nil.
    var imageOffset: Int64?
    var imageCount: Int
    /// The image bytes, for a picture being written.
    var image: [UInt8] = []

    /// Reads a `WM/Picture` value whose first byte is at `fileOffset`;
    /// throws when its parts don't fit in it. Only the head before the image
    /// is looked at (the image is not copied).
    init(parsing value: ArraySlice<UInt8>, fileOffset: Int64) throws {
        try self.init(head: value, valueCount: value.count, fileOffset: fileOffset)
    }

    /// Reads a `WM/Picture` value of `valueCount` bytes at `fileOffset` from
    /// its first bytes, `head`, which must hold the texts; throws when they or
    /// the image don't fit.
    init(head: ArraySlice<UInt8>, valueCount: Int, fileOffset: Int64) throws {
        var reader = ByteReader(Array(head.prefix(Self.headLength(head))), fileOffset: fileOffset)
        pictureType = try reader.readUInt8()
        let count = try reader.readUInt32(.little)
        mimeType = ASFAttribute.text(try Self.readText(&reader))
        description = ASFAttribute.text(try Self.readText(&reader))
        let remaining = valueCount - (Int(reader.offset - fileOffset))
        guard UInt64(count) <= UInt64(remaining) else {
            throw reader.error(.sizeOutOfRange, "WM/Picture declares \(count) image bytes; \(remaining) are left")
        }
        imageOffset = reader.offset
        imageCount = Int(count)
    }

    /// Bytes of `value` up to the end of its second NUL-terminated text (the
    /// description), or all of it when the texts run to its end.
    private static func headLength(_ value: ArraySlice<UInt8>) -> Int {
        var index = value.startIndex + 5
        var texts = 0
        while index + 1 < value.endIndex {
            let isNUL = value[index] == 0 && value[index + 1] == 0
            index += 2
            if isNUL {
                texts += 1
                if texts == 2 { return index - value.startIndex }
            }
        }
        return value.count
    }

    /// A picture to be written.
    init(artwork: Artwork) throws {
        pictureType = artwork.pictureType.rawValue
        mimeType = artwork.mimeType
        description = artwork.description
        image = [UInt8](try artwork.readBytes())
        imageCount = image.count
        guard UInt64(imageCount) <= UInt64(UInt32.max) else {
            throw MediaError(.invalidValue, "a picture of \(imageCount) bytes does not fit in WM/Picture (4 GiB)")
        }
    }

    /// UTF-16LE code units up to and including a NUL unit (the NUL is not
    /// returned); throws when there is none.
    private static func readText(_ reader: inout ByteReader) throws -> ArraySlice<UInt8> {
        var length = 0
        while let low = reader.peekUInt8(at: length), let high = reader.peekUInt8(at: length + 1) {
            if low == 0 && high == 0 {
                let text = try reader.readSlice(length)
                try reader.skip(2)
                return text
            }
            length += 2
        }
        throw reader.error(.truncated, "WM/Picture text without its terminating NUL")
    }

    /// The stored value.
    func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: image.count + 64)
        writer.write(pictureType)
        writer.write(UInt32(image.count), .little)
        writer.write(ASFAttribute.encodedText(mimeType))
        writer.write(ASFAttribute.encodedText(description))
        writer.write(image)
        return writer.bytes
    }

    /// The picture as an ``Artwork`` whose bytes stay in the file.
    func artwork(source: FileSource, url: URL) -> Artwork {
        Artwork(
            source: source, url: url, offset: imageOffset ?? 0, byteCount: imageCount, mimeType: mimeType,
            pictureType: Artwork.PictureType(rawValue: pictureType), description: description)
    }

    /// The item data type for a picture of `mimeType`.
    static func dataType(of mimeType: String) -> MetadataDataType {
        switch mimeType {
        case "image/jpeg": .jpeg
        case "image/png": .png
        case "image/bmp": .bmp
        case "image/gif": .gif
        default: .binary
        }
    }
}
