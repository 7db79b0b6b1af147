import Foundation

/// The MP4 tests' short names for helpers in ``TestSupport``. Tool checks
/// are ``TestSupport/hasTool(_:)`` (a missing tool fails the test under CI).
enum MP4Tools {
    /// ``TestSupport/hasTool(_:)``, for checks inside tests.
    static func has(_ tool: String) -> Bool { TestSupport.hasTool(tool) }

    /// ``TestSupport/hasPythonModule(_:)`` for mutagen, for checks inside tests.
    static var hasMutagen: Bool { TestSupport.hasPythonModule("mutagen") }

    /// Runs `tool`; returns its standard output, throws when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        try TestSupport.runChecked(tool, arguments).text
    }

    static func temporaryDirectory() throws -> URL { try TestSupport.makeTemporaryDirectory() }
}
