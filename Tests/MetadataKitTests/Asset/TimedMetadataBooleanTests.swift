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

    @Test func aTimescaleOfOneIsANumberAndTrueIsNot() throws {
        #expect(try TimedMetadataDocument(json: Data(#"{"timescale": 1, "groups": []}"#.utf8)).timescale == 1)
        #expect(throws: MediaError.self) { try TimedMetadataDocument(json: Data(#"{"timescale": true, "groups": []}"#.utf8)) }
    }
}
