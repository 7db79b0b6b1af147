#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One item of a timed metadata group: identifier, data type and value.
public struct TimedMetadataItem: Sendable, Hashable {
    /// `namespace/key`, e.g. `mdta/com.example.circle.center.coordinate`.
    public var identifier: String
    /// How the value is stored in the sample.
    public var dataType: TimedMetadataDataType
    /// The value, of the kind ``dataType`` holds.
    public var value: TimedMetadataValue

    /// An item; throws `invalidValue` when `value` does not fit `dataType`.
    public init(identifier: String, dataType: TimedMetadataDataType, value: TimedMetadataValue) throws {
        guard let slash = identifier.firstIndex(of: "/"), identifier[..<slash].utf8.count == 4,
            identifier.index(after: slash) < identifier.endIndex
        else {
            throw MediaError(.invalidValue, "identifier '\(identifier)' must be namespace/key with a 4-character namespace (mdta/…)")
        }
        self.identifier = identifier
        self.dataType = dataType
        self.value = value
        _ = try encodedValue() // validates
    }

    /// The key space (`mdta`) of ``identifier``: the part before its first
    /// "/"; empty when it has none.
    public var namespace: String { identifier.firstIndex(of: "/").map { String(identifier[..<$0]) } ?? "" }
    /// The key of ``identifier``: the part after its first "/"; the whole
    /// identifier when it has none.
    public var key: String { identifier.firstIndex(of: "/").map { String(identifier[identifier.index(after: $0)...]) } ?? identifier }

    /// The value's bytes as stored in a sample (big-endian).
    func encodedValue() throws -> [UInt8] {
        func fail() -> MediaError {
            MediaError(.invalidValue, "\(identifier): a \(dataType.shortName) value can't be \(value)")
        }
        // `identifier` is settable: what init checks is checked again before writing.
        guard namespace.utf8.count == 4, !key.isEmpty else {
            throw MediaError(.invalidValue, "identifier '\(identifier)' must be namespace/key with a 4-character namespace (mdta/…)")
        }
        var writer = ByteWriter()
        func integer(_ bits: Int, signed: Bool) throws {
            let fits: Bool
            var raw: UInt64
            switch value {
            case .integer(let number):
                fits =
                    signed
                    ? (bits == 64 || (number >= -(1 << (bits - 1)) && number < 1 << (bits - 1)))
                    : (number >= 0 && (bits == 64 || number < 1 << bits))
                raw = UInt64(bitPattern: number)
            case .unsignedInteger(let number):
                fits = signed ? number <= UInt64(Int64.max) >> (64 - bits) : (bits == 64 || number < 1 << bits)
                raw = number
            case .number(let number) where number == number.rounded() && abs(number) < 9e15:
                let whole = Int64(number)
                fits =
                    signed
                    ? (bits == 64 || (whole >= -(1 << (bits - 1)) && whole < 1 << (bits - 1)))
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
}
