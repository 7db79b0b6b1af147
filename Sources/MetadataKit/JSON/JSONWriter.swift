#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one JSON writer of the package (RFC 8259): `mdkit`'s outputs, the
/// catalog's lists and timed metadata documents are all written with it.
/// Streams UTF-8 bytes, with no value tree in between. Layout: with an
/// `indent`, every element of a non-empty container on its own line,
/// indented by `indent` spaces per level, and `"key": value`; empty
/// containers as `[]` and `{}`; without an indent, one line with no spaces.
///
/// Strings: `"` and `\` escaped, `\n`, `\r`, `\t`, the other C0 controls as
/// `\u00xx`; everything else as it is, unless ``Options`` ask for more.
package struct JSONWriter {
    /// What strings escape beyond what JSON requires.
    package struct Options: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, so that the
        /// text holds no markup and no `-->` (WebVTT cue payloads, HTML).
        package static let escapeMarkup = Options(rawValue: 1)
        /// NUL characters left out of strings (SQLite's JSON functions end
        /// a text at one; PostgreSQL's `jsonb` refuses them).
        package static let dropNUL = Options(rawValue: 2)
    }

    /// The output so far.
    package private(set) var bytes: [UInt8] = []
    private let indent: Int?
    private let options: Options
    /// Whether a NaN or an infinity was written (as `null`, JSON has neither).
    package private(set) var wroteNonFinite = false
    /// Level of the outermost value (its closing bracket is indented by this).
    private let baseLevel: Int
    /// Per open container: whether it has no element yet.
    private var empty: [Bool] = []
    /// True right after a key: the value follows it on the same line.
    private var afterKey = false

    /// A writer of one value; `indent` nil writes one line, `level` is the
    /// indentation level of the outermost value.
    package init(indent: Int? = nil, level: Int = 0, options: Options = []) {
        self.indent = indent
        self.options = options
        self.baseLevel = level
        bytes.reserveCapacity(2048) // one file's report, most of the time: no regrowth while writing it
    }

    package mutating func beginObject() {
        beginValue()
        bytes.append(0x7B)
        empty.append(true)
    }
    package mutating func beginArray() {
        beginValue()
        bytes.append(0x5B)
        empty.append(true)
    }

    /// Closes the innermost container (`array`: a `]`, else a `}`).
    package mutating func end(array: Bool) {
        let wasEmpty = empty.removeLast()
        if !wasEmpty, let indent { newline(spaces: indent * (baseLevel + empty.count)) }
        bytes.append(array ? 0x5D : 0x7D)
    }

    /// Starts a member of the current object; its value is written next.
    package mutating func key(_ name: String) {
        beginValue()
        appendQuoted(name)
        bytes.append(0x3A) // ":"
        if indent != nil { bytes.append(0x20) }
        afterKey = true
    }

    package mutating func string(_ text: String) {
        beginValue()
        appendQuoted(text)
    }
    package mutating func integer(_ value: Int64) {
        beginValue()
        appendDecimal(value)
    }
    package mutating func bool(_ value: Bool) {
        beginValue()
        append(value ? "true" : "false")
    }

    package mutating func unsignedInteger(_ value: UInt64) {
        beginValue()
        append(String(value))
    }
    package mutating func null() {
        beginValue()
        append("null")
    }

    /// A number, as the shortest decimal that reads back as the same
    /// `Double`: whole numbers below 10^15 without a fraction (`2`, `-0`),
    /// others as Swift prints them without a trailing `.0` (`0.5`, `1e-07`,
    /// `1e+16`). NaN and infinities (which JSON lacks) as null, noted in
    /// ``wroteNonFinite``.
    package mutating func number(_ value: Double) {
        beginValue()
        guard value.isFinite else {
            wroteNonFinite = true
            append("null")
            return
        }
        if value == value.rounded() && abs(value) < 1e15 {
            if value == 0 && value.sign == .minus { bytes.append(0x2D) }
            appendDecimal(Int64(value))
        } else {
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            append(text)
        }
    }

    /// Empties the output, keeping its storage, to write another value.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        empty.removeAll()
        afterKey = false
    }

    /// `key` then a string, integer, number or bool value.
    package mutating func member(_ name: String, _ text: String) {
        key(name)
        string(text)
    }
    package mutating func member(_ name: String, _ value: Int64) {
        key(name)
        integer(value)
    }
    package mutating func member(_ name: String, _ value: Int) {
        key(name)
        integer(Int64(value))
    }
    package mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }
    /// `key` and the value, or nothing when it is nil.
    package mutating func member(_ name: String, ifPresent text: String?) {
        guard let text else { return }
        member(name, text)
    }
    package mutating func member(_ name: String, ifPresent value: Int64?) {
        guard let value else { return }
        member(name, value)
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

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` in quotes, with `"`, `\` and control characters escaped.
    private mutating func appendQuoted(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            var clean = utf8.startIndex // start of the bytes not yet copied
            // Eight bytes at a time while none needs escaping (nearly all text).
            var start = utf8.startIndex
            let markup = options.contains(.escapeMarkup)
            if !markup, let base = utf8.baseAddress {
                while start + 8 <= utf8.endIndex,
                    !Self.needsEscape(UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
                {
                    start += 8
                }
            }
            for index in start..<utf8.endIndex {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C || markup && (byte == 0x3C || byte == 0x3E || byte == 0x26)
                else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                switch byte {
                case 0x00 where options.contains(.dropNUL): break
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                default:
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)]])
                }
                clean = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        bytes.append(0x22)
    }
}
