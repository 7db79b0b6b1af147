#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One item of an APE tag as stored (APEv2 specification, "APE Tag Item"):
///
///     value size u32 LE  flags u32 LE  key (ASCII, 0-terminated)  value
///
/// Flag bit 0 marks the item read-only; bits 1–2 give the value's kind
/// (0 UTF-8 text, 1 binary, 2 external locator, 3 reserved). A text value
/// may hold several values separated by zero bytes.
struct APETagItem: Sendable, Hashable {
    /// The value's kind, bits 1–2 of the flags.
    enum Kind: UInt32, Sendable {
        case text = 0
        case binary = 1
        case locator = 2
        case reserved = 3
    }

    /// Where the item starts in the file (its size field).
    var offset: Int64
    /// The key's bytes, without the terminating zero.
    var keyBytes: [UInt8]
    var flags: UInt32
    /// Where the value starts in the file, and its length.
    var valueOffset: Int64
    var valueSize: Int

    var kind: Kind { Kind(rawValue: flags >> 1 & 3) ?? .reserved }
    /// Bytes of the whole item in the file.
    var length: Int { 8 + keyBytes.count + 1 + valueSize }
    var end: Int64 { valueOffset + Int64(valueSize) }

    /// The key as text (bytes outside ASCII kept as their Latin-1 characters).
    var key: String { TextDecoding.latin1(keyBytes) }

    /// The key uppercased, as the model holds it (APE keys are
    /// case-insensitive); an ASCII key, as valid keys are, without the
    /// Unicode case tables.
    var uppercasedKey: String {
        guard keyBytes.allSatisfy({ $0 < 0x80 }) else { return key.uppercased() }
        return String(unsafeUninitializedCapacity: keyBytes.count) { buffer in
            for (index, byte) in keyBytes.enumerated() { buffer[index] = (0x61...0x7A).contains(byte) ? byte - 0x20 : byte }
            return keyBytes.count
        }
    }

    /// Whether `key` is a valid APEv2 key: 2–255 characters from 0x20 to 0x7E,
    /// and not `ID3`, `TAG`, `OggS` or `MP+` (case-insensitively), which
    /// other tags start with.
    static func isValidKey(_ key: some Collection<UInt8>) -> Bool {
        guard (2...255).contains(key.count), key.allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
        guard key.count <= 4 else { return true }
        let upper = String(decoding: key, as: UTF8.self).uppercased()
        return !["ID3", "TAG", "OGGS", "MP+"].contains(upper)
    }
}

extension APETagItem {
    /// Reads the item starting at `offset`; its value must end by `end`.
    /// Throws when the item does not fit.
    init(parsing source: FileSource, at offset: Int64, end: Int64) throws {
        guard end - offset >= 11 else {
            throw MediaError(.truncated, "an APE tag item header runs past the end of the tag", offset: offset)
        }
        let head = try source.getBytes(at: offset, count: 8)
        let size = UInt32(head[0]) | UInt32(head[1]) << 8 | UInt32(head[2]) << 16 | UInt32(head[3]) << 24
        let flags = UInt32(head[4]) | UInt32(head[5]) << 8 | UInt32(head[6]) << 16 | UInt32(head[7]) << 24
        let keyWindow = try source.getBytes(at: offset + 8, count: Int(min(256, end - offset - 8)))
        guard let zero = keyWindow.firstIndex(of: 0) else {
            throw MediaError(.malformed, "an APE tag item key has no terminating zero", offset: offset + 8)
        }
        let valueOffset = offset + 8 + Int64(zero) + 1
        guard Int64(size) <= end - valueOffset else {
            throw MediaError(
                .sizeOutOfRange, "an APE tag item declares \(size) value bytes, more than the \(end - valueOffset) left in the tag",
                offset: offset)
        }
        self.init(offset: offset, keyBytes: Array(keyWindow[..<zero]), flags: flags, valueOffset: valueOffset, valueSize: Int(size))
    }
}
