/// Strings from ISO-8859-1 and UTF-16 bytes, decoded straight into a
/// string's UTF-8 storage.
///
/// Tag text is decoded on every read (ID3 frames, ID3v1 fields, APE keys), so
/// these avoid building an array of scalars or code units first; the results
/// are those of `String(decoding:as:)` (invalid UTF-16 becomes U+FFFD, one per
/// unpaired surrogate).
package enum TextDecoding {
    /// Every byte of `bytes` as the ISO-8859-1 (Latin-1) character it is,
    /// zeros included. Concrete overloads, compiled here specialized: a
    /// generic call from another target is not always specialized and then
    /// runs a closure per byte.
    package static func latin1(_ bytes: ArraySlice<UInt8>) -> String { decodeLatin1(bytes) }
    /// The same, of an array.
    package static func latin1(_ bytes: [UInt8]) -> String { decodeLatin1(bytes) }
    /// The same, of bytes in memory.
    package static func latin1(_ bytes: UnsafeRawBufferPointer) -> String { decodeLatin1(bytes) }

    private static func decodeLatin1<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var count = 0
            for byte in bytes {
                if byte < 0x80 {
                    buffer[count] = byte
                    count += 1
                } else {
                    buffer[count] = 0xC0 | byte >> 6
                    buffer[count + 1] = 0x80 | byte & 0x3F
                    count += 2
                }
            }
            return count
        }
    }

    /// ``utf16(_:bigEndian:)`` of `bytes` without the zero code units at its
    /// end (terminators and padding that ID3 and ASF writers leave).
    package static func utf16DroppingTrailingZeros(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var end = bytes.startIndex + bytes.count / 2 * 2
        while end - 2 >= bytes.startIndex && bytes[end - 2] == 0 && bytes[end - 1] == 0 { end -= 2 }
        return utf16(bytes[bytes.startIndex..<end], bigEndian: bigEndian)
    }

    /// The UTF-16 text of `bytes` (pairs of bytes in `bigEndian` or little-endian
    /// order; an odd last byte is ignored). Unpaired surrogates become U+FFFD.
    package static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        let units = bytes.count / 2
        if units == 0 { return "" }
        return bytes.withUnsafeBufferPointer { source in
            String(unsafeUninitializedCapacity: units * 3) { buffer in
                var count = 0
                func put(_ scalar: UInt32) {
                    switch scalar {
                    case 0..<0x80:
                        buffer[count] = UInt8(scalar)
                        count += 1
                    case 0x80..<0x800:
                        buffer[count] = UInt8(0xC0 | scalar >> 6)
                        buffer[count + 1] = UInt8(0x80 | scalar & 0x3F)
                        count += 2
                    case 0x800..<0x10000:
                        buffer[count] = UInt8(0xE0 | scalar >> 12)
                        buffer[count + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                        buffer[count + 2] = UInt8(0x80 | scalar & 0x3F)
                        count += 3
                    default:
                        buffer[count] = UInt8(0xF0 | scalar >> 18)
                        buffer[count + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                        buffer[count + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                        buffer[count + 3] = UInt8(0x80 | scalar & 0x3F)
                        count += 4
                    }
                }
                func unit(_ index: Int) -> UInt32 {
                    let first = UInt32(source[2 * index]), second = UInt32(source[2 * index + 1])
                    return bigEndian ? first << 8 | second : second << 8 | first
                }
                var index = 0
                while index < units {
                    let value = unit(index)
                    index += 1
                    switch value {
                    case 0xD800..<0xDC00:
                        // A high surrogate: a scalar with the low one after it.
                        if index < units, case let low = unit(index), (0xDC00..<0xE000).contains(low) {
                            put(0x10000 + (value - 0xD800) << 10 + (low - 0xDC00))
                            index += 1
                        } else {
                            put(0xFFFD)
                        }
                    case 0xDC00..<0xE000: put(0xFFFD) // a low surrogate alone
                    default: put(value)
                    }
                }
                return count
            }
        }
    }
}
