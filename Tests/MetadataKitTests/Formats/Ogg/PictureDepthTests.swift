import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Width, height, colour depth and palette size of new picture blocks come
/// from the image header together, or are all 0 (RFC 9639 §8.8), for image
/// headers built byte by byte.
@Suite struct PictureDepthTests {
    /// SOI, then a SOFn frame header of `components` components at `precision` bits.
    static func jpeg(marker: UInt8 = 0xC0, precision: UInt8 = 8, components: UInt8, width: UInt16 = 7, height: UInt16 = 5) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46] // a short APP0 to skip
        bytes += [0xFF, marker, 0x00, UInt8(8 + 3 * Int(components)), precision]
        bytes += [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), components]
        for index in 0..<components { bytes += [index + 1, 0x11, 0] }
        return bytes + [0xFF, 0xD9]
    }

    /// A GIF89a logical screen with the packed field `packed`.
    static func gif(packed: UInt8) -> [UInt8] {
        Array("GIF89a".utf8) + [5, 0, 4, 0, packed, 0, 0] + [UInt8](repeating: 0, count: 3 * 256) + [0x3B]
    }

    /// A PNG signature and IHDR of `bitDepth` and `colourType`, then a PLTE of `entries` entries.
    static func png(bitDepth: UInt8, colourType: UInt8, entries: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 6, 0, 0, 0, 3, bitDepth, colourType, 0, 0, 0] + [0, 0, 0, 0]
        if entries > 0 {
            bytes += [0, 0, UInt8((3 * entries) >> 8), UInt8((3 * entries) & 0xFF)] + Array("PLTE".utf8)
            bytes += [UInt8](repeating: 0x80, count: 3 * entries) + [0, 0, 0, 0]
        }
        return bytes + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    @Test func depthAndColoursFromEachHeader() {
        func depth(_ bytes: [UInt8]) -> [Int]? { ImageInfo.colourDepth(of: bytes).map { [$0.depth, $0.colours] } }
        #expect(depth(ID3Builder.tinyPNG) == [24, 0]) // 8-bit RGB
        #expect(depth(Self.png(bitDepth: 16, colourType: 6)) == [64, 0]) // 16-bit RGBA
        #expect(depth(Self.png(bitDepth: 8, colourType: 4)) == [16, 0]) // grey + alpha
        #expect(depth(Self.png(bitDepth: 4, colourType: 3, entries: 13)) == [4, 13])
        #expect(depth(Self.png(bitDepth: 8, colourType: 5)) == nil) // no such colour type
        #expect(depth(Self.jpeg(components: 3)) == [24, 0])
        #expect(depth(Self.jpeg(components: 1)) == [8, 0])
        #expect(depth(Self.jpeg(marker: 0xC2, precision: 12, components: 1)) == [12, 0]) // progressive, 12-bit
        #expect(depth(Self.jpeg(marker: 0xC4, components: 3)) == nil) // DHT is not a frame header; then EOI
        #expect(depth(Self.gif(packed: 0xF7)) == [8, 256]) // global table of 256 colours
        #expect(depth(Self.gif(packed: 0x91)) == [2, 4])
        #expect(depth(Self.gif(packed: 0x70)) == nil) // no global colour table
        #expect(depth(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8L".utf8) + [UInt8](repeating: 0, count: 20)) == nil)
        #expect(depth(Array(ID3Builder.tinyPNG.prefix(20))) == nil) // cut short
    }

    @Test func newPictureBlocksStateAllFourOrNone() throws {
        func fields(_ bytes: [UInt8]) throws -> [UInt32] {
            let picture = try FLACPicture(artwork: Artwork(data: Data(bytes)))
            return [picture.width, picture.height, picture.depth, picture.colors]
        }
        #expect(try fields(ID3Builder.tinyPNG) == [3, 2, 24, 0])
        #expect(try fields(Self.jpeg(components: 1)) == [7, 5, 8, 0])
        #expect(try fields(Self.gif(packed: 0x91)) == [5, 4, 2, 4])
        #expect(try fields(Self.png(bitDepth: 8, colourType: 3, entries: 200)) == [6, 3, 8, 200])
        // Width and height known, depth not (a GIF without a palette, a WebP): all four 0.
        #expect(try fields(Self.gif(packed: 0x70)) == [0, 0, 0, 0])
        let webp =
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8L".utf8) + [5, 0, 0, 0, 0x2F, 0x04, 0x80, 0x00, 0x00] + [0, 0, 0, 0, 0]
        #expect(try fields(webp) == [0, 0, 0, 0])
        // A Vorbis comment picture field is the same block, base64-encoded.
        let items = [
            MetadataItem(
                keySpace: .vorbis, key: VorbisComment.pictureKey, value: .picture(Artwork(data: Data(Self.jpeg(components: 3)))),
                dataType: .jpeg)
        ]
        let comment = try VorbisComment(vendor: "v").updated(for: items, picturesAsFields: true).comment
        let decoded = try #require(Data(base64Encoded: comment.fields[0].value))
        var reader = ByteReader(decoded)
        let picture = try FLACPicture(parsing: &reader)
        #expect([picture.width, picture.height, picture.depth, picture.colors] == [7, 5, 24, 0])
    }
}
