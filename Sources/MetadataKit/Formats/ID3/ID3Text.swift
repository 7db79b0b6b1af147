#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The text encodings of ID3v2 frames (ID3v2.4.0 structure §4, ID3v2.3.0 §3.3).
///
/// | byte | encoding | terminator |
/// |---|---|---|
/// | 0 | ISO-8859-1 | `00` |
/// | 1 | UTF-16 with BOM (v2.2/v2.3: UCS-2) | `00 00` |
/// | 2 | UTF-16BE without BOM (v2.4 only) | `00 00` |
/// | 3 | UTF-8 (v2.4 only) | `00` |
///
/// Encodings 2 and 3 are accepted in every version, as other readers do.
enum ID3TextEncoding: UInt8, Sendable {
    case latin1 = 0
    case utf16 = 1
    case utf16BigEndian = 2
    case utf8 = 3

    /// Width of a code unit, and so of the terminator, in bytes.
    var unitWidth: Int { self == .utf16 || self == .utf16BigEndian ? 2 : 1 }

    /// The encoding a data type names; nil for non-text types.
    init?(_ dataType: MetadataDataType) {
        switch dataType {
        case .latin1: self = .latin1
        case .utf16: self = .utf16
        case .utf16BigEndian: self = .utf16BigEndian
        case .utf8: self = .utf8
        default: return nil
        }
    }

    /// The data type items in this encoding report.
    var dataType: MetadataDataType {
        switch self {
        case .latin1: return .latin1
        case .utf16: return .utf16
        case .utf16BigEndian: return .utf16BigEndian
        case .utf8: return .utf8
        }
    }
}

/// Splitting and decoding of encoded ID3v2 strings.
enum ID3Text {
    /// The index in `bytes` of the first terminator at or after `start`, nil
    /// when there is none. UTF-16 terminators are two zero bytes on a code-unit
    /// boundary counted from `start` (a `00` high byte of one unit followed by
    /// the `00` low byte of the next is not a terminator).
    static func terminatorIndex(in bytes: [UInt8], from start: Int, encoding: ID3TextEncoding) -> Int? {
        terminatorIndex(in: bytes[...], from: start, encoding: encoding)
    }

    /// ``terminatorIndex(in:from:encoding:)`` in a slice (its own indices).
    static func terminatorIndex(in bytes: ArraySlice<UInt8>, from start: Int, encoding: ID3TextEncoding) -> Int? {
        if encoding.unitWidth == 1 {
            var index = start
            while index < bytes.endIndex {
                if bytes[index] == 0 { return index }
                index += 1
            }
            return nil
        }
        var index = start
        while index + 1 < bytes.endIndex {
            if bytes[index] == 0 && bytes[index + 1] == 0 { return index }
            index += 2
        }
        return nil
    }

    /// Reads one terminated string from `bytes` at `index`, advancing `index`
    /// past its terminator. Returns nil when no terminator is found (`index`
    /// is left unchanged).
    static func readTerminated(
        _ bytes: [UInt8], at index: inout Int, encoding: ID3TextEncoding,
        byteOrder: inout Endianness?
    ) -> String? {
        guard let end = terminatorIndex(in: bytes, from: index, encoding: encoding) else { return nil }
        let text = decode(bytes[index..<end], encoding: encoding, byteOrder: &byteOrder)
        index = end + encoding.unitWidth
        return text
    }

    /// Splits `bytes` (a text frame's strings, ID3v2.4.0 structure §4.2) on
    /// terminators and decodes each string. A terminator at the very end is
    /// dropped, and so are empty strings at the end (padding some writers
    /// leave); at least one string is returned.
    static func decodeList(_ bytes: ArraySlice<UInt8>, encoding: ID3TextEncoding) -> [String] {
        var strings: [String] = []
        var byteOrder: Endianness?
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let end = terminatorIndex(in: bytes, from: index, encoding: encoding) ?? bytes.endIndex
            strings.append(decode(bytes[index..<end], encoding: encoding, byteOrder: &byteOrder))
            index = end + encoding.unitWidth
        }
        while strings.count > 1 && strings.last?.isEmpty == true { strings.removeLast() }
        return strings.isEmpty ? [""] : strings
    }

    /// ``decodeList(_:encoding:)`` as an item's value: one string, or the
    /// list when there are several. Most frames hold one string (nothing but
    /// zeros after its terminator, which decode to the empty strings the
    /// list drops): that one is decoded without making a list.
    static func decodeValue(_ bytes: ArraySlice<UInt8>, encoding: ID3TextEncoding) -> MetadataValue {
        let end = terminatorIndex(in: bytes, from: bytes.startIndex, encoding: encoding)
        if end.map({ bytes[$0...].allSatisfy { $0 == 0 } }) ?? true {
            var byteOrder: Endianness?
            return .string(decode(bytes[bytes.startIndex..<(end ?? bytes.endIndex)], encoding: encoding, byteOrder: &byteOrder))
        }
        let strings = decodeList(bytes, encoding: encoding)
        return strings.count == 1 ? .string(strings[0]) : .strings(strings)
    }

    /// Decodes one string without its terminator; a trailing terminator, if
    /// present, is ignored.
    ///
    /// UTF-16 (encoding 1): each string may start with its own BOM. A string
    /// without a BOM keeps the byte order of the previous string of the same
    /// frame (`byteOrder`), and the first one defaults to little-endian, the
    /// order of the Windows writers that omit it (mutagen does the same on
    /// common machines). Invalid sequences become U+FFFD; an odd last byte is
    /// dropped.
    static func decode(_ bytes: ArraySlice<UInt8>, encoding: ID3TextEncoding, byteOrder: inout Endianness?) -> String {
        var bytes = bytes
        switch encoding {
        case .latin1:
            while bytes.last == 0 { bytes.removeLast() }
            return TextDecoding.latin1(bytes)
        case .utf8:
            while bytes.last == 0 { bytes.removeLast() }
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            return String(decoding: bytes, as: UTF8.self)
        case .utf16, .utf16BigEndian:
            var order: Endianness = encoding == .utf16BigEndian ? .big : (byteOrder ?? .little)
            if bytes.starts(with: [0xFF, 0xFE]) {
                order = .little
                bytes = bytes.dropFirst(2)
            } else if bytes.starts(with: [0xFE, 0xFF]) {
                order = .big
                bytes = bytes.dropFirst(2)
            }
            if encoding == .utf16 { byteOrder = order }
            return TextDecoding.utf16DroppingTrailingZeros(bytes, bigEndian: order == .big)
        }
    }

    /// A latin1 string of `bytes`, cut at the first zero byte.
    static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        var order: Endianness?
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return decode(bytes[bytes.startIndex..<end], encoding: .latin1, byteOrder: &order)
    }

    /// Every byte of `bytes` as the ISO-8859-1 character it is, zeros included.
    static func latin1Scalars(_ bytes: ArraySlice<UInt8>) -> String {
        TextDecoding.latin1(bytes)
    }
}
