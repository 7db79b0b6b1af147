import Foundation
import Testing

@testable import MetadataKit

/// Damaged modules: every prefix of each fixture, and counts, sizes and
/// offsets that point past the file. Each reads with warnings that say
/// where (and is then read-only) or fails with a `MediaError`.
@Suite struct TrackerHostileTests {
    /// What detection and the format's reader make of `bytes` (what
    /// ``MediaItem/load()`` does, with the reader's own editability).
    static func load(_ bytes: [UInt8], name: String) -> Result<(format: String, parsed: ParsedFile), Error> {
        Result {
            let source = FileSource(bytes: bytes, path: name)
            let url = URL(fileURLWithPath: name)
            let format = try MediaFormat.detect(source, url: url)
            return (format.identifier, try format.parse(source, url))
        }
    }

    @Test(arguments: TrackerFixtures.all) func everyPrefix(_ expected: TrackerFixtures.Expected) throws {
        let bytes = [UInt8](try Data(contentsOf: TrackerFixtures.url(expected.file)))
        let fields = try TrackerWriteTests.fields(of: TrackerFixtures.url(expected.file))
        let textEnd = fields.map(\.upperBound).max() ?? 0
        for length in 0..<bytes.count {
            switch Self.load(Array(bytes.prefix(length)), name: expected.file) {
            case .failure(let error):
                #expect(error is MediaError, "prefix \(length): \(error)")
            case .success(let (format, item)):
                guard format == expected.format else { continue }
                let metadata = Metadata(items: item.items)
                if length < textEnd {
                    // A name or the message is cut: said, with where, and not written.
                    #expect(!item.warnings.isEmpty && item.warnings.allSatisfy { $0.offset != nil }, "prefix \(length)")
                    #expect(!item.isEditable, "prefix \(length)")
                } else {
                    #expect(metadata.title == expected.title && metadata.comments == expected.comment, "prefix \(length)")
                }
            }
        }
    }

    static func patched(_ file: String, _ patches: [(Int, [UInt8])]) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: TrackerFixtures.url(file)))
        for (offset, values) in patches { bytes.replaceSubrange(offset..<offset + values.count, with: values) }
        return bytes
    }

    @Test func countsAndOffsetsPastTheEnd() throws {
        let cases: [(String, [(Int, [UInt8])], String)] = [
            ("module.s3m", [(34, [0xFF, 0xFF])], "S3M instruments 65535"),
            ("module.s3m", [(32, [0xFF, 0xFF])], "S3M orders 65535"),
            ("module.xm", [(70, [0xFF, 0xFF]), (72, [0xFF, 0xFF])], "XM patterns and instruments 65535"),
            ("module.xm", [(60, [0xFF, 0xFF, 0xFF, 0xFF])], "XM header size past the end"),
            ("module.xm", [(336, [0, 0, 0, 0])], "XM pattern header length 0"),
            ("module.it", [(34, [0xFF, 0xFF]), (36, [0xFF, 0xFF])], "IT instruments and samples 65535"),
            ("module.it", [(56, [0xF0, 0xFF, 0xFF, 0x7F])], "IT message past the end"),
            ("module.it", [(54, [0xFF, 0xFF])], "IT message longer than the file"),
            ("module.it", [(195, [0xFF, 0xFF, 0xFF, 0x7F])], "IT instrument offset past the end"),
        ]
        for (file, patches, what) in cases {
            let start = Date()
            switch Self.load(try Self.patched(file, patches), name: file) {
            case .failure(let error):
                #expect(error is MediaError, "\(what): \(error)")
            case .success(let (_, item)):
                #expect(!item.warnings.isEmpty && item.warnings.allSatisfy { $0.offset != nil }, "\(what): \(item.warnings)")
                #expect(!item.isEditable, "\(what)")
            }
            #expect(Date().timeIntervalSince(start) < 5, "\(what) took too long")
        }
    }

    /// A cut module can't be saved; the save says why.
    @Test func cutModuleIsNotWritten() throws {
        let bytes = [UInt8](try Data(contentsOf: TrackerFixtures.url("module.it")))
        let source = FileSource(bytes: Array(bytes.prefix(700)), path: "cut.it")
        let module = try ImpulseTrackerModule.read(source)
        #expect(throws: MediaError.self) { try TrackerEditPlanner.plan(module, source: source, items: []) }
    }
}
