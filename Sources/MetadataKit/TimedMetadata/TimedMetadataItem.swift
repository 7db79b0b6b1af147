import Foundation

/// One item of a timed metadata group: identifier, data type and value.
public struct TimedMetadataItem: Sendable, Hashable {
    /// `namespace/key`, e.g. `mdta/com.example.circle.center.coordinate`.
    public var identifier: String
    public var dataType: TimedMetadataDataType
    public var value: TimedMetadataValue

    /// An item; throws `invalidValue` when `value` does not fit `dataType`.
    public init(identifier: String, dataType: TimedMetadataDataType, value: TimedMetadataValue) throws {
        guard let slash = identifier.firstIndex(of: "/"), identifier[..<slash].utf8.count == 4,
              identifier.index(after: slash) < identifier.endIndex else {
            throw MediaError(.invalidValue, "identifier '\(identifier)' must be namespace/key with a 4-character namespace (mdta/…)")
        }
        self.identifier = identifier
        self.dataType = dataType
        self.value = value
        _ = try encodedValue()                       // validates
    }

    /// The key space (`mdta`) and key of ``identifier``.
    public var namespace: String { String(identifier[..<identifier.firstIndex(of: "/")!]) }
    public var key: String { String(identifier[identifier.index(after: identifier.firstIndex(of: "/")!)...]) }

    /// The value's bytes as stored in a sample (big-endian).
    func encodedValue() throws -> [UInt8] {
        func fail() -> MediaError {
            MediaError(.invalidValue, "\(identifier): a \(dataType.shortName) value can't be \(value)")
        }
        var writer = ByteWriter()
        func integer(_ bits: Int, signed: Bool) throws {
            let fits: Bool
            var raw: UInt64
            switch value {
            case .integer(let number):
                fits = signed ? (bits == 64 || (number >= -(1 << (bits - 1)) && number < 1 << (bits - 1)))
                              : (number >= 0 && (bits == 64 || number < 1 << bits))
                raw = UInt64(bitPattern: number)
            case .unsignedInteger(let number):
                fits = signed ? number <= UInt64(Int64.max) >> (64 - bits) : (bits == 64 || number < 1 << bits)
                raw = number
            case .number(let number) where number == number.rounded() && abs(number) < 9e15:
                let whole = Int64(number)
                fits = signed ? (bits == 64 || (whole >= -(1 << (bits - 1)) && whole < 1 << (bits - 1)))
                              : (whole >= 0 && (bits == 64 || whole < 1 << bits))
                raw = UInt64(bitPattern: whole)
            default: throw fail()
            }
            guard fits else { throw fail() }
            for index in 0..<(bits / 8) { writer.write(UInt8(truncatingIfNeeded: raw >> UInt64(bits - 8 - 8 * index))) }
        }
        func floats(_ count: Int, double: Bool) throws {
            let numbers: [Double]
            switch value {
            case .number(let number) where count == 1: numbers = [number]
            case .integer(let number) where count == 1: numbers = [Double(number)]
            case .numbers(let list) where list.count == count: numbers = list
            default: throw fail()
            }
            for number in numbers {
                if double { writer.write(number.bitPattern) } else { writer.write(Float(number).bitPattern) }
            }
        }
        switch dataType {
        case .utf8:
            guard case .string(let text) = value else { throw fail() }
            writer.write(Array(text.utf8))
        case .utf16:
            guard case .string(let text) = value else { throw fail() }
            for unit in text.utf16 { writer.write(unit) }
        case .int8: try integer(8, signed: true)
        case .int16: try integer(16, signed: true)
        case .int32: try integer(32, signed: true)
        case .int64: try integer(64, signed: true)
        case .uint8: try integer(8, signed: false)
        case .uint16: try integer(16, signed: false)
        case .uint32: try integer(32, signed: false)
        case .uint64: try integer(64, signed: false)
        case .float32: try floats(1, double: false)
        case .float64: try floats(1, double: true)
        case .pointF32, .dimensionsF32: try floats(2, double: false)
        case .rectF32: try floats(4, double: false)
        case .affineTransformF64: try floats(9, double: true)
        default:
            switch value {
            case .data(let data): writer.write(data)
            case .string(let text) where dataType.wellKnownCode == nil: writer.write(Array(text.utf8))
            default: throw fail()
            }
        }
        return writer.bytes
    }

    /// Decodes `bytes` stored for an item of `dataType`.
    static func decode(_ bytes: [UInt8], as dataType: TimedMetadataDataType) throws -> TimedMetadataValue {
        var reader = ByteReader(bytes)
        func floats(_ count: Int, double: Bool) throws -> [Double] {
            guard bytes.count == count * (double ? 8 : 4) else {
                throw MediaError(.malformed, "\(dataType.shortName) needs \(count * (double ? 8 : 4)) bytes, got \(bytes.count)")
            }
            return try (0..<count).map { _ in
                // A float32 becomes the double with the same shortest decimal form
                // (0.1f reads as 0.1, not 0.10000000149011612).
                double ? Double(bitPattern: try reader.readUInt64())
                       : { let float = Float(bitPattern: $0); return Double("\(float)") ?? Double(float) }(try reader.readUInt32())
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
