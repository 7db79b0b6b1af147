import Foundation
import Testing

@testable import MetadataKit

@Suite struct ForeignMebxTests {
    /// Other writers (Apple devices) number their keys freely: local ids are any u32.
    @Test func localKeyIDsNeedNotBeOneToN() throws {
        func box(_ type: [UInt8], _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(payload.count + 8)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + type + payload
        }
        let id: [UInt8] = [0x6D, 0x64, 0x74, 0x61] // 'mdta' used as a local id, as Apple does
        let key = box(
            id,
            box(Array("keyd".utf8), Array("mdta".utf8) + Array("com.apple.quicktime.location.ISO6709".utf8))
                + box(Array("dtyp".utf8), [0, 0, 0, 0, 0, 0, 0, 1]))
        let entry = box(Array("mebx".utf8), [0, 0, 0, 0, 0, 0, 0, 1] + box(Array("keys".utf8), key))
        let format = try MetadataSampleFormat(sampleEntry: entry)
        #expect(format.keys.map(\.identifier) == ["mdta/com.apple.quicktime.location.ISO6709"])
        let sample = box(id, Array("+48.8577+002.2950/".utf8))
        let items = try format.items(inSample: sample)
        #expect(items.map(\.value) == [.string("+48.8577+002.2950/")])
    }
}
