#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file as a catalog knows it: its row id and its status when last scanned.
public struct CatalogEntry: Sendable, Equatable {
    /// The row's id.
    public var id: Int64
    /// The file's absolute path.
    public var path: String
    /// The file's status when it was last scanned.
    public var status: FileStatus
}

/// One change a scan makes to a catalog.
public enum CatalogChange: Sendable {
    /// Store a file read (or failed) now: update the row `id` (keeping it) or,
    /// when nil, insert or replace the row of its host and path.
    case store(id: Int64?, record: CatalogRecord)
    /// The file of row `id` was renamed or moved to `path`, unchanged: only
    /// its path and status change.
    case move(id: Int64, path: String, status: FileStatus)
    /// The file of row `id` is gone.
    case delete(id: Int64)
}

/// A catalog of scanned files: one connection to it, used by one thread at
/// a time (a scan opens one for looking up and one for writing).
///
/// The back ends are ``SQLiteCatalog`` and ``PostgreSQLCatalog``; the schema is in docs/CATALOG.md.
/// Rows are keyed by host and absolute path, so one catalog can hold the
/// files of several machines.
public protocol Catalog: AnyObject {
    /// The host name rows are written and looked up under.
    var host: String { get }
    /// The row of `path` on this host.
    func entry(path: String) throws(CatalogError) -> CatalogEntry?
    /// The first `limit` rows of this host whose path is `path` or after it,
    /// in byte order (a scan looks its files up a run at a time: `EntryLookup`).
    func entries(from path: String, limit: Int) throws(CatalogError) -> [CatalogEntry]
    /// The rows of this host whose file had `identity` (a rename keeps it).
    func entries(identity: FileStatus.Identity) throws(CatalogError) -> [CatalogEntry]
    /// Calls `body` with every row of this host at `root` or below it.
    func forEachEntry(under root: String, _ body: (CatalogEntry) -> Void) throws(CatalogError)
    /// Applies `changes` in one transaction: all or none.
    func apply(_ changes: [CatalogChange]) throws(CatalogError)
    /// Records the start of a scan of `roots`; returns its id.
    func beginScan(roots: [String]) throws(CatalogError) -> Int64
    /// Records the end of scan `id` with its counts.
    func finishScan(_ id: Int64, summary: ScanSummary) throws(CatalogError)
}

/// Where a catalog lives when none is named: `$XDG_DATA_HOME/mdkit/library.sqlite`,
/// or `~/.local/share/mdkit/library.sqlite` without XDG_DATA_HOME.
public enum CatalogLocation {
    /// The catalog's path under `environment`'s `XDG_DATA_HOME` or `HOME`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/mdkit/library.sqlite" }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/share/mdkit/library.sqlite"
    }

    /// This machine's name (`gethostname`).
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
