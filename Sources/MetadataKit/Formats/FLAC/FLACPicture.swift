#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The body of a FLAC PICTURE metadata block (RFC 9639 §8.8), also carried
/// base64-encoded in Ogg `METADATA_BLOCK_PICTURE` comment fields.
///
///     picture type            u32 (ID3v2 APIC numbering)
///     media type length       u32, then that many ASCII bytes
///     description length     u32, then that many UTF-8 bytes
///     width, height           u32, u32
///     colour depth            u32 (bits per pixel)
///     indexed colours         u32 (0 unless the image is indexed)
///     picture data length     u32, then the image bytes
///
/// All integers are big-endian.
struct FLACPicture: Sendable, Hashable {
    var pictureType: UInt32
    var mimeType: String
    var description: String
    var width: UInt32
    var height: UInt32
    var depth: UInt32
    var colors: UInt32
    /// Image bytes, when held in memory.
    var data: [UInt8]?
    /// Length of the image bytes.
    var dataLength: Int
    /// File offset of the image bytes (when parsed from a file).
    var dataOffset: Int64

    /// Reads the picture block body of `length` bytes at `offset` in `source`:
    /// the fields are read now, the image bytes are left in the file.
    /// Strict: a block whose length disagrees with its content throws.
    static func read(from source: FileSource, at offset: Int64, length: Int) throws -> FLACPicture {
        var warnings: [MediaWarning] = []
        guard let picture = try read(from: source, at: offset, length: length, warnings: &warnings), warnings.isEmpty else {
            let first = warnings.first ?? MediaWarning(.malformed, "unreadable picture block", offset: offset)
            throw MediaError(first.code, first.message, offset: first.offset)
        }
        return picture
    }

    /// Reads the picture block body of `length` bytes at `offset`, forgiving
    /// a length that disagrees with the content (RFC 9639 §8.8 sizes the image
    /// by its own length field): image bytes cut short by the block's end are
    /// read as far as they go, bytes after the image are left alone; each is a
    /// warning. Nil (with a warning) when the fields before the image don't
    /// fit in the block. Throws only when the file can't be read.
    static func read(from source: FileSource, at offset: Int64, length: Int, warnings: inout [MediaWarning]) throws -> FLACPicture? {
        // The fields before the image: 32 bytes of integers plus the two strings.
        guard length >= 32 else {
            warnings.append(
                MediaWarning(
                    .malformed,
                    "picture block of \(length) bytes is shorter than its 32 bytes of fields; "
                        + "picture skipped", offset: offset))
            return nil
        }
        var probe = try source.reader(at: offset + 4, count: 4)
        let mimeLength = Int(try probe.readUInt32())
        guard mimeLength <= length - 32 else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "picture media type of \(mimeLength) bytes in a \(length)-byte block; "
                        + "picture skipped", offset: offset + 4))
            return nil
        }
        var descriptionProbe = try source.reader(at: offset + 8 + Int64(mimeLength), count: 4)
        let descriptionLength = Int(try descriptionProbe.readUInt32())
        guard descriptionLength <= length - 32 - mimeLength else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "picture description of \(descriptionLength) bytes in a \(length)-byte block; "
                        + "picture skipped", offset: offset + 8 + Int64(mimeLength)))
            return nil
        }
        var reader = try source.reader(at: offset, count: 32 + mimeLength + descriptionLength)
        var picture = try FLACPicture(parsingHeader: &reader)
        let room = length - 32 - mimeLength - descriptionLength
        if picture.dataLength > room {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "picture data of \(picture.dataLength) bytes runs past its \(length)-byte "
                        + "block; the \(room) bytes that fit are read", offset: reader.offset - 4))
            picture.dataLength = room
        } else if picture.dataLength < room {
            warnings.append(
                MediaWarning(
                    .malformed,
                    "\(room - picture.dataLength) bytes after the picture data in its "
                        + "\(length)-byte block are left alone", offset: picture.dataOffset + Int64(picture.dataLength)))
        }
        return picture
    }

    /// A picture block body for `artwork` (its bytes are read if they are still
    /// in the file). Width, height, colour depth and palette size all come
    /// from the image header (``ImageInfo/colourDepth(of:)``); when the header
    /// doesn't give all four, all four are 0 ("unknown"), never a mix that
    /// tools such as opusinfo flag.
    init(artwork: Artwork) throws {
        let bytes = [UInt8](try artwork.readBytes())
        let image = ImageInfo(bytes: bytes)
        var size: (width: UInt32, height: UInt32, depth: UInt32, colours: UInt32) = (0, 0, 0, 0)
        if let width = image?.width, let height = image?.height, width > 0, height > 0, let colour = ImageInfo.colourDepth(of: bytes) {
            size = (UInt32(clamping: width), UInt32(clamping: height), UInt32(clamping: colour.depth), UInt32(clamping: colour.colours))
        }
        self.init(
            pictureType: UInt32(artwork.pictureType.rawValue), mimeType: artwork.mimeType, description: artwork.description,
            width: size.width, height: size.height, depth: size.depth, colors: size.colours,
            data: bytes, dataLength: bytes.count, dataOffset: 0)
    }

    init(
        pictureType: UInt32, mimeType: String, description: String, width: UInt32, height: UInt32,
        depth: UInt32, colors: UInt32, data: [UInt8]?, dataLength: Int, dataOffset: Int64
    ) {
        self.pictureType = pictureType
        self.mimeType = mimeType
        self.description = description
        self.width = width
        self.height = height
        self.depth = depth
        self.colors = colors
        self.data = data
        self.dataLength = dataLength
        self.dataOffset = dataOffset
    }

    /// The block body; the image bytes must be in memory.
    func serialized() throws -> [UInt8] {
        guard let data else { throw MediaError(.invalidValue, "picture bytes are not loaded") }
        let mime = Array(mimeType.utf8), text = Array(description.utf8)
        guard mime.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            throw MediaError(.invalidValue, "a FLAC picture's media type must be printable ASCII, not '\(mimeType)'")
        }
        var writer = ByteWriter(capacity: 32 + mime.count + text.count + data.count)
        writer.write(pictureType)
        writer.write(UInt32(mime.count))
        writer.write(mime)
        writer.write(UInt32(text.count))
        writer.write(text)
        writer.write(width)
        writer.write(height)
        writer.write(depth)
        writer.write(colors)
        writer.write(UInt32(data.count))
        writer.write(data)
        return writer.bytes
    }

    /// The picture type as an ``Artwork/PictureType`` (types past 255 read as "other").
    var artworkType: Artwork.PictureType {
        Artwork.PictureType(rawValue: pictureType <= 255 ? UInt8(pictureType) : 0)
    }

    /// An in-memory ``Artwork`` (for pictures decoded from base64).
    func artwork() throws -> Artwork {
        guard let data else { throw MediaError(.invalidValue, "picture bytes are not loaded") }
        var artwork = Artwork(data: Data(data), mimeType: mimeType, pictureType: artworkType, description: description)
        fillSize(&artwork)
        return artwork
    }

    /// An ``Artwork`` whose bytes stay in the file at ``dataOffset``.
    func artwork(source: FileSource, url: URL) -> Artwork {
        var artwork = Artwork(
            source: source, url: url, offset: dataOffset, byteCount: dataLength, mimeType: mimeType,
            pictureType: artworkType, description: description)
        fillSize(&artwork)
        return artwork
    }

    /// The block's width and height, when the image header gave none.
    private func fillSize(_ artwork: inout Artwork) {
        if artwork.width == nil, width > 0 { artwork.width = Int(width) }
        if artwork.height == nil, height > 0 { artwork.height = Int(height) }
    }

    /// The data type of a picture item, from its MIME type.
    static func dataType(of artwork: Artwork) -> MetadataDataType {
        switch artwork.mimeType {
        case "image/jpeg": return .jpeg
        case "image/png": return .png
        case "image/bmp": return .bmp
        case "image/gif": return .gif
        default: return .binary
        }
    }
}

extension FLACPicture {
    /// Parses a whole picture block body held in `reader`.
    init(parsing reader: inout ByteReader) throws {
        var picture = try FLACPicture(parsingHeader: &reader)
        guard picture.dataLength <= reader.remaining else {
            // The offset of the length field that claims too much.
            throw MediaError(
                .sizeOutOfRange, "picture of \(picture.dataLength) bytes, \(reader.remaining) left", offset: picture.dataOffset - 4)
        }
        picture.data = try reader.readBytes(picture.dataLength)
        self = picture
    }
}

extension FLACPicture {
    /// Parses the fields before the image bytes; `dataOffset` is where they start.
    init(parsingHeader reader: inout ByteReader) throws {
        let type = try reader.readUInt32()
        let mimeLength = Int(try reader.readUInt32())
        guard mimeLength <= reader.remaining else {
            throw reader.error(.sizeOutOfRange, "picture media type of \(mimeLength) bytes, \(reader.remaining) left")
        }
        let mime = String(decoding: try reader.readBytes(mimeLength), as: UTF8.self)
        let descriptionLength = Int(try reader.readUInt32())
        guard descriptionLength <= reader.remaining else {
            throw reader.error(.sizeOutOfRange, "picture description of \(descriptionLength) bytes, \(reader.remaining) left")
        }
        let description = String(decoding: try reader.readBytes(descriptionLength), as: UTF8.self)
        let width = try reader.readUInt32(), height = try reader.readUInt32()
        let depth = try reader.readUInt32(), colors = try reader.readUInt32()
        let length = Int(try reader.readUInt32())
        self.init(
            pictureType: type, mimeType: mime, description: description, width: width, height: height,
            depth: depth, colors: colors, data: nil, dataLength: length, dataOffset: reader.offset)
    }
}
