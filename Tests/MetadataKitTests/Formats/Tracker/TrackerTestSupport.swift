import Foundation
import Testing

@testable import MetadataKit

/// The tracker module fixtures (Tests/Tools/make-tracker-fixtures.py wrote
/// them into Tests/Fixtures/valid) and TagLib's reader and writer of them
/// (Tests/Tools/taglib-tracker.cpp, built here with g++).
enum TrackerFixtures {
    struct Expected: Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var title: String
        var comment: String
        var trackerName: String
        var trackerVersion: String?
        var channels: Int
        var lengthInPatterns: Int
        var patternCount: Int
        var instrumentCount: Int
        var sampleCount: Int
        /// The bytes the title may take (its field, less a terminating NUL).
        var titleCapacity: Int
        var description: String { file }
    }

    static let all: [Expected] = [
        Expected(
            file: "module.mod", format: "mod", title: "mdkit mod", comment: "lead sample\nbass", trackerName: "ProTracker",
            trackerVersion: nil, channels: 4, lengthInPatterns: 3, patternCount: 2, instrumentCount: 31, sampleCount: 31, titleCapacity: 20),
        Expected(
            file: "module.s3m", format: "s3m", title: "mdkit s3m", comment: "lead sample\nbass line", trackerName: "ScreamTracker III",
            trackerVersion: "3.20", channels: 4, lengthInPatterns: 2, patternCount: 2, instrumentCount: 2, sampleCount: 2, titleCapacity: 27
        ),
        Expected(
            file: "module.xm", format: "xm", title: "mdkit xm", comment: "Lead\nPad\nlead sample\npad low\npad high",
            trackerName: "FastTracker v2.00", trackerVersion: "1.04", channels: 4, lengthInPatterns: 2, patternCount: 2, instrumentCount: 2,
            sampleCount: 3, titleCapacity: 20),
        Expected(
            file: "module.it", format: "it", title: "mdkit it", comment: "Lead instrument\nlead sample\nlead high\nHello\nfrom mdkit",
            trackerName: "Impulse Tracker", trackerVersion: "2.14", channels: 4, lengthInPatterns: 2, patternCount: 2, instrumentCount: 1,
            sampleCount: 2, titleCapacity: 25),
    ]

    static func url(_ file: String) -> URL { TestSupport.fixtures.appendingPathComponent("valid/\(file)") }

    /// A copy of fixture `file` in a new temporary directory.
    static func copy(_ file: String, to directory: URL, as name: String? = nil) throws -> URL {
        let target = directory.appendingPathComponent(name ?? file)
        try FileManager.default.copyItem(at: url(file), to: target)
        return target
    }

    /// TagLib's tracker tool: g++ and TagLib's development files.
    static var hasTagLib: Bool { TestSupport.hasTool("g++") && TestSupport.hasTool("pkg-config") }

    private static let tool: Result<URL, Error> = Result(catching: { () throws -> URL in
        let output = try TestSupport.makeTemporaryDirectory().appendingPathComponent("taglib-tracker")
        let flags = try TestSupport.runChecked("pkg-config", ["--cflags", "--libs", "taglib"]).text
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let source = TestSupport.packageRoot.appendingPathComponent("Tests/Tools/taglib-tracker.cpp")
        try TestSupport.runChecked("g++", ["-O1", "-std=c++17", "-o", output.path, source.path] + flags)
        return output
    })

    /// TagLib's reading of `url` (after setting `title`/`comment` and saving, when given).
    static func taglib(_ url: URL, title: String? = nil, comment: String? = nil) throws -> [String: Any] {
        var arguments = [url.path]
        if let title { arguments += ["--title", title] }
        if let comment { arguments += ["--comment", comment] }
        let output = try TestSupport.runChecked(try tool.get().path, arguments)
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    /// Offsets at which two files of the same size differ.
    static func changedOffsets(_ a: URL, _ b: URL) throws -> [Int] {
        let old = [UInt8](try Data(contentsOf: a)), new = [UInt8](try Data(contentsOf: b))
        #expect(old.count == new.count, "the size changed")
        return zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
    }
}
