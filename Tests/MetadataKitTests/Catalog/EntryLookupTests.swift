import Foundation
import Testing

@testable import MetadataKitCatalog

/// The walk's catalog lookups, a run of rows per query: the same answers as
/// one query per path, in a fraction of the queries, on both back ends.
@Suite struct EntryLookupTests {
    @Test(arguments: TestCatalog.Backend.available)
    func runsAnswerAsSingleLookupsDo(backend: TestCatalog.Backend) async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 60, folders: 4)
        let catalog = try TestCatalog(backend)
        defer {
            try? FileManager.default.removeItem(at: root)
            catalog.remove()
        }
        try await CatalogTestSupport.scan([root], into: catalog)
        let opened = try catalog.open()
        // The walk's paths, with paths the catalog lacks among them (before, between and after its rows).
        var paths: [String] = []
        FolderWalker().walk(root.path) { entry in
            if case .file(let path, _) = entry { paths.append(path) }
        }
        #expect(paths.count == 60)
        let missing = [root.path + "/a.mp3", root.path + "/d1/f1.mp3.x", root.path + "/zz.flac", "/"]
        let asked = paths.enumerated().flatMap { index, path in index % 15 == 0 ? [missing[index / 15], path] : [path] }
        let lookup = EntryLookup(catalog: opened, runLength: 8)
        for path in asked {
            let single = try opened.entry(path: path)
            #expect(try lookup.entry(path: path) == single, "\(path)")
            #expect((single != nil) == paths.contains(path))
        }
        // 60 rows in runs of 8: about 8 queries, and a few more for the paths out of order.
        #expect(lookup.queries <= 14, "\(lookup.queries) queries for \(asked.count) lookups")

        // An empty catalog (a first scan): one query answers every later path.
        let empty = try TestCatalog(backend)
        defer { empty.remove() }
        let fresh = EntryLookup(catalog: try empty.open(), runLength: 8)
        for path in paths { #expect(try fresh.entry(path: path) == nil) }
        #expect(fresh.queries == 1)
    }
}
