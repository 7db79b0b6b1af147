#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Looks up the catalog rows of the files a walk finds, a run of rows per
/// query instead of a query per file.
///
/// A walk finds paths almost in byte order (names sorted in each folder), so
/// a lookup that misses fetches the rows from that path on (``runLength`` of
/// them) and remembers the range they cover: the next paths of the walk that
/// fall in it are answered from memory, present or absent, with no query.
/// Only the last run is kept, so memory stays flat in the number of files;
/// a path out of the range (the walk's order and byte order differ around
/// names such as `a`, `a.mp3`, `a0`) costs one query more, and an empty
/// catalog (a first scan) answers every path from the range `[first, ∞)`.
final class EntryLookup {
    private let catalog: any Catalog
    let runLength: Int
    /// The rows of the last run, by path.
    private var rows: [String: CatalogEntry] = [:]
    /// The range the last run covers: every row with a path in it is in ``rows``.
    private var lower: String?
    /// Nil when the run reached the end of the rows (no upper bound).
    private var upper: String?
    /// Queries made (for tests and benchmarks).
    private(set) var queries = 0

    init(catalog: any Catalog, runLength: Int = 512) {
        self.catalog = catalog
        self.runLength = max(2, runLength)
    }

    /// The row of `path` on the catalog's host, or nil.
    func entry(path: String) throws(CatalogError) -> CatalogEntry? {
        if !covers(path) { try fetch(from: path) }
        return rows[path]
    }

    private func covers(_ path: String) -> Bool {
        guard let lower, !Self.precedes(path, lower) else { return false }
        guard let upper else { return true }
        return !Self.precedes(upper, path)
    }

    private func fetch(from path: String) throws(CatalogError) {
        queries += 1
        let run = try catalog.entries(from: path, limit: runLength)
        rows.removeAll(keepingCapacity: true)
        for entry in run { rows[entry.path] = entry }
        lower = path
        // A full run covers up to its last path; a short one, everything after `path`.
        upper = run.count == runLength ? run.last?.path : nil
    }

    /// Byte order (the catalog's `ORDER BY path`).
    static func precedes(_ a: String, _ b: String) -> Bool {
        FolderWalker.bytesPrecede(a, b)
    }
}
