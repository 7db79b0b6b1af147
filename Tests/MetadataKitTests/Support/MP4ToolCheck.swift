import Foundation

/// The MP4 interop tests' names for the shared helpers in ``TestSupport``.
enum MP4Tools {
    static func has(_ tool: String) -> Bool { TestSupport.hasTool(tool) }

    static let hasMutagen: Bool = TestSupport.hasPythonModule("mutagen")

    /// Runs `tool`; returns its standard output, throws when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        try TestSupport.runChecked(tool, arguments).text
    }

    static func temporaryDirectory() throws -> URL { try TestSupport.makeTemporaryDirectory() }
}
