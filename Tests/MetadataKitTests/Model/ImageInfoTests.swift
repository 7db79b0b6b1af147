import Foundation
import Testing

@testable import MetadataKit

@Suite struct ImageInfoTests {
    /// A 3×2 PNG (IHDR only is parsed; the rest need not be valid for the size).
    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        + [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0, 0, 0, 0, 0]

    @Test func pngGifBmpJpegWebpSizes() {
        #expect(ImageInfo(bytes: Self.png) == ImageInfo(mimeType: "image/png", width: 3, height: 2))
        let gif = Array("GIF89a".utf8) + [10, 0, 20, 0, 0, 0, 0]
        #expect(ImageInfo(bytes: gif) == ImageInfo(mimeType: "image/gif", width: 10, height: 20))
        var bmp = [UInt8](repeating: 0, count: 30)
        bmp[0] = 0x42
        bmp[1] = 0x4D
        bmp[14] = 40
        bmp[18] = 7
        bmp[22] = 0xFB
        bmp[23] = 0xFF
        bmp[24] = 0xFF
        bmp[25] = 0xFF
        #expect(ImageInfo(bytes: bmp) == ImageInfo(mimeType: "image/bmp", width: 7, height: 5))
        // SOI, APP0 (length 16), SOF0 height 480 width 640
        let jpeg: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + [UInt8](repeating: 0, count: 14)
            + [0xFF, 0xC0, 0, 17, 8, 0x01, 0xE0, 0x02, 0x80, 3]
        #expect(ImageInfo(bytes: jpeg) == ImageInfo(mimeType: "image/jpeg", width: 640, height: 480))
        let webp =
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
            + [0x3F, 0x01, 0x00, 0xEF, 0x00, 0x00]
        #expect(ImageInfo(bytes: webp) == ImageInfo(mimeType: "image/webp", width: 320, height: 240))
        #expect(ImageInfo(bytes: Array("not an image".utf8)) == nil)
    }

    @Test func truncatedJpegHasNoSize() {
        #expect(ImageInfo(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0, 200]) == ImageInfo(mimeType: "image/jpeg", width: nil, height: nil))
    }

    @Test func artworkFromDataKeepsBytes() async throws {
        let artwork = Artwork(data: Data(Self.png))
        #expect(artwork.mimeType == "image/png")
        #expect(artwork.width == 3 && artwork.height == 2)
        #expect(try await artwork.data() == Data(Self.png))
    }
}
