import Foundation
import Testing

@testable import MetadataKitCatalog

/// What `mdkit` loads when it starts: every run pays for it, so libpq (and
/// the twenty libraries it needs) is loaded only when a PostgreSQL catalog
/// is opened (`LibPQ`), never linked.
@Suite struct CLILinkageTests {
    #if os(Linux)
        @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
        func mdkitDoesNotLinkLibPQ() throws {
            let executable = try #require(TestSupport.mdkitExecutable)
            let libraries = try TestSupport.runChecked("ldd", [executable.path]).text
            #expect(libraries.contains("libc.so"), "ldd listed: \(libraries)")
            #expect(!libraries.contains("libpq"), "ldd listed: \(libraries)")
        }
    #endif

    /// libpq loads on demand where it is installed (CI installs it for the
    /// PostgreSQL catalog tests), with every function the catalog calls.
    @Test(.enabled(if: Capabilities.libpq, "needs libpq"))
    func libPQLoadsOnDemand() throws {
        #expect(throws: Never.self) { try LibPQ.load(from: LibPQ.names).get() }
    }

    /// Without libpq a PostgreSQL catalog is refused with a message naming
    /// the package, not a crash.
    @Test func aMissingLibPQIsAnError() {
        guard case .failure(let error) = LibPQ.load(from: ["libpq-not-installed.so.5"]) else {
            Issue.record("a library that doesn't exist loaded")
            return
        }
        #expect(error.description.contains("libpq") && error.description.contains("apt install libpq5"))
    }
}
