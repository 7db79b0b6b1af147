#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A typed timed metadata value.
public enum TimedMetadataValue: Sendable, Hashable {
    /// Text (UTF-8 or UTF-16 items).
    case string(String)
    /// A signed integer (`int8` to `int64` items).
    case integer(Int64)
    /// An unsigned integer (`uint8` to `uint64` items).
    case unsignedInteger(UInt64)
    /// A floating-point number (`float32` and `float64` items).
    case number(Double)
    /// Several numbers: a point (x, y), dimensions (w, h), a rectangle
    /// (x, y, w, h) or an affine transform (9 numbers, row-major).
    case numbers([Double])
    /// Bytes: images, raw data and types the library does not decode.
    case data(Data)
}

extension TimedMetadataValue {
    /// Parses `bytes` stored for an item of `dataType` (a sample's value,
    /// see ``MetadataSampleFormat``); a type not known here gives `.data`.
    init(parsing bytes: [UInt8], as dataType: TimedMetadataDataType) throws {
        self = try Self.parsed(bytes, as: dataType)
    }

    private static func parsed(_ bytes: [UInt8], as dataType: TimedMetadataDataType) throws -> TimedMetadataValue {
        var reader = ByteReader(bytes)
        func floats(_ count: Int, double: Bool) throws -> [Double] {
            guard bytes.count == count * (double ? 8 : 4) else {
                throw MediaError(.malformed, "\(dataType.shortName) needs \(count * (double ? 8 : 4)) bytes, got \(bytes.count)")
            }
            return try (0..<count).map { _ in
                // A float32 becomes the double with the same shortest decimal form
                // (0.1f reads as 0.1, not 0.10000000149011612).
                double
                    ? Double(bitPattern: try reader.readUInt64())
                    : {
                        let float = Float(bitPattern: $0)
                        return Double("\(float)") ?? Double(float)
                    }(try reader.readUInt32())
            }
        }
        func integer(_ byteCount: Int, signed: Bool) throws -> TimedMetadataValue {
            guard bytes.count == byteCount else {
                throw MediaError(.malformed, "\(dataType.shortName) needs \(byteCount) bytes, got \(bytes.count)")
            }
            let raw = try reader.readUInt(byteCount: byteCount)
            if !signed { return .unsignedInteger(raw) }
            let shift = UInt64(64 - 8 * byteCount)
            return .integer(Int64(bitPattern: raw << shift) >> Int64(shift))
        }
        switch dataType {
        case .utf8: return .string(String(decoding: bytes, as: UTF8.self))
        case .utf16:
            guard bytes.count % 2 == 0 else { throw MediaError(.malformed, "UTF-16 value of odd length \(bytes.count)") }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case .int8: return try integer(1, signed: true)
        case .int16: return try integer(2, signed: true)
        case .int32: return try integer(4, signed: true)
        case .int64: return try integer(8, signed: true)
        case .uint8: return try integer(1, signed: false)
        case .uint16: return try integer(2, signed: false)
        case .uint32: return try integer(4, signed: false)
        case .uint64: return try integer(8, signed: false)
        case .float32: return .number(try floats(1, double: false)[0])
        case .float64: return .number(try floats(1, double: true)[0])
        case .pointF32, .dimensionsF32: return .numbers(try floats(2, double: false))
        case .rectF32: return .numbers(try floats(4, double: false))
        case .affineTransformF64: return .numbers(try floats(9, double: true))
        default: return .data(Data(bytes))
        }
    }
}
