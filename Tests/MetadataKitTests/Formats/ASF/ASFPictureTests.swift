import Foundation
import Testing

@testable import MetadataKit

/// `WM/Picture` values are parsed from a slice of the header's bytes: only
/// the head before the image is looked at, wherever the slice starts.
@Suite struct ASFPictureTests {
    private typealias B = ASFBuilder

    @Test func theHeadIsReadFromASliceAndTheImageStaysInPlace() throws {
        let image = [UInt8](repeating: 0xAB, count: 300)
        let value = [3] + B.le32(image.count) + B.utf16("image/png") + B.utf16("Front ü") + image
        // The value inside larger bytes, as it sits in a header.
        let header = [UInt8](repeating: 0x11, count: 57) + value + [0x22, 0x33]
        let slice = header[57..<57 + value.count]
        let picture = try ASFPicture(parsing: slice, fileOffset: 1000)
        #expect(picture.pictureType == 3)
        #expect(picture.mimeType == "image/png")
        #expect(picture.description == "Front ü")
        #expect(picture.imageCount == image.count)
        #expect(picture.imageOffset == 1000 + Int64(value.count - image.count))
        // Bytes after the image (none in a well-formed value) are allowed.
        #expect(try ASFPicture(parsing: header[57...], fileOffset: 1000).imageCount == image.count)
    }

    @Test func everyCutValueIsRefused() {
        let value = [3] + B.le32(4) + B.utf16("image/jpeg") + B.utf16("") + [1, 2, 3, 4]
        for count in 0..<value.count {
            #expect(throws: MediaError.self, "a value cut to \(count) bytes") {
                try ASFPicture(parsing: value[..<count], fileOffset: 0)
            }
        }
        // A text whose terminating NUL sits on an odd byte is no terminator.
        let odd = [3] + B.le32(0) + [0x41, 0x00, 0x00, 0x42] + [0x00]
        #expect(throws: MediaError.self) { try ASFPicture(parsing: odd[...], fileOffset: 0) }
    }
}
