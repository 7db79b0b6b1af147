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
        for edit in 0..<3 {
            var edited = item.metadata
            switch edit {
            case 0: edited.title = "A new title"
            case 1: edited.artist = nil
            default: edited.comments = String(repeating: "long ", count: 2_000)
            }
            let items = try MetadataChanges().resolvedItems(
                loaded: item.metadata, edited: edited, keySpaces: MP4EditPlanner.keySpaces)
            let source = try FileSource(url: url)
            let fromBasis = try MP4EditPlanner.plan(source, basis: loaded.editBasis, items, options)
            let fromFile = try MP4EditPlanner.plan(source, items, options)
            #expect(try Self.bytes(after: fromBasis, of: source) == Self.bytes(after: fromFile, of: source), "edit \(edit)")
        }
        item.metadata.title = "Saved"
        item.metadata.comments = String(repeating: "long ", count: 2_000)
        try await item.save(options: options)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Saved" && reread.metadata.comments == item.metadata.comments)
        #expect(reread.properties.duration == item.properties.duration)
    }

    /// The file's bytes after `plan`.
    static func bytes(after plan: FileEditPlan, of source: FileSource) throws -> [UInt8] {
        let written = FileSource(runs: plan.segments(originalSize: source.size), over: source)
        return try written.getBytes(at: 0, count: Int(written.size))
    }
}
