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
    package var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }
    private let indent: Int?
    private let options: Options
    /// Whether a NaN or an infinity was written (as `null`, JSON has neither).
    package private(set) var wroteNonFinite = false
    /// Level of the outermost value (its closing bracket is indented by this).
    private let baseLevel: Int
    /// How many containers are open, and whether the innermost has no element
    /// yet (the others have one each: the container open inside them).
    private var depth = 0
    private var innermostIsEmpty = false
    /// True right after a key: the value follows it on the same line.
    private var afterKey = false

    /// The bytes: written through a pointer into memory ``Buffer`` owns (an
    /// `Array` append checks uniqueness and capacity and copies through a
    /// generic path per piece, which was most of the time of `mdkit read
    /// --json`); copied when a copy of the writer shares it. `base` and
    /// `capacity` repeat the buffer's: kept in the struct, the writes need
    /// no load through the buffer's reference (2,000 instructions per report).
    private var buffer: Buffer
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    private final class Buffer {
        let base: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { base = .allocate(capacity: capacity) }
        deinit { base.deallocate() }
    }

    /// A writer of one value; `indent` nil writes one line, `level` is the
    /// indentation level of the outermost value.
    package init(indent: Int? = nil, level: Int = 0, options: Options = []) {
        self.indent = indent
        self.options = options
        self.baseLevel = level
        capacity = 2048 // one file's report, most of the time: no regrowth while writing it
        buffer = Buffer(capacity: capacity)
        base = buffer.base
    }

    /// Where the next `needed` bytes go: room made for them (the buffer made
    /// this writer's own, and grown), not yet counted.
    @inline(__always)
    private mutating func room(_ needed: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(capacity - count < needed || !isKnownUniquelyReferenced(&buffer)) { reallocate(needed) }
        return base + count
    }

    private mutating func reallocate(_ needed: Int) {
        let newCapacity = capacity - count < needed ? max(capacity * 2, count + needed) : capacity
        let new = Buffer(capacity: newCapacity)
        new.base.update(from: base, count: count)
        buffer = new
        base = new.base
        capacity = newCapacity
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        room(1).pointee = byte
        count += 1
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8, _ second: UInt8) {
        let at = room(2)
        at[0] = byte
        at[1] = second
        count += 2
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        room(bytes.count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    package mutating func beginObject() {
        beginValue()
        put(0x7B)
        depth += 1
        innermostIsEmpty = true
    }
    package mutating func beginArray() {
        beginValue()
        put(0x5B)
        depth += 1
        innermostIsEmpty = true
    }

    /// Closes the innermost container (`array`: a `]`, else a `}`).
    package mutating func end(array: Bool) {
        precondition(depth > 0, "JSONWriter: end(array:) with no open container")
        depth -= 1
        if !innermostIsEmpty, let indent { newline(spaces: indent * (baseLevel + depth)) }
        innermostIsEmpty = false // the container just closed is an element of the one around it
        put(array ? 0x5D : 0x7D)
    }

    /// Starts a member of the current object; its value is written next.
    package mutating func key(_ name: String) {
        beginValue()
        appendQuoted(name)
        if indent != nil { put(0x3A, 0x20) } else { put(0x3A) } // ":"
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
            if value == 0 && value.sign == .minus { put(0x2D) }
            appendDecimal(Int64(value))
        } else {
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            append(text)
        }
    }

    /// Empties the output, keeping its storage, to write another value.
    package mutating func removeAll() {
        count = 0
        if !isKnownUniquelyReferenced(&buffer) { reallocate(0) } // nothing to copy: a fresh buffer
        depth = 0
        innermostIsEmpty = false
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
        guard depth > 0 else { return }
        if !innermostIsEmpty { put(0x2C) } // ","
        innermostIsEmpty = false
        if let indent { newline(spaces: indent * (baseLevel + depth)) }
    }

    private mutating func newline(spaces: Int) {
        let at = room(1 + spaces)
        at.pointee = 0x0A
        (at + 1).initialize(repeating: 0x20, count: spaces)
        count += 1 + spaces
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    /// `value` in decimal digits, made in place (no `String` per number).
    private mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { put(0x2D) } // "-"
        var length = 1
        var rest = magnitude / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        let at = room(length)
        var index = length
        repeat {
            index -= 1
            at[index] = 0x30 + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += length
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
        put(0x22)
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
                put(UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                switch byte {
                case 0x00 where options.contains(.dropNUL): break
                case 0x22: put(0x5C, 0x22)
                case 0x5C: put(0x5C, 0x5C)
                case 0x0A: put(0x5C, 0x6E)
                case 0x0D: put(0x5C, 0x72)
                case 0x09: put(0x5C, 0x74)
                default:
                    let at = room(6)
                    let hexDigit = { (nibble: UInt8) -> UInt8 in nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
                    (at[0], at[1], at[2], at[3]) = (0x5C, 0x75, 0x30, 0x30) // \u00
                    (at[4], at[5]) = (hexDigit(byte >> 4), hexDigit(byte & 15))
                    count += 6
                }
                clean = index + 1
            }
            put(UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        put(0x22)
    }
}
