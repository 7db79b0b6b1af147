import Foundation
import Testing

@testable import MetadataKit

@Suite struct TimedMetadataFormatTests {
    func item(_ type: TimedMetadataDataType, _ value: TimedMetadataValue, key: String = "com.example.value") throws -> TimedMetadataItem {
        try TimedMetadataItem(identifier: "mdta/\(key)", dataType: type, value: value)
    }

    @Test(arguments: [
        (TimedMetadataDataType.utf8, TimedMetadataValue.string("Grüße ➜"), 11),
        (.utf16, .string("Aé"), 4),
        (.float32, .number(0.1), 4), (.float64, .number(2.5), 8),
        (.int8, .integer(-128), 1), (.int16, .integer(-2), 2), (.int32, .integer(70000), 4), (.int64, .integer(-1), 8),
        (.uint8, .integer(255), 1), (.uint16, .integer(65535), 2), (.uint32, .integer(4_000_000_000), 4),
        (.pointF32, .numbers([320, 180.5]), 8), (.dimensionsF32, .numbers([16, 9]), 8),
        (.rectF32, .numbers([1, 2, 3, 4]), 16), (.affineTransformF64, .numbers([1, 0, 0, 0, 1, 0, 10, 20, 1]), 72),
        (.png, .data(Data([0x89, 0x50])), 2),
    ])
    func valuesRoundTripThroughBytes(type: TimedMetadataDataType, value: TimedMetadataValue, byteCount: Int) throws {
        let bytes = try item(type, value).encodedValue()
        #expect(bytes.count == byteCount)
        let decoded = try TimedMetadataValue(parsing: bytes, as: type)
        switch (value, decoded) {
        case (.integer(let number), .unsignedInteger(let unsigned)): #expect(UInt64(number) == unsigned)
        default: #expect(decoded == value)
        }
    }

    @Test func badValuesForATypeAreClearErrors() {
        for (type, value) in [
            (TimedMetadataDataType.int8, TimedMetadataValue.integer(128)), (.uint16, .integer(-1)),
            (.pointF32, .numbers([1])), (.utf8, .number(1)), (.rectF32, .string("x")), (.float64, .string("1")),
        ] {
            let error = #expect(throws: MediaError.self) { try item(type, value) }
            #expect(error?.code == .invalidValue)
        }
        #expect(throws: MediaError.self) { try TimedMetadataItem(identifier: "no-namespace", dataType: .utf8, value: .string("x")) }
    }

    @Test func shortAndFullTypeNames() {
        #expect(TimedMetadataDataType(name: "PointF32") == .pointF32)
        #expect(TimedMetadataDataType(name: "utf-8") == .utf8)
        #expect(TimedMetadataDataType(name: "com.apple.metadata.datatype.float64") == .float64)
        #expect(TimedMetadataDataType(name: "com.example.custom").wellKnownCode == nil)
        #expect(TimedMetadataDataType.pointF32.wellKnownCode == 70)
    }

    @Test func sampleEntryAndSamplesRoundTrip() throws {
        let center = try item(.pointF32, .numbers([320, 180]), key: "com.example.circle.center.coordinate")
        let radius = try item(.float64, .number(25), key: "com.example.circle.radius")
        let custom = try item(TimedMetadataDataType(rawValue: "com.example.blob"), .data(Data([1, 2, 3])), key: "com.example.blob")
        let groups = [
            TimedMetadataGroup(items: [center, radius], start: 0, duration: 1),
            TimedMetadataGroup(items: [custom], start: 1), TimedMetadataGroup(items: [], start: 2),
        ]
        let format = MetadataSampleFormat(groups: groups)
        #expect(format.keys.map(\.identifier) == [center.identifier, radius.identifier, custom.identifier])
        let entry = format.sampleEntry()
        #expect(Array(entry[4..<8]) == Array("mebx".utf8))
        let parsed = try MetadataSampleFormat(sampleEntry: entry)
        #expect(parsed.keys == format.keys)
        #expect(try format.sample(for: groups[2]) == [0, 0, 0, 8, 0, 0, 0, 0])
        for group in groups {
            #expect(try parsed.items(inSample: try format.sample(for: group)) == group.items)
        }
        // Every truncation of a sample or the entry fails cleanly or parses a prefix: never crashes.
        let sample = try format.sample(for: groups[0])
        for cut in 0..<sample.count where cut % 8 != 0 {
            _ = try? parsed.items(inSample: Array(sample[..<cut]))
        }
        for cut in 0..<entry.count { _ = try? MetadataSampleFormat(sampleEntry: Array(entry[..<cut])) }
    }

    @Test func exampleDocumentRoundTripsAndMakesWebVTT() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Examples/annotations/annotations.json")
        let input = try Data(contentsOf: url)
        let document = try TimedMetadataDocument(json: input)
        #expect(document.describes == 1)
        #expect(document.groups.count == 8)
        #expect(document.groups[0].items[0].dataType == .pointF32)
        #expect(document.groups.allSatisfy { $0.duration == 0.5 && $0.items.count == 3 })
        let again = try TimedMetadataDocument(json: document.jsonData())
        #expect(again == document)
        let vtt = document.webVTT(movieDuration: 5)
        #expect(vtt.hasPrefix("WEBVTT\n\n1\n00:00:00.000 --> 00:00:00.500\n[{"))
        #expect(vtt.contains("8\n00:00:03.500 --> 00:00:04.000\n[{"))
    }

    /// WebVTT times: hours as many digits as they take; a start past what
    /// 64-bit milliseconds hold (any finite number is a valid start) gives the
    /// largest time instead of a trap (found by the timedjson fuzz target).
    @Test func webVTTTimesOfAnySizeAreWritten() throws {
        #expect(TimedMetadataDocument.timestamp(0) == "00:00:00.000")
        #expect(TimedMetadataDocument.timestamp(3723.4567) == "01:02:03.457")
        #expect(TimedMetadataDocument.timestamp(-1) == "00:00:00.000")
        #expect(TimedMetadataDocument.timestamp(360_000 * 100) == "10000:00:00.000")
        let largest = "2562047788015:12:55.807"
        #expect(TimedMetadataDocument.timestamp(13_333_333_333_333_332) == largest)
        #expect(TimedMetadataDocument.timestamp(.greatestFiniteMagnitude) == largest)
        let json = Data(
            #"{"groups": [{"start": 13333333333333333.0, "duration": 0.5, "items": [{"identifier": "mdta/k", "dataType": "UTF-8", "value": "x"}]}]}"#
                .utf8)
        let vtt = try TimedMetadataDocument(json: json).webVTT(movieDuration: 5)
        #expect(vtt.hasPrefix("WEBVTT\n\n1\n\(largest) --> \(largest)\n[{"))
    }

    /// JSONSerialization gives 0 and 1 as NSNumbers that `is Bool`: they are still numbers; `true` is not.
    @Test func zeroAndOneAreNumbersAndBooleansAreNot() throws {
        for (type, text, value) in [
            ("float64", "0", TimedMetadataValue.number(0)), ("float32", "1", .number(1)),
            ("int8", "1", .integer(1)), ("uint8", "0", .integer(0)),
        ] {
            let json = Data(
                #"{"timescale": 600, "groups": [{"start": 0, "items": [{"identifier": "mdta/k", "dataType": "\#(type)", "value": \#(text)}]}]}"#
                    .utf8)
            let document = try TimedMetadataDocument(json: json)
            #expect(document.groups[0].items[0].value == value && document.timescale == 600, "\(type) \(text)")
        }
        for json in [
            #"{"groups": [{"start": 0, "items": [{"identifier": "mdta/k", "dataType": "int8", "value": true}]}]}"#,
            #"{"timescale": true, "groups": []}"#, #"{"timescale": 0, "groups": []}"#, #"{"timescale": 1.5, "groups": []}"#,
        ] {
            let error = #expect(throws: MediaError.self) { try TimedMetadataDocument(json: Data(json.utf8)) }
            #expect(error?.code == .invalidValue, "\(json)")
        }
    }

    /// Every Double and string the JSON form prints reads back unchanged (seeded; the seed is in the failure).
    @Test func printedNumbersAndStringsReadBackExactly() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var generator = SplitMix64(state: seed)
        func next() -> UInt64 { generator.next() }
        var groups: [TimedMetadataGroup] = []
        var start = 0.0
        for index in 0..<200 {
            start += Double(next() % 1000 + 1) / Double(next() % 997 + 1)
            let value = Double(bitPattern: next() >> 2 | 0x3000_0000_0000_0000) * (index % 2 == 0 ? 1 : -1)
            let text = String(decoding: (0..<8).map { _ in UInt8(next() % 0x7F + 1) }, as: UTF8.self) + "é➜😀\"\\/"
            groups.append(
                TimedMetadataGroup(
                    items: [try item(.float64, .number(value)), try item(.utf8, .string(text), key: "com.example.text")],
                    start: start, duration: Double(next() % 100 + 1) / 1e3, mediaStart: start / 3))
        }
        let document = TimedMetadataDocument(describes: 1, groups: groups, timescale: 90000)
        #expect(try TimedMetadataDocument(json: document.jsonData()) == document, "seed \(seed)")
        for bad in [
            "{", #"{"groups": [1,]}"#, #"{"groups": []} x"#, #"{"a": "\ud800"}"#, #"{"a": 01}"#, #"{"a": 1e999}"#,
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ] {
            #expect(throws: MediaError.self, "\(bad)") { try TimedMetadataDocument(json: Data(bad.utf8)) }
        }
    }

    @Test func documentErrorsNameTheGroupAndItem() {
        let bad = Data(#"{"groups": [{"start": 0, "items": [{"identifier": "mdta/x", "dataType": "PointF32", "value": "oops"}]}]}"#.utf8)
        let error = #expect(throws: MediaError.self) { try TimedMetadataDocument(json: bad) }
        #expect(error?.reason.contains("group 0, item 0") == true)
    }

    /// `identifier` is settable: a value without a namespace reads as an
    /// empty namespace (it crashed) and is refused when written.
    @Test func anEditedIdentifierWithoutANamespaceIsRefused() throws {
        var edited = try item(.utf8, .string("x"))
        edited.identifier = "no-namespace"
        #expect(edited.namespace == "" && edited.key == "no-namespace")
        #expect(throws: MediaError.self) { try edited.encodedValue() }
    }
}
