import Foundation
import Testing

@testable import MetadataKit

/// A save plans from the load's reading of the movie (its edit basis): the
/// plan must be the one a fresh reading of the file gives.
@Suite struct MP4EditBasisTests {
    @Test func aSavePlannedFromTheLoadsReadingWritesWhatAFreshReadingWould() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("sample.m4a")
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"), to: url)
        let loaded = try MP4Parser.parse(FileSource(url: url), url)
        #expect(loaded.editBasis is MP4Movie.Reading)
        var item = try await MediaItem.loaded(url)
        let options = SaveOptions(durability: .noSync)
        // In place, shrinking, and growing past the padding.
        for (edit, edited) in TestSupport.sampleEdits(of: item.metadata, commentLength: 10_000).enumerated() {
            let items = try MetadataChanges().resolvedItems(
                loaded: item.metadata, edited: edited, keySpaces: MP4EditPlanner.keySpaces)
            let source = try FileSource(url: url)
            let fromBasis = try MP4EditPlanner.plan(source, basis: loaded.editBasis, items, options)
            let fromFile = try MP4EditPlanner.plan(source, items, options)
            #expect(
                try TestSupport.bytes(after: fromBasis, of: source) == TestSupport.bytes(after: fromFile, of: source), "edit \(edit)")
        }
        item.metadata.title = "Saved"
        item.metadata.comments = String(repeating: "long ", count: 2_000)
        try await item.save(options: options)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Saved" && reread.metadata.comments == item.metadata.comments)
        #expect(reread.properties.duration == item.properties.duration)
    }
}
