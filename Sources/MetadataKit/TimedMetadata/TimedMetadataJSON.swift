#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A strict JSON parser (RFC 8259) for annotation documents, giving the
/// values `JSONSerialization` gives (as a ``Value``; it is not linked: on
/// Linux it is in swift-corelibs-foundation's `Foundation` module) except
/// that numbers are read exactly: a decimal becomes the `Double` nearest to
/// it (Swift's `Double(String)`), so every number `mdkit timed` prints reads
/// back as the same `Double`. (swift-corelibs-foundation's parser can be
/// off by an ulp: it reads `0.06666666666666667` as `0.06666666666666668`.)
/// Nesting is limited to ``maxDepth``. ``serialize(_:pretty:options:)``
/// prints values with the package's ``JSONWriter``. `mdkit write --chapters`
/// reads its JSON with it too (`package`).
package struct TimedMetadataJSON {
    package static let maxDepth = 64

    /// A JSON value. Numbers keep the type `JSONSerialization`'s `NSNumber`
    /// had: a whole number in `Int64` range is an integer, a larger one an
    /// unsigned integer, any other (a fraction or an exponent) a double.
    package indirect enum Value: Equatable {
        case object([String: Value])
        case array([Value])
        case string(String)
        case integer(Int64)
        case unsignedInteger(UInt64)
        case number(Double)
        case bool(Bool)
        case null

        /// The object's members; nil for another value.
        package var object: [String: Value]? {
            if case .object(let members) = self { members } else { nil }
        }

        /// The string; nil for another value.
        package var string: String? {
            if case .string(let text) = self { text } else { nil }
        }

        /// The array's elements, all objects; nil for another value or an
        /// array with anything else in it (as `as? [[String: Any]]` was).
        package var objects: [[String: Value]]? {
            guard case .array(let elements) = self else { return nil }
            var objects: [[String: Value]] = []
            for element in elements {
                guard let object = element.object else { return nil }
                objects.append(object)
            }
            return objects
        }

        /// True for `true` and `false`.
        package var isBoolean: Bool {
            if case .bool = self { true } else { false }
        }

        /// The number as a `Double`. Nil for a boolean (`true` is not 1,
        /// unlike Foundation's `NSNumber` bridging), string, array, object or null.
        package var numberValue: Double? {
            switch self {
            case .integer(let value): Double(value)
            case .unsignedInteger(let value): Double(value)
            case .number(let value): value
            default: nil
            }
        }

        /// The number as an `Int` when it is one exactly, as `value as? Int`
        /// gave it (2.0 is 2; a boolean, 2.5 or a number beyond `Int` is nil).
        package var intValue: Int? {
            switch self {
            case .integer(let value): Int(exactly: value)
            case .unsignedInteger(let value): Int(exactly: value)
            case .number(let value): Int(exactly: value)
            default: nil
            }
        }
    }

    private let bytes: [UInt8]
    private var position = 0

    /// Parses `data`; throws `invalidValue` naming the byte offset of the problem.
    package static func parse(_ data: Data) throws -> Value {
        var parser = TimedMetadataJSON(bytes: [UInt8](data))
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> MediaError {
        MediaError(.invalidValue, "not valid JSON: \(reason) at byte \(position)")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw error("expected '\(literal)'")
        }
        position += expected.count
    }

    private mutating func value(depth: Int) throws -> Value {
        guard depth < Self.maxDepth else { throw error("nested more than \(Self.maxDepth) levels") }
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var object: [String: Value] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                try expect(":")
                object[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end in an object") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "}") { return .object(object) }
                guard bytes[position - 1] == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            position += 1
            var array: [Value] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(array)
            }
            while true {
                array.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end in an array") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return .array(array) }
                guard bytes[position - 1] == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try number()
        }
    }

    private mutating func number() throws -> Value {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[position - integerDigits] != 0x30 else { throw error("bad number") }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard digits() > 0 else { throw error("bad number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("bad number") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        if isInteger, let unsigned = UInt64(text) { return .unsignedInteger(unsigned) }
        guard let double = Double(text), double.isFinite else { throw error("number out of range") }
        return .number(double)
    }

    private mutating func string() throws -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string") }
        position += 1
        var utf8: [UInt8] = []
        var pendingHigh: UInt16?
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                if pendingHigh != nil { throw error("unpaired surrogate") }
                utf8.append(byte)
                continue
            }
            guard position < bytes.count else { throw error("unterminated string") }
            let escape = bytes[position]
            position += 1
            let simple: [UInt8: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09]
            if let replacement = simple[escape] {
                if pendingHigh != nil { throw error("unpaired surrogate") }
                utf8.append(replacement)
                continue
            }
            guard escape == UInt8(ascii: "u"), bytes.count - position >= 4,
                let unit = UInt16(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else {
                throw error("bad escape")
            }
            position += 4
            var scalar: Unicode.Scalar?
            switch (pendingHigh, unit) {
            case (nil, 0xD800...0xDBFF):
                pendingHigh = unit
                continue
            case (let high?, 0xDC00...0xDFFF):
                scalar = Unicode.Scalar(0x10000 + (UInt32(high) - 0xD800) << 10 + (UInt32(unit) - 0xDC00))
                pendingHigh = nil
            case (nil, _): scalar = Unicode.Scalar(unit)
            default: throw error("unpaired surrogate")
            }
            guard let scalar else { throw error("unpaired surrogate") }
            utf8 += Array(String(Character(scalar)).utf8)
        }
        guard pendingHigh == nil else { throw error("unpaired surrogate") }
        return String(decoding: utf8, as: UTF8.self)
    }
}

extension TimedMetadataJSON.Value {
    /// Writes the value through the package's one ``JSONWriter``, object
    /// members in the order of ``precedes(_:_:)`` so the output reads the
    /// same every run.
    package func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .integer(let number): writer.integer(number)
        case .unsignedInteger(let number): writer.unsignedInteger(number)
        case .bool(let flag): writer.bool(flag)
        case .null: writer.null()
        case .number(let number): writer.number(number)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.end(array: true)
        case .object(let members):
            writer.beginObject()
            for (key, value) in members.sorted(by: { Self.precedes($0.key, $1.key) }) {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.end(array: false)
        }
    }

    /// Sorted keys: a case-insensitive comparison, then the case.
    static func precedes(_ first: String, _ second: String) -> Bool {
        let a = first.lowercased(), b = second.lowercased()
        return a != b ? a < b : first < second
    }
}

extension TimedMetadataJSON {
    /// `value` as JSON text (``JSONWriter``'s layout: indented by two spaces
    /// when `pretty`, else one line), keys sorted; nil when it holds a NaN
    /// or an infinity, which JSON lacks. `options` as the writer's.
    static func serialize(_ value: Value, pretty: Bool, options: JSONWriter.Options = []) -> [UInt8]? {
        var writer = JSONWriter(indent: pretty ? 2 : nil, options: options)
        value.write(to: &writer)
        return writer.wroteNonFinite ? nil : writer.bytes
    }
}
