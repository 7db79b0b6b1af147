#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header of one EBML element (RFC 8794 §4–§6): its ID, where its data
/// starts and how long it is.
///
/// IDs are variable-length integers of 1–4 bytes kept with their marker bits
/// (`0x1A45DFA3`); longer IDs, allowed by EBML but by no Matroska element
/// (EBMLMaxIDLength 4), are damage. Sizes are 1–8 bytes; all value bits set
/// means an unknown size (§6.2), which Matroska allows only for Segment and
/// Cluster.
struct EBMLElement: Sendable, Hashable {
    /// The ID with its length marker.
    var id: UInt32
    /// File offset of the first byte of the ID.
    var offset: Int64
    /// Bytes of the ID and of the size field.
    var idLength: Int
    var sizeLength: Int
    /// Bytes of data; nil for an unknown size.
    var dataSize: Int64?

    /// File offset of the first data byte.
    var dataOffset: Int64 { offset + Int64(idLength + sizeLength) }
    /// File offset just past the data; nil for an unknown size.
    var end: Int64? { dataSize.map { dataOffset + $0 } }
    /// Header plus data, when the size is known.
    var totalSize: Int64? { dataSize.map { Int64(idLength + sizeLength) + $0 } }

    /// The longest header: a 4-byte ID and an 8-byte size.
    static let maximumHeaderLength = 12
}

extension EBMLElement {
    /// Parses an element header at the reader's position (§4.1 VINT, §5 IDs,
    /// §6 sizes). Throws `malformed` for an ID longer than 4 bytes or a VINT
    /// whose first byte is 0, `truncated` when the reader ends first.
    init(parsing reader: inout ByteReader) throws {
        let start = reader.offset
        guard let first = reader.peekUInt8() else {
            throw reader.error(.truncated, "EBML element ID needs 1 byte, none left")
        }
        let idLength = first.leadingZeroBitCount + 1
        guard first != 0, idLength <= 4 else {
            throw MediaError(
                .malformed, "EBML element ID of \(first == 0 ? "more than 8" : "\(idLength)") bytes (at most 4)", offset: start)
        }
        let id = UInt32(try reader.readUInt(byteCount: idLength))
        let (size, sizeLength) = try Self.readVINT(&reader, what: "EBML element size")
        self.init(id: id, offset: start, idLength: idLength, sizeLength: sizeLength, dataSize: size.map { Int64($0) })
        if let size, size > UInt64(Int64.max / 2) {
            throw MediaError(.sizeOutOfRange, "EBML element size \(size) is out of range", offset: start + Int64(idLength))
        }
    }

    /// Parses the header at `offset` of `source`, which must lie before `limit`.
    init(parsing source: FileSource, at offset: Int64, limit: Int64) throws {
        let available = min(Int64(Self.maximumHeaderLength), min(limit, source.size) - offset)
        guard available > 0 else {
            throw MediaError(.truncated, "EBML element header needs bytes, none left", offset: offset)
        }
        // Straight from the source's window: no array per header (top-level
        // walks read one header per element).
        self = try source.withBytes(at: offset, count: Int(available)) { bytes in
            let first = bytes[0]
            let idLength = first.leadingZeroBitCount + 1
            guard first != 0, idLength <= 4, idLength < bytes.count else {
                var reader = ByteReader(Array(bytes), fileOffset: offset)
                return try EBMLElement(parsing: &reader)
            }
            let sizeFirst = bytes[idLength]
            let sizeLength = sizeFirst.leadingZeroBitCount + 1
            guard sizeFirst != 0, idLength + sizeLength <= bytes.count else {
                var reader = ByteReader(Array(bytes), fileOffset: offset)
                return try EBMLElement(parsing: &reader)
            }
            var id: UInt32 = 0
            for index in 0..<idLength { id = id << 8 | UInt32(bytes[index]) }
            var raw: UInt64 = 0
            for index in idLength..<idLength + sizeLength { raw = raw << 8 | UInt64(bytes[index]) }
            let allOnes = (UInt64(1) << UInt64(7 * sizeLength)) - 1
            let value = raw & allOnes
            guard value == allOnes || value <= UInt64(Int64.max / 2) else {
                throw MediaError(.sizeOutOfRange, "EBML element size \(value) is out of range", offset: offset + Int64(idLength))
            }
            return EBMLElement(
                id: id, offset: offset, idLength: idLength, sizeLength: sizeLength, dataSize: value == allOnes ? nil : Int64(value))
        }
    }

    /// Reads a variable-length integer (§4): its value without the marker
    /// (nil when every value bit is set: "unknown") and its length.
    static func readVINT(_ reader: inout ByteReader, what: String) throws -> (value: UInt64?, length: Int) {
        let start = reader.offset
        guard let first = reader.peekUInt8() else { throw reader.error(.truncated, "\(what) needs 1 byte, none left") }
        guard first != 0 else { throw MediaError(.malformed, "\(what) is longer than 8 bytes", offset: start) }
        let length = first.leadingZeroBitCount + 1
        let raw = try reader.readUInt(byteCount: length)
        let value = raw & ((1 << UInt64(7 * length)) - 1)
        let allOnes = (UInt64(1) << UInt64(7 * length)) - 1
        return (value == allOnes ? nil : value, length)
    }
}

/// Element values (RFC 8794 §7) and element building.
enum EBML {
    /// An unsigned integer of 0–8 bytes (§7.2).
    static func unsigned(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard bytes.count <= 8 else { return nil }
        return bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// A float of 0, 4 or 8 bytes (§7.3).
    static func float(_ bytes: ArraySlice<UInt8>) -> Double? {
        switch bytes.count {
        case 0: return 0
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: unsigned(bytes) ?? 0)))
        case 8: return Double(bitPattern: unsigned(bytes) ?? 0)
        default: return nil
        }
    }

    /// A String or UTF-8 value (§7.4, §7.5): up to the first zero byte.
    static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The ID's bytes (with its marker).
    static func idBytes(_ id: UInt32) -> [UInt8] {
        let length = id > 0xFF_FFFF ? 4 : id > 0xFFFF ? 3 : id > 0xFF ? 2 : 1
        return (0..<length).map { UInt8(truncatingIfNeeded: id >> UInt32(8 * (length - 1 - $0))) }
    }

    /// The shortest size field length that holds `size` (all-ones is reserved).
    static func sizeLength(for size: Int) -> Int {
        var length = 1
        while length < 8 && UInt64(size) >= (UInt64(1) << UInt64(7 * length)) - 1 { length += 1 }
        return length
    }

    /// `size` as a VINT of `length` bytes; nil when it doesn't fit.
    static func sizeBytes(_ size: Int64, length: Int) -> [UInt8]? {
        guard (1...8).contains(length), size >= 0, UInt64(size) < (UInt64(1) << UInt64(7 * length)) - 1 else { return nil }
        let value = UInt64(size) | (UInt64(1) << UInt64(7 * length))
        return (0..<length).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (length - 1 - $0))) }
    }

    /// An element: ID, size (at least `minimumSizeLength` bytes) and `data`.
    static func element(_ id: UInt32, _ data: [UInt8], minimumSizeLength: Int = 1) -> [UInt8] {
        let length = max(sizeLength(for: data.count), minimumSizeLength)
        return idBytes(id) + sizeBytes(Int64(data.count), length: length)! + data
    }

    /// An unsigned integer element in the fewest bytes (at least one).
    static func element(_ id: UInt32, unsigned value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        } while rest > 0
        return element(id, bytes)
    }

    /// A UTF-8 string element.
    static func element(_ id: UInt32, string: String) -> [UInt8] {
        element(id, Array(string.utf8))
    }

    /// An EBMLVoid element of exactly `count` bytes (at least 2).
    static func void(count: Int) -> [UInt8] {
        precondition(count >= 2, "a Void element takes at least 2 bytes")
        var length = 1
        while length < 8, count - 1 - length >= 0, sizeBytes(Int64(count - 1 - length), length: length) == nil { length += 1 }
        return idBytes(MatroskaID.void) + sizeBytes(Int64(count - 1 - length), length: length)!
            + [UInt8](repeating: 0, count: count - 1 - length)
    }

    /// The header of a Void element covering `count` bytes (at least 2),
    /// for voiding an element in place: its old data stays as the Void's.
    static func voidHeader(count: Int64) -> [UInt8] {
        precondition(count >= 2, "a Void element takes at least 2 bytes")
        for length in 1...8 {
            if let size = sizeBytes(count - 1 - Int64(length), length: length) { return idBytes(MatroskaID.void) + size }
        }
        preconditionFailure("no Void header fits \(count) bytes")
    }
}
