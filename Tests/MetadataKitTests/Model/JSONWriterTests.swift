import Foundation
import Testing

@testable import MetadataKit

/// The package's JSON writer writes through a pointer into a buffer it owns:
/// its layout, escapes and growth, and that a copy of a writer is a copy.
@Suite struct JSONWriterTests {
    private func text(_ writer: JSONWriter) -> String { String(decoding: writer.bytes, as: UTF8.self) }

    @Test func indentedLayoutOfNestedContainers() {
        var json = JSONWriter(indent: 2)
        json.beginObject()
        json.member("name", "a")
        json.key("empty")
        json.beginArray()
        json.end(array: true)
        json.key("list")
        json.beginArray()
        json.integer(-12)
        json.beginObject()
        json.member("flag", true)
        json.end(array: false)
        json.null()
        json.end(array: true)
        json.member("last", Int64.min)
        json.end(array: false)
        #expect(
            text(json) == """
                {
                  "name": "a",
                  "empty": [],
                  "list": [
                    -12,
                    {
                      "flag": true
                    },
                    null
                  ],
                  "last": -9223372036854775808
                }
                """)
    }

    @Test func oneLineWithoutIndentAndLevelForTheClosingBracket() {
        var json = JSONWriter()
        json.beginObject()
        json.member("a", 1)
        json.key("b")
        json.beginObject()
        json.end(array: false)
        json.end(array: false)
        #expect(text(json) == #"{"a":1,"b":{}}"#)

        var nested = JSONWriter(indent: 4, level: 1)
        nested.beginArray()
        nested.unsignedInteger(UInt64.max)
        nested.end(array: true)
        #expect(text(nested) == "[\n        18446744073709551615\n    ]")
    }

    @Test func stringsAreEscapedAsJSONNeeds() throws {
        var json = JSONWriter()
        let awkward = "q\"b\\n\nr\rt\tc\u{01}\u{1F}<&>é✓\u{0}" + String(repeating: "x", count: 20) + "\""
        json.string(awkward)
        let written = text(json)
        #expect(written == #""q\"b\\n\nr\rt\tc\u0001\u001f<&>é✓\u0000xxxxxxxxxxxxxxxxxxxx\"""#)
        // Foundation reads back the same text.
        let decoded = try JSONSerialization.jsonObject(with: Data(json.bytes), options: .fragmentsAllowed) as? String
        #expect(decoded == awkward)

        var markup = JSONWriter(options: [.escapeMarkup, .dropNUL])
        markup.string("a<b>&\u{0}c")
        #expect(text(markup) == #""a\u003cb\u003e\u0026c""#)
    }

    @Test func numbers() {
        var json = JSONWriter()
        json.beginArray()
        for value in [0.0, -0.0, 2, 0.5, 1e-7, 1e16, -3.25, .nan] { json.number(value) }
        json.end(array: true)
        #expect(text(json) == "[0,-0,2,0.5,1e-07,1e+16,-3.25,null]")
        #expect(json.wroteNonFinite)
    }

    /// Output past the first buffer's 2 KiB grows it; a long string escapes
    /// near the growth points.
    @Test func growsPastItsFirstBuffer() throws {
        var json = JSONWriter(indent: 2)
        json.beginArray()
        var expected: [String] = []
        for index in 0..<500 {
            let value = String(repeating: "\u{7}é", count: index % 37) + "#\(index)"
            json.string(value)
            expected.append(value)
        }
        json.end(array: true)
        #expect(json.bytes.count > 8192)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String]
        #expect(decoded == expected)
    }

    /// A copy of a writer owns its bytes: writing to one leaves the other as it was.
    @Test func aCopyIsIndependent() {
        var first = JSONWriter()
        first.beginArray()
        first.integer(1)
        var second = first
        second.integer(2)
        first.integer(3)
        first.end(array: true)
        second.end(array: true)
        #expect(text(first) == "[1,3]")
        #expect(text(second) == "[1,2]")

        var third = first
        third.removeAll()
        third.string("x")
        #expect(text(third) == #""x""#)
        #expect(text(first) == "[1,3]")
    }
}
