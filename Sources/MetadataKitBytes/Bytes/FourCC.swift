/// A four-character code: a box type, chunk ID or codec tag.
///
/// Bytes are mapped one-to-one onto ISO 8859-1, so `©nam` (0xA9 'n' 'a' 'm')
/// prints and parses as written in the specs.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The four bytes as a big-endian integer: the first character is the most
    /// significant byte.
    public var rawValue: UInt32
    public typealias StringLiteralType = StaticString
    public typealias ExtendedGraphemeClusterLiteralType = StaticString
    public typealias UnicodeScalarLiteralType = StaticString

    /// The code whose four bytes, big-endian, are `rawValue`.
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes a code from four ISO 8859-1 characters; characters beyond U+00FF
    /// or a wrong length give nil.
    public init?(_ text: String) {
        // Four ASCII characters (frame IDs, box types): from the UTF-8 bytes at once.
        if text.utf8.count == 4 {
            var value: UInt32 = 0
            for byte in text.utf8 { value = value << 8 | UInt32(byte) }
            if value & 0x8080_8080 == 0 {
                rawValue = value
                return
            }
        }
        var value: UInt32 = 0
        var count = 0
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF, count < 4 else { return nil }
            value = value << 8 | scalar.value
            count += 1
        }
        guard count == 4 else { return nil }
        rawValue = value
    }

    /// A code written as a literal, such as `"moov"` or `"©nam"`. Four ASCII
    /// characters take the fast path (the optimizer folds them into a
    /// constant: literals are compared against on every box read).
    @inlinable
    public init(stringLiteral value: StaticString) {
        if value.utf8CodeUnitCount == 4 {
            let bytes = value.utf8Start
            if (bytes[0] | bytes[1] | bytes[2] | bytes[3]) & 0x80 == 0 {
                self.init(UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
                return
            }
        }
        self.init(latin1Literal: value)
    }

    /// A literal of four characters of at most U+00FF: each one UTF-8 byte,
    /// or two (a lead byte C2 or C3), as in iTunes' "©nam". Decoded from the
    /// literal's bytes, without making a `String`.
    @usableFromInline package init(latin1Literal value: StaticString) {
        if value.hasPointerRepresentation, value.utf8CodeUnitCount <= 8 {
            let bytes = value.utf8Start
            let end = value.utf8CodeUnitCount
            var code: UInt32 = 0
            var count = 0
            var index = 0
            while index < end, count < 4 {
                let byte = bytes[index]
                if byte < 0x80 {
                    code = code << 8 | UInt32(byte)
                    index += 1
                } else if byte & 0xFE == 0xC2, index + 1 < end, bytes[index + 1] & 0xC0 == 0x80 {
                    code = code << 8 | UInt32(byte & 0x03) << 6 | UInt32(bytes[index + 1] & 0x3F)
                    index += 2
                } else {
                    break
                }
                count += 1
            }
            if count == 4, index == end {
                self.init(code)
                return
            }
        }
        self.init(literal: value.description)
    }

    /// A code from text that must be four ISO 8859-1 characters.
    public init(stringLiteral value: String) {
        self.init(literal: value)
    }

    @usableFromInline package init(literal value: String) {
        guard let code = FourCC(value) else { preconditionFailure("not a four-character code: \(value)") }
        self = code
    }

    /// The four bytes, big-endian.
    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// The code as ISO 8859-1 text.
    public var description: String {
        if rawValue & 0x8080_8080 == 0 {
            return withUnsafeBytes(of: rawValue.bigEndian) { String(decoding: $0, as: UTF8.self) }
        }
        // From the code's own bytes (its `bytes` array cost an allocation per
        // iTunes `©nam`-like key read); eight UTF-8 bytes at most: a small string.
        return withUnsafeBytes(of: rawValue.bigEndian) { TextDecoding.latin1($0) }
    }

    /// True when all four bytes are printable (space to '~', or '©').
    public var isPrintable: Bool {
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0xA9 }
    }
}
