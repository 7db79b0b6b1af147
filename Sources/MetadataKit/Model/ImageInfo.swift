#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Format and pixel size of an image, from its header only.
///
/// Understands JPEG (SOFn markers), PNG (IHDR), GIF (logical screen),
/// BMP (BITMAPINFOHEADER and the older core header) and WebP (VP8, VP8L, VP8X).
struct ImageInfo: Hashable {
    var mimeType: String
    var width: Int?
    var height: Int?

    /// How far into a JPEG the scan for a frame header goes (EXIF/ICC segments
    /// may precede it).
    private static let jpegScanLimit = 1 << 20

    init(mimeType: String, width: Int?, height: Int?) {
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }

    /// Parses an image held in memory.
    init?(bytes: [UInt8]) {
        self.init(byteCount: bytes.count) { offset, count in
            guard offset >= 0, offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// Parses an image of `byteCount` bytes at `offset` in `source`.
    init?(source: FileSource, offset: Int64, byteCount: Int) {
        self.init(byteCount: byteCount) { relative, count in
            guard relative >= 0, relative < byteCount else { return [] }
            return (try? source.getAvailableBytes(at: offset + Int64(relative), count: min(count, byteCount - relative))) ?? []
        }
    }

    /// `read(offset, count)` returns up to `count` bytes of the image at `offset`.
    init?(byteCount: Int, read: (Int, Int) -> [UInt8]) {
        let head = read(0, 32)
        func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le32(_ b: [UInt8], _ i: Int) -> Int { le16(b, i) | le16(b, i + 2) << 16 }
        func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func be32(_ b: [UInt8], _ i: Int) -> Int { be16(b, i) << 16 | be16(b, i + 2) }

        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            mimeType = "image/png"
            if head.count >= 24, head[12..<16].elementsEqual(Array("IHDR".utf8)) {
                width = be32(head, 16)
                height = be32(head, 20)
            }
        } else if head.starts(with: [0xFF, 0xD8]) {
            mimeType = "image/jpeg"
            (width, height) = Self.jpegSize(byteCount: byteCount, read: read) ?? (nil, nil)
        } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            mimeType = "image/gif"
            if head.count >= 10 {
                width = le16(head, 6)
                height = le16(head, 8)
            }
        } else if head.starts(with: Array("BM".utf8)) {
            mimeType = "image/bmp"
            if head.count >= 26 {
                let headerSize = le32(head, 14)
                if headerSize == 12 {
                    width = le16(head, 18)
                    height = le16(head, 20)
                } else {
                    width = le32(head, 18)
                    height = abs(Int(Int32(truncatingIfNeeded: le32(head, 22))))
                }
            }
        } else if head.count >= 16, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual(Array("WEBP".utf8)) {
            mimeType = "image/webp"
            let chunk = read(12, 18)
            if chunk.count >= 18 {
                let kind = String(decoding: chunk[0..<4], as: UTF8.self)
                switch kind {
                case "VP8 " where chunk.count >= 18 && chunk[11] == 0x9D && chunk[12] == 0x01 && chunk[13] == 0x2A:
                    width = le16(chunk, 14) & 0x3FFF
                    height = le16(chunk, 16) & 0x3FFF
                case "VP8L" where chunk[8] == 0x2F:
                    let bits = le32(chunk, 9)
                    width = (bits & 0x3FFF) + 1
                    height = (bits >> 14 & 0x3FFF) + 1
                case "VP8X":
                    width = (Int(chunk[12]) | Int(chunk[13]) << 8 | Int(chunk[14]) << 16) + 1
                    height = (Int(chunk[15]) | Int(chunk[16]) << 8 | Int(chunk[17]) << 16) + 1
                default:
                    break
                }
            }
        } else {
            return nil
        }
    }

    /// Walks JPEG marker segments to the first SOFn (ITU T.81 B.2.2).
    private static func jpegSize(byteCount: Int, read: (Int, Int) -> [UInt8]) -> (Int, Int)? {
        // The segments before the frame header are read in blocks of 1 KiB (usually
        // one): a read per marker made an array per marker.
        var block: [UInt8] = []
        var blockStart = 0
        func bytes(_ offset: Int, _ count: Int) -> ArraySlice<UInt8>? {
            if offset < blockStart || offset + count > blockStart + block.count {
                block = read(offset, max(count, 1024))
                blockStart = offset
            }
            guard offset + count <= blockStart + block.count else { return nil }
            return block[(offset - blockStart)..<(offset - blockStart + count)]
        }
        var offset = 2
        let limit = min(byteCount, jpegScanLimit)
        while offset + 4 <= limit {
            guard let marker = bytes(offset, 4) else { return nil }
            let first = marker.startIndex
            if marker[first] != 0xFF { return nil }
            let code = marker[first + 1]
            if code == 0xFF {
                offset += 1
                continue
            } // fill byte
            if code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 {
                offset += 2
                continue
            }
            let length = Int(marker[first + 2]) << 8 | Int(marker[first + 3])
            guard length >= 2 else { return nil }
            let isFrameHeader = (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
            if isFrameHeader {
                guard let frame = bytes(offset + 4, 5) else { return nil }
                let at = frame.startIndex
                let height = Int(frame[at + 1]) << 8 | Int(frame[at + 2])
                let width = Int(frame[at + 3]) << 8 | Int(frame[at + 4])
                return (width, height)
            }
            if code == 0xD9 || code == 0xDA { return nil }
            offset += 2 + length
        }
        return nil
    }
}

extension ImageInfo {
    /// Bits per pixel and palette size of an image held in memory, from its
    /// header, as a FLAC PICTURE block states them (RFC 9639 §8.8: colour
    /// depth, and the number of colours of an indexed picture, else 0):
    ///
    /// - PNG: IHDR bit depth × samples per pixel (grey 1, RGB 3, palette 1,
    ///   grey + alpha 2, RGBA 4); a palette image's colours from its PLTE
    ///   chunk (length / 3).
    /// - JPEG: sample precision × components of the first SOFn (ITU T.81 B.2.2).
    /// - GIF: bits per palette index from the logical screen's global colour
    ///   table size, which gives the colours (GIF89a §18).
    /// - BMP: biBitCount; colours from biClrUsed (or 2^bits) up to 8 bits.
    ///
    /// Nil for other formats or a header that is cut short.
    static func colourDepth(of bytes: [UInt8]) -> (depth: Int, colours: Int)? {
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        func le16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 29, bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
            let samples: Int
            switch bytes[25] {
            case 0, 3: samples = 1
            case 2: samples = 3
            case 4: samples = 2
            case 6: samples = 4
            default: return nil
            }
            let depth = Int(bytes[24]) * samples
            guard bytes[25] == 3 else { return (depth, 0) }
            // Walk the chunks after IHDR (length, type, data, CRC) to PLTE.
            var offset = 8
            while offset + 8 <= bytes.count {
                let length = be32(offset)
                if bytes[offset + 4..<offset + 8].elementsEqual(Array("PLTE".utf8)) { return (depth, length / 3) }
                if bytes[offset + 4..<offset + 8].elementsEqual(Array("IDAT".utf8)) { break }
                guard length <= bytes.count - offset - 12 else { break }
                offset += 12 + length
            }
            return (depth, 0)
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            var offset = 2
            let limit = min(bytes.count, jpegScanLimitForDepth)
            while offset + 4 <= limit {
                guard bytes[offset] == 0xFF else { return nil }
                let code = bytes[offset + 1]
                if code == 0xFF {
                    offset += 1
                    continue
                }
                if code == 0xD8 || (0xD0...0xD7).contains(code) || code == 0x01 {
                    offset += 2
                    continue
                }
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                guard length >= 2 else { return nil }
                if (0xC0...0xCF).contains(code), code != 0xC4, code != 0xC8, code != 0xCC {
                    guard offset + 9 < bytes.count else { return nil }
                    return (Int(bytes[offset + 4]) * Int(bytes[offset + 9]), 0) // precision × components
                }
                if code == 0xD9 || code == 0xDA { return nil }
                offset += 2 + length
            }
            return nil
        }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            guard bytes.count >= 11, bytes[10] & 0x80 != 0 else { return nil } // no global colour table
            let bits = Int(bytes[10] & 0x07) + 1
            return (bits, 1 << bits)
        }
        if bytes.starts(with: Array("BM".utf8)), bytes.count >= 30 {
            let headerSize = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
            let bits = headerSize == 12 ? le16(24) : le16(28)
            guard bits > 0 else { return nil }
            guard bits <= 8 else { return (bits, 0) }
            let used =
                headerSize >= 40 && bytes.count >= 50
                ? Int(bytes[46]) | Int(bytes[47]) << 8 | Int(bytes[48]) << 16 | Int(bytes[49]) << 24 : 0
            return (bits, used > 0 && used <= 1 << bits ? used : 1 << bits)
        }
        return nil
    }

    /// How far into a JPEG ``colourDepth(of:)`` looks for the frame header.
    private static let jpegScanLimitForDepth = 1 << 20
}
