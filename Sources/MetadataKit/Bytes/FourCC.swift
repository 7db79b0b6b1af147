/// A four-character code: a box type, chunk ID or codec tag.
///
/// Bytes are mapped one-to-one onto ISO 8859-1, so `©nam` (0xA9 'n' 'a' 'm')
/// prints and parses as written in the specs.
public struct FourCC: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes a code from four ISO 8859-1 characters; characters beyond U+00FF
    /// or a wrong length give nil.
    public init?(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 4, scalars.allSatisfy({ $0.value <= 0xFF }) else { return nil }
        rawValue = scalars.reduce(0) { $0 << 8 | $1.value }
    }

    public init(stringLiteral value: String) {
        guard let code = FourCC(value) else { preconditionFailure("not a four-character code: \(value)") }
        self = code
    }

    /// The four bytes, big-endian.
    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// The code as ISO 8859-1 text.
    public var description: String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// True when all four bytes are printable (space to '~', or '©').
    public var isPrintable: Bool {
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0xA9 }
    }
}
