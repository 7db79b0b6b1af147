import Testing

@testable import MetadataKitBytes

/// Four-character codes from literals and back to text: iTunes' keys start
/// with "©" (0xA9), a character of two UTF-8 bytes in the literal.
@Suite struct FourCCTests {
    @Test func literalsOfOneAndTwoByteCharactersGiveTheStoredBytes() {
        #expect(FourCC(stringLiteral: "moov").rawValue == 0x6D6F_6F76)
        #expect(("©nam" as FourCC).rawValue == 0xA96E_616D)
        #expect(("a©b©" as FourCC).rawValue == 0x61A9_62A9)
        #expect(("ÿÀ\u{80}z" as FourCC).rawValue == 0xFFC0_807A)
        // Text (a String, not a literal) of four such characters, or not.
        let texts = ["©day", "©da", "€abc", "abcde"]
        #expect(texts.map { FourCC($0)?.rawValue } == [0xA964_6179, nil, nil, nil])
    }

    @Test func descriptionIsTheCharactersOfTheFourBytes() {
        #expect(FourCC(0x6D6F_6F76).description == "moov")
        #expect(FourCC(0xA96E_616D).description == "©nam")
        #expect(FourCC(0xFF00_80A9).description == "\u{FF}\u{0}\u{80}©")
        for raw: UInt32 in [0x0000_0000, 0x8080_8080, 0xA9A9_A9A9, 0x7F80_FF01, 0x2020_2020] {
            #expect(FourCC(FourCC(raw).description) == FourCC(raw), "raw \(raw)")
        }
    }
}
