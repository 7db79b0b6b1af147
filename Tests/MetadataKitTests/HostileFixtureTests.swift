import Foundation
import Testing
@testable import MetadataKit

/// Every file in Tests/Fixtures/hostile must fail with a MediaError that names
/// the file, or (forgiving reads) load with a warning — never crash, hang or
/// succeed silently.
@Suite struct HostileFixtureTests {
    static let files: [String] = (try? FileManager.default.contentsOfDirectory(
        atPath: TestSupport.fixtures.appendingPathComponent("hostile").path))?.sorted() ?? []

    @Test func thereAreHostileFixtures() {
        #expect(Self.files.count >= 10)
    }

    @Test(arguments: files)
    func failsCleanly(name: String) async throws {
        let url = TestSupport.fixtures.appendingPathComponent("hostile/\(name)")
        var item = MediaItem(url: url)
        do {
            try await item.load()
        } catch let error as MediaError {
            #expect(error.path == url.path)
            #expect(item.isLoaded == false)
            return
        }
        #expect(!item.warnings.isEmpty, "\(name) loaded without a warning")
    }

    @Test func validSamplesLoad() async throws {
        for name in ["sample.mp3", "sample.m4a"] {
            var item = MediaItem(url: TestSupport.fixtures.appendingPathComponent("valid/\(name)"))
            try await item.load()
            #expect(item.metadata.title == "Sine in A")
        }
    }
}
