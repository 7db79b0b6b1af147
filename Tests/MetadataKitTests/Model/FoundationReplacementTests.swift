import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitCatalog

/// The library doesn't link swift-corelibs-foundation's `Foundation` module
/// on Linux (only FoundationEssentials): the Foundation-proper calls it made
/// are replaced by its own code. The tests link Foundation, and check each
/// replacement against the call it replaces.
@Suite struct FoundationReplacementTests {
    // MARK: Trimming

    @Test func trimmingMatchesFoundationForEveryScalar() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(scalar)x\(scalar)"
            let hex = String(value, radix: 16)
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "U+\(hex)")
            #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines), "U+\(hex)")
            #expect(scalar.isFoundationWhitespace == CharacterSet.whitespaces.contains(scalar), "U+\(hex)")
            #expect(scalar.isFoundationNewline == CharacterSet.newlines.contains(scalar), "U+\(hex)")
        }
    }

    @Test func trimmingPinsTheSets() {
        #expect("\u{A0}\u{3000} a b\t\u{2009}".trimmingWhitespace() == "a b")
        #expect("\u{85}a\u{85}".trimmingWhitespace() == "\u{85}a\u{85}") // a line break, not white space
        #expect("\u{85}\u{2028}a\r\n\u{2029}".trimmingWhitespaceAndNewlines() == "a")
        #expect("\u{200B}a\u{200B}".trimmingWhitespace() == "a") // CoreFoundation keeps U+200B a space
        #expect("\u{180E}a".trimmingWhitespace() == "\u{180E}a")
        #expect(Array(" \u{301}x ".trimmingWhitespace().unicodeScalars) == ["\u{301}", "x"]) // cut by scalars
        #expect("  ".trimmingWhitespace() == "" && "".trimmingWhitespaceAndNewlines() == "")
    }

    // MARK: Case

    @Test func caseInsensitiveEqualityMatchesFoundation() {
        let known = [
            "arranger", "engineer", "producer", "DJ-mix", "mix", "UTF-8", "PointF32", "float64", "int8", "strasse", "fi", "kelvin",
        ]
        let inputs = [
            "ARRANGER", "Engineer", "dj-MIX", "DJ-mix", "dj_mix", "mixer", "utf-8", "utf8", "pointf32", "POINTF32", "FLOAT64",
            "INT8", "ınt8", "İnt8", "straße", "STRASSE", "ﬁ", "FI", "\u{212A}elvin", "ſtrasse", "", "mix ", "m\u{301}ix",
        ]
        for ascii in known {
            for input in inputs {
                #expect(
                    input.equalsIgnoringCase(ascii: ascii) == (input.caseInsensitiveCompare(ascii) == .orderedSame),
                    "\(input) against \(ascii)")
            }
        }
    }

    // MARK: Formatting

    @Test func cFormatMatchesStringFormat() {
        let doubles: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.125, 1e-7, -6.5, 0.9881591796875, 1e300, 123.456, -0.004, 59.9995]
        for value in doubles {
            for format in ["%.3f", "%+.2f dB", "%.6f", "%.0f", "%.1f", "%.5f", "%.3f s"] {
                #expect(String(cFormat: format, value) == String(format: format, value), "\(format) \(value)")
            }
        }
        for value in [0, 7, 59, 999, 1000, 65535, 0xABCD] {
            for format in ["%d", "%02d", "%03d", "%04X", "%02X", "WAVE format 0x%04X"] {
                #expect(String(cFormat: format, value) == String(format: format, value), "\(format) \(value)")
            }
        }
        #expect(String(cFormat: "[%02d:%02d.", 3, 7) == "[03:07.")
        #expect(String(cFormat: "%lld:%02lld", Int64(12), Int64(5)) == "12:05")
        let long = String(cFormat: "%.1f", 1e300) // longer than the first buffer
        #expect(long.count == 303 && long == String(format: "%.1f", 1e300))
    }

    @Test func replacingScalarMatchesFoundation() {
        let texts = ["a\nb", "a\r\nb", "a\n\u{301}b", "\n", "x|y|", "x|\u{301}y", "t\t\u{301}", "t\tu\t", "", "no match", "a\n\n\u{200D}"]
        for text in texts {
            for (target, replacement) in [("\n", " "), ("|", "\\|"), ("\t", " ")] {
                #expect(
                    Array(text.replacingScalar(Unicode.Scalar(target)!, with: replacement).unicodeScalars)
                        == Array(text.replacingOccurrences(of: target, with: replacement).unicodeScalars),
                    "\(text.debugDescription) \(target.debugDescription)")
            }
        }
    }

    // MARK: ID3v1 text

    @Test func id3v1ComposesToLatin1AsNFCDid() {
        #expect(ID3v1Writer.latin1("e\u{301}") == ([0xE9], false)) // é, composed
        #expect(ID3v1Writer.latin1("\u{212B}") == ([0xC5], false)) // ANGSTROM SIGN is Å
        #expect(ID3v1Writer.latin1("Ame\u{301}lie") == (Array("Am".utf8) + [0xE9] + Array("lie".utf8), false))
        #expect(ID3v1Writer.latin1("ő") == (Array("o".utf8), true)) // no Latin-1 ő: the letter
        #expect(ID3v1Writer.latin1("e\u{301}\u{323}") == (Array("e".utf8), true)) // é with a dot below: the letter
        #expect(ID3v1Writer.latin1("中") == ([0x3F], true)) // nothing Latin-1 holds: "?"
        #expect(ID3v1Writer.latin1("Łódź") == (Array("L".utf8) + [0xF3] + Array("dz".utf8), true))
        #expect(ID3v1Writer.latin1("\u{2260}") == (Array("=".utf8), true)) // ≠ is = with a mark
    }

    // MARK: Timed metadata JSON

    /// The timed metadata JSON is written by the package's one JSON writer:
    /// what it prints, `JSONSerialization` reads as the same values (the
    /// exact parser the same doubles), keys
    /// sorted, laid out as every other JSON output (`"key": value`).
    @Test func timedJSONReadsBackThroughJSONSerialization() throws {
        let doubles: [Double] = [
            0, 0.5, 1, 1e-7, 1e-5, 0.0001, 1e15, 1e16, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e21, 0.1,
            0.06666666666666667, 1.0 / 3, -2.5, 100, .leastNonzeroMagnitude, 1.7976931348623157e308, 12345.678,
        ]
        let text = "\"\\/\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F} é😀\u{2028}<&>"
        let integers: [Int64] = [0, -1, .min, .max, 600]
        for pretty in [false, true] {
            let value = TimedMetadataJSON.Value.array([
                .array(doubles.map { .number($0) }), .array(integers.map { .integer($0) }), .unsignedInteger(.max), .string(text),
                .object(["b": .integer(1), "a": .array([]), "B": .object([:])]),
            ])
            let printed = try #require(TimedMetadataJSON.serialize(value, pretty: pretty))
            let read = try #require(try JSONSerialization.jsonObject(with: Data(printed)) as? [Any])
            // Foundation's parser can be off by an ulp: the exact one reads the doubles.
            #expect(read.count == 5)
            let exact = try TimedMetadataJSON.parse(Data(printed))
            guard case .array(let elements) = exact, case .array(let numbers) = elements.first else {
                Issue.record("not an array of arrays")
                return
            }
            #expect(numbers.map(\.numberValue) == doubles)
            #expect((read[1] as? [NSNumber])?.map(\.int64Value) == integers)
            #expect((read[2] as? NSNumber)?.uint64Value == .max)
            #expect(read[3] as? String == text)
            let string = String(decoding: printed, as: UTF8.self)
            #expect(
                string.contains(pretty ? "{\n    \"a\": [],\n    \"B\": {},\n    \"b\": 1\n  }" : #"{"a":[],"B":{},"b":1}"#), "\(string)")
        }
        #expect(TimedMetadataJSON.serialize(.array([.number(.nan)]), pretty: false) == nil)
    }

    @Test func timedJSONDocumentRoundTrips() throws {
        let json =
            #"{"describes": 2, "timescale": 90000, "groups": [{"start": 0.06666666666666667, "duration": 1e-7, "items": [{"identifier": "mdta/a", "dataType": "float64", "value": -0.0}, {"identifier": "mdta/b", "dataType": "int64", "value": 9223372036854775807}, {"identifier": "mdta/c", "dataType": "uint64", "value": 5}, {"identifier": "mdta/d", "dataType": "PointF32", "value": [0.5, 2]}]}]}"#
        let document = try TimedMetadataDocument(json: Data(json.utf8))
        let printed = String(decoding: document.jsonData(), as: UTF8.self)
        #expect(printed.contains(#""start": 0.06666666666666667"#))
        #expect(printed.contains(#""duration": 1e-07"#))
        #expect(printed.contains(#""value": -0"#))
        #expect(printed.contains(#""value": 9223372036854775807"#))
        #expect(try TimedMetadataDocument(json: document.jsonData()) == document)
        let whole = #"{"groups": [{"start": 0, "items": [{"identifier": "mdta/a", "dataType": "int32", "value": %@}]}]}"#
        for (value, reason) in [("2.5", "not 2.5"), ("1e20", "not 1e+20"), ("18446744073709551615", "not 18446744073709551615")] {
            let error = #expect(throws: MediaError.self) {
                try TimedMetadataDocument(json: Data(whole.replacingOccurrences(of: "%@", with: value).utf8))
            }
            #expect(error?.reason.hasSuffix("needs a whole number, \(reason)") == true, "\(error?.reason ?? "")")
        }
        let integral = try TimedMetadataDocument(json: Data(whole.replacingOccurrences(of: "%@", with: "-4.0").utf8))
        #expect(integral.groups[0].items[0].value == .integer(-4))
    }

    // MARK: Paths and threads

    @Test func catalogFolderIsTheLastComponentDropped() {
        let cases = [
            ("/a/b/c", "/a/b"), ("c", ""), ("/c", "/"), ("/a/b/", "/a"), ("a//b", "a"), ("/", "/"), ("", ""), ("a/", ""),
            ("/a//b//", "/a"), ("./x", "."), ("../x/y", "../x"), ("a/b/.", "a/b"),
        ]
        for (path, folder) in cases { #expect(SQLiteCatalog.folder(of: path) == folder, "\(path)") }
    }

    @Test func conditionWaitsUntilItsDeadlineOrASignal() async {
        let condition = Condition()
        condition.lock()
        let started = Date()
        #expect(condition.wait(until: Date(timeIntervalSinceNow: 0.05)) == false)
        #expect(Date().timeIntervalSince(started) >= 0.04)
        condition.unlock()

        final class Flag: @unchecked Sendable { var isSet = false }
        let flag = Flag()
        startThread {
            usleep(20_000)
            condition.lock()
            flag.isSet = true
            condition.signal()
            condition.unlock()
        }
        condition.lock()
        while !flag.isSet { _ = condition.wait(until: Date(timeIntervalSinceNow: 5)) }
        condition.unlock()
        #expect(flag.isSet)
        let lock = Lock()
        #expect(lock.withLock { 42 } == 42)
    }
}
