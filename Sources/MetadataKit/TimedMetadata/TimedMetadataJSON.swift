import Foundation

/// A strict JSON parser (RFC 8259) for annotation documents, giving the
/// same values as `JSONSerialization` — `[String: Any]`, `[Any]`, `String`,
/// `NSNumber`, `Bool`, `NSNull` — except that numbers are read exactly:
/// a decimal becomes the `Double` nearest to it (Swift's `Double(String)`),
/// so every number `mdkit timed` prints reads back as the same `Double`.
/// (swift-corelibs-foundation's parser can be off by an ulp: it reads
/// `0.06666666666666667` as `0.06666666666666668`.) Nesting is limited to
/// ``maxDepth``.
struct TimedMetadataJSON {
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var position = 0

    /// Parses `data`; throws `invalidValue` naming the byte offset of the problem.
    static func parse(_ data: Data) throws -> Any {
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

    private mutating func value(depth: Int) throws -> Any {
        guard depth < Self.maxDepth else { throw error("nested more than \(Self.maxDepth) levels") }
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var object: [String: Any] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return object
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
                if bytes[position - 1] == UInt8(ascii: "}") { return object }
                guard bytes[position - 1] == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            position += 1
            var array: [Any] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return array
            }
            while true {
                array.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end in an array") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return array }
                guard bytes[position - 1] == UInt8(ascii: ",") else {
                    position -= 1
                    throw error("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"):
            try expect("true")
            return true
        case UInt8(ascii: "f"):
            try expect("false")
            return false
        case UInt8(ascii: "n"):
            try expect("null")
            return NSNull()
        default: return try number()
        }
    }

    private mutating func number() throws -> NSNumber {
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
        if isInteger, let integer = Int64(text) { return NSNumber(value: integer) }
        if isInteger, let unsigned = UInt64(text) { return NSNumber(value: unsigned) }
        guard let double = Double(text), double.isFinite else { throw error("number out of range") }
        return NSNumber(value: double)
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
