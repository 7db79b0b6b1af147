/// The CRC-32 of EBML's CRC-32 element (RFC 8794 §11.3.1): ISO 3309
/// (reflected polynomial 0xEDB88320), stored little-endian, over the data of
/// every other child of the parent master.
enum EBMLCRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// `data` (a master's children) preceded by a CRC-32 element over it.
    static func prefixed(_ data: [UInt8]) -> [UInt8] {
        let crc = checksum(data)
        return [0xBF, 0x84, UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)] + data
    }
}
