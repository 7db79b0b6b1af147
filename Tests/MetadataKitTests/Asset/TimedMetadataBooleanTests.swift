import Foundation
import Testing

@testable import MetadataKit

/// JSON booleans are not numbers in an annotation document, and the numbers
/// 0 and 1 are not booleans. Apple's Foundation bridges an `NSNumber` 0 or 1
/// to `Bool` (`is Bool` is true of it), so the document tells them apart by
/// the parsed value's case (`TimedMetadataJSON.Value.isBoolean`), never by `is Bool`.
/// There is no boolean data type among the well-known ones, so `true` and
/// `false` are refused wherever a value is read.
@Suite struct TimedMetadataBooleanTests {
    static let integerTypes = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    static let floatTypes = ["float32", "float64"]

    func document(_ type: String, _ value: String) throws -> TimedMetadataDocument {
        try TimedMetadataDocument(
            json: Data(
                #"""
                {"groups": [{"start": 0, "items": [{"identifier": "mdta/k", "dataType": "\#(type)", "value": \#(value)}]}]}
                """#.utf8))
    }

    @Test(arguments: integerTypes)
    func integerTypesTakeZeroAndOne(type: String) throws {
        for number in [0, 1] {
            #expect(try document(type, String(number)).groups[0].items[0].value == .integer(Int64(number)), "\(type) \(number)")
        }
    }

    @Test(arguments: floatTypes)
    func floatTypesTakeZeroAndOne(type: String) throws {
        for number in [0, 1] {
            #expect(try document(type, String(number)).groups[0].items[0].value == .number(Double(number)), "\(type) \(number)")
        }
    }

    @Test(arguments: integerTypes + floatTypes)
    func numberTypesRefuseTrueAndFalse(type: String) {
        for literal in ["true", "false"] {
            let error = #expect(throws: MediaError.self, "\(type) \(literal)") { try document(type, literal) }
            #expect(error?.code == .invalidValue)
            #expect(error?.reason.contains("needs a number value") == true, "\(error?.reason ?? "")")
        }
    }

    /// The parser's values as the document sees them: numbers are never
    /// booleans, whatever their value; `true` and `false` always are.
    @Test func theParserKeepsBooleansApartFromZeroAndOne() throws {
        let parsed = try TimedMetadataJSON.parse(Data("[0, 1, -1, 1.0, 18446744073709551615, true, false]".utf8))
        guard case .array(let values) = parsed else {
            Issue.record("not an array: \(parsed)")
            return
        }
        #expect(values.map(\.isBoolean) == [false, false, false, false, false, true, true])
        #expect(values == [.integer(0), .integer(1), .integer(-1), .number(1), .unsignedInteger(.max), .bool(true), .bool(false)])
    }

    /// A group's times and a number array's elements: 0 and 1 are numbers,
    /// `true` and `false` are refused naming what is wrong (they were 1 and 0,
    /// as Foundation's `NSNumber` bridging gave them); a `null` time is absent.
    @Test func timesAndNumberArraysRefuseTrueAndFalse() throws {
        func groups(_ members: String) throws -> [TimedMetadataGroup] {
            try TimedMetadataDocument(json: Data(#"{"groups": [{\#(members), "items": []}]}"#.utf8)).groups
        }
        #expect(try groups(#""start": 1, "duration": 1, "mediaStart": 0"#).map { [$0.start, $0.duration, $0.mediaStart] } == [[1, 1, 0]])
        #expect(try groups(#""start": 0, "duration": null, "mediaStart": null"#).map { [$0.duration, $0.mediaStart] } == [[nil, nil]])
        for (key, members) in [
            ("start", #""start": true"#), ("start", #""start": false"#), ("duration", #""start": 0, "duration": true"#),
            ("mediaStart", #""start": 0, "mediaStart": false"#), ("duration", #""start": 0, "duration": "2""#),
        ] {
            let error = #expect(throws: MediaError.self, "\(members)") { try groups(members) }
            #expect(error?.code == .invalidValue && error?.reason.contains("\"\(key)\" must be a number") == true, "\(error?.reason ?? "")")
        }
        #expect(try document("pointF32", "[0, 1]").groups[0].items[0].value == .numbers([0, 1]))
        for literal in ["[true, 1]", "[0, false]"] {
            let error = #expect(throws: MediaError.self, "\(literal)") { try document("pointF32", literal) }
            #expect(error?.reason.contains("needs an array of numbers") == true, "\(error?.reason ?? "")")
        }
    }

    @Test func aTimescaleOfOneIsANumberAndTrueIsNot() throws {
        #expect(try TimedMetadataDocument(json: Data(#"{"timescale": 1, "groups": []}"#.utf8)).timescale == 1)
        #expect(throws: MediaError.self) { try TimedMetadataDocument(json: Data(#"{"timescale": true, "groups": []}"#.utf8)) }
        let unset = try TimedMetadataDocument(json: Data(#"{"groups": []}"#.utf8)).timescale
        #expect(try TimedMetadataDocument(json: Data(#"{"timescale": null, "groups": []}"#.utf8)).timescale == unset)
    }
}
