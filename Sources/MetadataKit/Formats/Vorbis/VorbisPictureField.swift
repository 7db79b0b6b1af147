#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Base64 (RFC 4648 §4, the standard alphabet with `=` padding) decoded in
/// pieces: a `METADATA_BLOCK_PICTURE` comment field is a whole FLAC PICTURE
/// block in base64, and a read needs only its first few hundred bytes (the
/// picture's fields and its image header). The image itself is decoded when
/// ``Artwork/data()`` asks for it, and only then is the whole text checked.
///
/// Pieces are decoded from canonical text: characters from the alphabet, a
/// length that is a multiple of four, at most two `=` at the end. Other text
/// (line breaks, stray characters) goes through Foundation's forgiving
/// decoder as a whole, as it did when pictures were decoded while reading.
enum Base64Pieces {
    /// The 6-bit value of each ASCII character of the alphabet, 0xFF for the others (`=` included).
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            values[Int(character)] = UInt8(index)
        }
        return values
    }()

    /// How many `=` end `text`, when its length is a multiple of four (nil otherwise).
    private static func padding(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count % 4 == 0 else { return nil }
        guard text.count >= 4, text[text.count - 1] == UInt8(ascii: "=") else { return 0 }
        return text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1
    }

    /// How many bytes `text` decodes to if it is canonical, from its length alone (nil when
    /// that is not a multiple of four): its characters are checked where pieces are decoded.
    static func claimedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        padding(text).map { text.count / 4 * 3 - $0 }
    }

    /// How many bytes canonical base64 `text` decodes to; nil when it is not canonical.
    static func decodedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let padding = padding(text) else { return nil }
        let valid = values.withUnsafeBufferPointer { values in
            // OR of every value: 0xFF anywhere makes the high bit set.
            var seen: UInt8 = 0
            for character in text[..<(text.count - padding)] { seen |= values[Int(character)] }
            return seen & 0x80 == 0
        }
        return valid ? text.count / 4 * 3 - padding : nil
    }

    /// Bytes `range` of what `text` decodes to (the range within ``claimedCount(_:)``); nil
    /// when a character of the groups that hold them is not from the alphabet, or `=` comes
    /// before the text's last group.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, bytes range: Range<Int>) -> [UInt8]? {
        guard !range.isEmpty else { return [] }
        let firstGroup = range.lowerBound / 3, endGroup = (range.upperBound + 2) / 3
        guard range.lowerBound >= 0, endGroup * 4 <= text.count else { return nil }
        var output = [UInt8](repeating: 0, count: (endGroup - firstGroup) * 3)
        let lastGroup = text.count / 4 - 1
        let valid = values.withUnsafeBufferPointer { values in
            output.withUnsafeMutableBufferPointer { output in
                var seen: UInt8 = 0
                var written = 0
                for group in firstGroup..<endGroup {
                    let at = group * 4
                    let a = values[Int(text[at])], b = values[Int(text[at + 1])]
                    var c = values[Int(text[at + 2])], d = values[Int(text[at + 3])]
                    // Padding, only in the last group: "xx==" or "xxx=".
                    if group == lastGroup, text[at + 3] == UInt8(ascii: "=") {
                        d = 0
                        if text[at + 2] == UInt8(ascii: "=") { c = 0 }
                    }
                    seen |= a | b | c | d
                    let bits = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c & 0x3F) << 6 | UInt32(d & 0x3F)
                    output[written] = UInt8(truncatingIfNeeded: bits >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: bits)
                    written += 3
                }
                return seen & 0x80 == 0
            }
        }
        guard valid else { return nil }
        let skip = range.lowerBound - firstGroup * 3
        return Array(output[skip..<skip + range.count])
    }

    /// Bytes `offset..<offset+count` of what `text` (an ``Artwork`` storage) decodes to: in
    /// pieces when it is canonical, else (checked here, not while reading) with Foundation's
    /// forgiving decoder, as the picture block's image. Nil when neither gives the bytes.
    static func image(_ text: String, offset: Int, count: Int) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            if let total = decodedCount(utf8), offset + count <= total { return decode(utf8, bytes: offset..<offset + count) }
            guard let data = Data(base64Encoded: String(decoding: utf8, as: UTF8.self), options: .ignoreUnknownCharacters) else {
                return nil
            }
            var reader = ByteReader(data)
            guard let picture = try? FLACPicture(parsing: &reader), let bytes = picture.data, bytes.count == count else { return nil }
            return bytes
        }
    }
}

extension VorbisComment {
    /// A base64 `METADATA_BLOCK_PICTURE` value as a picture: the block's
    /// fields and the image header are decoded now, the image when
    /// ``Artwork/data()`` asks (see ``Base64Pieces``). Nil when the value
    /// doesn't decode to a picture block.
    static func decodePictureField(_ value: String) -> Artwork? {
        var text = value
        return text.withUTF8 { utf8 in
            // The fields before the image: 32 bytes of integers and the two strings, usually short.
            guard let total = Base64Pieces.claimedCount(utf8), let head = Base64Pieces.decode(utf8, bytes: 0..<min(total, 1024))
            else { return decodeWholePictureField(value) }
            var reader = ByteReader(head)
            guard let picture = try? FLACPicture(parsingHeader: &reader), picture.dataLength <= total - Int(picture.dataOffset) else {
                return decodeWholePictureField(value)
            }
            let imageOffset = Int(picture.dataOffset), imageCount = picture.dataLength
            let info = ImageInfo(byteCount: imageCount) { offset, count in
                guard offset >= 0, offset < imageCount else { return [] }
                let range = imageOffset + offset..<imageOffset + min(imageCount, offset + count)
                return Base64Pieces.decode(utf8, bytes: range) ?? []
            }
            var artwork = Artwork(
                base64: value, imageOffset: imageOffset, byteCount: imageCount, info: info, mimeType: picture.mimeType,
                pictureType: picture.artworkType, description: picture.description)
            if artwork.width == nil, picture.width > 0 { artwork.width = Int(picture.width) }
            if artwork.height == nil, picture.height > 0 { artwork.height = Int(picture.height) }
            return artwork
        }
    }

    /// The whole value decoded at once (Foundation's decoder, skipping characters outside the alphabet).
    private static func decodeWholePictureField(_ value: String) -> Artwork? {
        guard let data = Data(base64Encoded: value, options: .ignoreUnknownCharacters) else { return nil }
        var reader = ByteReader(data)
        return try? FLACPicture(parsing: &reader).artwork()
    }
}
