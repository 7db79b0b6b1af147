import Foundation
import Testing

@testable import MetadataKit

/// The read path's fast decoders against the straightforward code they
/// replace: the same answer for every input, on seeded random inputs (the seed
/// is in every failure message).
@Suite struct FastPathTests {
    @Test func utf16DecodingMatchesTheStandardLibrary() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        // Units that exercise every branch: ASCII, two- and three-byte scalars,
        // high and low surrogates (paired, unpaired, reversed), zero.
        let palette: [UInt16] = [
            0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x4E2D, 0xFFFD, 0xFFFF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00, 0,
        ]
        for round in 0..<2000 {
            let count = Int(generator.next() % 12)
            let units = (0..<count).map { _ in
                generator.next() % 3 == 0
                    ? UInt16(truncatingIfNeeded: generator.next()) : palette[Int(generator.next() % UInt64(palette.count))]
            }
            let expected = String(decoding: units, as: UTF16.self)
            for bigEndian in [false, true] {
                var bytes = units.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
                if generator.next() % 4 == 0 { bytes.append(0x5A) } // an odd last byte is ignored
                let decoded = TextDecoding.utf16(bytes[...], bigEndian: bigEndian)
                #expect(decoded == expected, "seed \(seed), round \(round), units \(units.map { String($0, radix: 16) })")
                #expect(Array(decoded.utf8) == Array(expected.utf8), "seed \(seed), round \(round)")
            }
        }
    }

    @Test func latin1DecodingKeepsEveryByte() {
        let all = [UInt8](0...255)
        let decoded = TextDecoding.latin1(all)
        #expect(decoded.unicodeScalars.map(\.value) == all.map(UInt32.init))
        #expect(TextDecoding.latin1([UInt8]("plain".utf8)) == "plain")
        #expect(TextDecoding.latin1([0x43, 0x61, 0x66, 0xE9]) == "Café")
        #expect(TextDecoding.latin1([]) == "")
    }

    @Test func positionParsingMatchesTheCharacterReference() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        // Digits, separators, spaces, letters, a combining mark (which joins the
        // digit before it into one non-digit character), non-ASCII digits.
        let palette = ["1", "2", "0", "9", "/", " ", "\t", "a", "é", "\u{301}", "٣", "+", "-", "\r\n", "99999999999999999999"]
        for round in 0..<5000 {
            let text = (0..<Int(generator.next() % 8)).map { _ in palette[Int(generator.next() % UInt64(palette.count))] }.joined()
            let fast = PositionMetadataConverter.parse(text)
            let reference = PositionMetadataConverter.parseCharacters(text)
            #expect(
                fast?.number == reference?.number && fast?.total == reference?.total,
                "seed \(seed), round \(round), text \(text.debugDescription)")
        }
        #expect(PositionMetadataConverter.parse(" 3 / 12 ")! == (3, 12))
        #expect(PositionMetadataConverter.parse("3\u{301}/12")! == (nil, 12))
        #expect(PositionMetadataConverter.parse("99999999999999999999/4")! == (nil, 4))
        #expect(PositionMetadataConverter.parse("007")! == (7, nil))
    }

    @Test func fieldValuesListWhatTheSubscriptGives() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        let fields = MetadataField.allCases
        for round in 0..<300 {
            var metadata = Metadata()
            for _ in 0..<Int(generator.next() % 30) {
                let field = fields[Int(generator.next() % UInt64(fields.count))]
                let values: [DisplayValue?] = [.text("t\(round)"), .texts(["a", "b\(round)"]), .integer(Int(generator.next() % 100)), nil]
                metadata[field] = values[Int(generator.next() % UInt64(values.count))]
            }
            let expected = fields.compactMap { field in metadata[field].map { (field, $0) } }
            let listed = metadata.fieldValues
            #expect(listed.map(\.field) == expected.map(\.0), "seed \(seed), round \(round)")
            #expect(listed.map(\.value) == expected.map(\.1), "seed \(seed), round \(round)")
        }
    }
}

/// APE keys are uppercased byte by byte when they are ASCII.
@Suite struct APEKeyFastPathTests {
    @Test func asciiUppercasingMatchesTheStandardLibrary() {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        for round in 0..<3000 {
            let count = Int(generator.next() % 12) + 1
            // Mostly printable ASCII; some Latin-1 bytes (invalid keys, read
            // as their Latin-1 characters) take the Unicode path.
            let bytes = (0..<count).map { _ in
                generator.next() % 8 == 0 ? UInt8(0x80 + generator.next() % 128) : UInt8(0x20 + generator.next() % 95)
            }
            let item = APETagItem(offset: 0, keyBytes: bytes, flags: 0, valueOffset: 0, valueSize: 0)
            #expect(item.uppercasedKey == item.key.uppercased(), "seed \(seed), round \(round), key bytes \(bytes)")
        }
    }
}
