#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Text decoding for metadata values.
enum MP4Text {
    /// `bytes` without trailing NUL bytes (some writers terminate strings).
    static func trimmingNULs(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        return bytes[0..<end]
    }

    /// UTF-8 text; invalid UTF-8 is read as Mac OS Roman, as old QuickTime
    /// writers stored it.
    static func utf8(_ bytes: [UInt8]) -> String {
        let trimmed = trimmingNULs(bytes)
        if let text = String(validating: trimmed, as: UTF8.self) { return text }
        return macOSRoman(trimmed)
    }

    /// Mac OS Roman text (QTFF "User data text strings": text whose language
    /// is a Macintosh language code is in that language's Mac script; Roman
    /// for the Western languages). Bytes below 0x80 are ASCII.
    static func macOSRoman<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let code = byte < 0x80 ? UInt32(byte) : UInt32(macOSRomanHighHalf[Int(byte) - 0x80])
            scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// The characters of bytes 0x80–0xFF in Mac OS Roman, from Unicode's
    /// mapping file ROMAN.TXT (Apple, version 2.0: 0xDB is the euro sign,
    /// 0xF0 the Apple logo in the private use area).
    static let macOSRomanHighHalf: [UInt16] = [
        0x00C4, 0x00C5, 0x00C7, 0x00C9, 0x00D1, 0x00D6, 0x00DC, 0x00E1, // 0x80
        0x00E0, 0x00E2, 0x00E4, 0x00E3, 0x00E5, 0x00E7, 0x00E9, 0x00E8, // 0x88
        0x00EA, 0x00EB, 0x00ED, 0x00EC, 0x00EE, 0x00EF, 0x00F1, 0x00F3, // 0x90
        0x00F2, 0x00F4, 0x00F6, 0x00F5, 0x00FA, 0x00F9, 0x00FB, 0x00FC, // 0x98
        0x2020, 0x00B0, 0x00A2, 0x00A3, 0x00A7, 0x2022, 0x00B6, 0x00DF, // 0xA0
        0x00AE, 0x00A9, 0x2122, 0x00B4, 0x00A8, 0x2260, 0x00C6, 0x00D8, // 0xA8
        0x221E, 0x00B1, 0x2264, 0x2265, 0x00A5, 0x00B5, 0x2202, 0x2211, // 0xB0
        0x220F, 0x03C0, 0x222B, 0x00AA, 0x00BA, 0x03A9, 0x00E6, 0x00F8, // 0xB8
        0x00BF, 0x00A1, 0x00AC, 0x221A, 0x0192, 0x2248, 0x2206, 0x00AB, // 0xC0
        0x00BB, 0x2026, 0x00A0, 0x00C0, 0x00C3, 0x00D5, 0x0152, 0x0153, // 0xC8
        0x2013, 0x2014, 0x201C, 0x201D, 0x2018, 0x2019, 0x00F7, 0x25CA, // 0xD0
        0x00FF, 0x0178, 0x2044, 0x20AC, 0x2039, 0x203A, 0xFB01, 0xFB02, // 0xD8
        0x2021, 0x00B7, 0x201A, 0x201E, 0x2030, 0x00C2, 0x00CA, 0x00C1, // 0xE0
        0x00CB, 0x00C8, 0x00CD, 0x00CE, 0x00CF, 0x00CC, 0x00D3, 0x00D4, // 0xE8
        0xF8FF, 0x00D2, 0x00DA, 0x00DB, 0x00D9, 0x0131, 0x02C6, 0x02DC, // 0xF0
        0x00AF, 0x02D8, 0x02D9, 0x02DA, 0x00B8, 0x02DD, 0x02DB, 0x02C7, // 0xF8
    ]

    /// UTF-16 big-endian text, honouring a byte-order mark.
    static func utf16BigEndian(_ bytes: [UInt8]) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 0
        var bigEndian = true
        if bytes.count >= 2 {
            if bytes[0] == 0xFE && bytes[1] == 0xFF {
                index = 2
            } else if bytes[0] == 0xFF && bytes[1] == 0xFE {
                index = 2
                bigEndian = false
            }
        }
        while index + 1 < bytes.count {
            units.append(
                bigEndian
                    ? UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                    : UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index]))
            index += 2
        }
        while units.last == 0 { units.removeLast() }
        return String(decoding: units, as: UTF16.self)
    }

    /// An ISO 639-2/T code packed in 15 bits (three letters, each minus 0x60, in
    /// 5 bits; QTFF "Language code values"), such as `eng` or `und`. Codes
    /// below 0x400 are Macintosh language codes and give nil, as does 0x7FFF
    /// ("unspecified") and anything that is not three lowercase letters.
    static func packedLanguage(_ code: UInt16) -> String? {
        guard code >= 0x400, code != 0x7FFF else { return nil }
        let letters = [(code >> 10) & 0x1F, (code >> 5) & 0x1F, code & 0x1F].map { UInt8($0) + 0x60 }
        guard letters.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return nil }
        return String(decoding: letters, as: UTF8.self)
    }
}
