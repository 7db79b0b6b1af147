import Testing

@testable import MetadataKitBytes

/// The fixed-width integer reads load their bytes at once: both byte orders,
/// any alignment, the position they leave, and `truncated` at the end.
@Suite struct ByteReaderTests {
    private let bytes: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xFA, 0xFB]

    @Test func integersInBothByteOrdersAtEveryAlignment() throws {
        for start in 0..<3 {
            var big = ByteReader(Array(bytes[start...]), fileOffset: 100)
            let b = bytes[start...].map(UInt64.init)
            let s = b.startIndex
            #expect(try big.readUInt16() == UInt16(b[s] << 8 | b[s + 1]))
            #expect(try big.readUInt24() == UInt32(b[s + 2] << 16 | b[s + 3] << 8 | b[s + 4]))
            #expect(try big.readUInt32() == UInt32(b[s + 5] << 24 | b[s + 6] << 16 | b[s + 7] << 8 | b[s + 8]))
            #expect(big.offset == 100 + 9)

            var little = ByteReader(Array(bytes[start...]))
            #expect(try little.readUInt16(.little) == UInt16(b[s + 1] << 8 | b[s]))
            #expect(try little.readUInt24(.little) == UInt32(b[s + 4] << 16 | b[s + 3] << 8 | b[s + 2]))
            #expect(try little.readUInt32(.little) == UInt32(b[s + 8] << 24 | b[s + 7] << 16 | b[s + 6] << 8 | b[s + 5]))
            #expect(little.remaining == bytes.count - start - 9)
        }
        var wide = ByteReader(bytes)
        #expect(try wide.readUInt64() == 0x0001_0203_0405_0607)
        #expect(try wide.readInt16() == 0x0809)
        #expect(try wide.readInt16(.little) == Int16(bitPattern: 0xFBFA))
        #expect(wide.isAtEnd)
        var wideLittle = ByteReader(bytes)
        #expect(try wideLittle.readUInt64(.little) == 0x0706_0504_0302_0100)
        #expect(try wideLittle.readInt32() == Int32(bitPattern: 0x0809_FAFB))
    }

    @Test func aReadPastTheEndThrowsAndMovesNothing() throws {
        var reader = ByteReader(Array(bytes[..<7]), fileOffset: 40)
        _ = try reader.readUInt32()
        let reads: [(inout ByteReader) throws -> Void] = [{ _ = try $0.readUInt32() }, { _ = try $0.readUInt64(.little) }]
        for read in reads {
            var attempt = reader
            let error = try #require(throws: MediaError.self) { try read(&attempt) }
            #expect(error.code == .truncated)
            #expect(error.offset == 44)
            #expect(attempt.offset == 44)
        }
        #expect(try reader.readUInt24(.little) == 0x06_0504)
        #expect(throws: MediaError.self) { try reader.readUInt16() }
    }
}
