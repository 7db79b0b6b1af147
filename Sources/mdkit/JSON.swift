#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON value with ordered object keys, for output that reads the same
/// every run. Absent fields are simply not added.
indirect enum JSON {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])

    /// Appends the serialized value to `output`; `indent` nil gives one line.
    func write(to output: inout String, indent: Int? = nil, level: Int = 0) {
        var writer = JSONWriter(indent: indent, level: level)
        write(to: &writer)
        output += String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes the value through `writer` (as one element or object value).
    func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .integer(let value): writer.integer(value)
        case .number(let value): writer.number(value)
        case .bool(let value): writer.bool(value)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.end(array: true)
        case .object(let pairs):
            writer.beginObject()
            for (key, value) in pairs {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.end(array: false)
        }
    }
}

/// Streams JSON as UTF-8 bytes, with no value tree in between (`mdkit read`
/// renders every file this way). Layout: with an `indent`, every element of a
/// non-empty container on its own line, indented by `indent` spaces per
/// level, and `"key": value`; empty containers as `[]` and `{}`; without an
/// indent, one line with no spaces.
struct JSONWriter {
    /// The output so far.
    private(set) var bytes: [UInt8] = []
    private let indent: Int?
    /// Level of the outermost value (its closing bracket is indented by this).
    private let baseLevel: Int
    /// Per open container: whether it has no element yet.
    private var empty: [Bool] = []
    /// True right after a key: the value follows it on the same line.
    private var afterKey = false

    init(indent: Int? = nil, level: Int = 0) {
        self.indent = indent
        self.baseLevel = level
        bytes.reserveCapacity(2048) // one file's report, most of the time: no regrowth while writing it
    }

    mutating func beginObject() {
        beginValue()
        bytes.append(0x7B)
        empty.append(true)
    }
    mutating func beginArray() {
        beginValue()
        bytes.append(0x5B)
        empty.append(true)
    }

    /// Closes the innermost container (`array`: a `]`, else a `}`).
    mutating func end(array: Bool) {
        let wasEmpty = empty.removeLast()
        if !wasEmpty, let indent { newline(spaces: indent * (baseLevel + empty.count)) }
        bytes.append(array ? 0x5D : 0x7D)
    }

    /// Starts a member of the current object; its value is written next.
    mutating func key(_ name: String) {
        beginValue()
        appendQuoted(name)
        bytes.append(0x3A) // ":"
        if indent != nil { bytes.append(0x20) }
        afterKey = true
    }

    mutating func string(_ text: String) {
        beginValue()
        appendQuoted(text)
    }
    mutating func integer(_ value: Int64) {
        beginValue()
        appendDecimal(value)
    }
    mutating func bool(_ value: Bool) {
        beginValue()
        append(value ? "true" : "false")
    }

    /// A number; whole numbers below 10^15 without a fraction; NaN and
    /// infinities (which JSON lacks) as null.
    mutating func number(_ value: Double) {
        beginValue()
        guard value.isFinite else {
            append("null")
            return
        }
        if value == value.rounded() && abs(value) < 1e15 {
            appendDecimal(Int64(value))
        } else {
            append(String(value))
        }
    }

    /// `key` then a string, integer, number or bool value.
    mutating func member(_ name: String, _ text: String) {
        key(name)
        string(text)
    }
    mutating func member(_ name: String, _ value: Int64) {
        key(name)
        integer(value)
    }
    mutating func member(_ name: String, _ value: Int) {
        key(name)
        integer(Int64(value))
    }
    mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// The separator and line break before a value or key.
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        guard !empty.isEmpty else { return }
        if !empty[empty.count - 1] { bytes.append(0x2C) } // ","
        empty[empty.count - 1] = false
        if let indent { newline(spaces: indent * (baseLevel + empty.count)) }
    }

    private mutating func newline(spaces: Int) {
        if spaces < Self.newlines.count - 1 {
            bytes.append(contentsOf: Self.newlines[...spaces])
        } else {
            bytes.append(0x0A)
            bytes.append(contentsOf: repeatElement(0x20, count: spaces))
        }
    }

    /// A line break and 64 spaces: every indentation up to 64 is a prefix.
    private static let newlines: [UInt8] = [0x0A] + [UInt8](repeating: 0x20, count: 64)

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` in decimal digits, made in place (no `String` per number).
    private mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(0x2D) } // "-"
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Whether any of the 8 bytes of `word` must be escaped in a JSON string:
    /// below 0x20, `"` or `\` (the usual bit tricks for "a byte below n" and
    /// "a zero byte", on the word and on its bytes XOR the quote and backslash).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let zeros = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
        return below | zeros != 0
    }

    /// `text` in quotes, with `"`, `\` and control characters escaped.
    private mutating func appendQuoted(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            var clean = utf8.startIndex // start of the bytes not yet copied
            // Eight bytes at a time while none needs escaping (nearly all text).
            var start = utf8.startIndex
            if let base = utf8.baseAddress {
                while start + 8 <= utf8.endIndex,
                    !Self.needsEscape(UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
                {
                    start += 8
                }
            }
            for index in start..<utf8.endIndex {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
                clean = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        bytes.append(0x22)
    }
}
