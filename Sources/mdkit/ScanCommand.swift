import MetadataKit
import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit scan DIR... [--db PATH] [--jsonl] [--full] [--prune] [--workers N] [--quiet]`
struct ScanCommand {
    static let usage = """
        usage: mdkit scan [--db PATH] [--jsonl] [--full] [--prune] [--workers N] [--quiet]
                          [path options] FOLDER|FILE...

        Reads every media file under each FOLDER into a catalog (SQLite, or
        PostgreSQL for a postgresql:// --db; the schema is in docs/CATALOG.md). A second scan reads only the files whose
        size, modification time or inode changed, and new ones; a file renamed
        or moved (same inode and size) keeps its row.
          --db PATH    the catalog (default: $XDG_DATA_HOME/mdkit/library.sqlite,
                       or ~/.local/share/mdkit/library.sqlite), or a PostgreSQL
                       database: --db postgresql://user@host/database (rows are
                       keyed by host and path: several machines may scan into it).
                       A missing file is created, a missing folder is not (exit 3),
                       but for the default location's
          --jsonl      also print each file read as a JSON line (as `read --jsonl`,
                       in walk order); without --db, no catalog is used and
                       every file is read
          --full       reread every file, changed or not
          --prune      remove the rows of files that are gone
          --workers N  reading workers (default: one per processor)
          --quiet      no progress line, no summary, no per-file errors on stderr
        Files that can't be read are stored with their error and reported on
        stderr, as are folders that can't be walked.
        Exit status: 0 when every file was read, 1 when any failed or a path
        could not be walked, 2 on a usage error, 3 when the catalog failed.

        Path options:
        \(PathArguments.usage)
        """

    var database: String?
    var jsonLines = false
    var quiet = false
    var options = LibraryScanner.Options()
    var pathArguments = PathArguments()

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        func value(_ option: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value\n\n\(Self.usage)") }
            return value
        }
        var onlyPaths = false
        while let argument = remaining.popFirst() {
            if onlyPaths {
                pathArguments.operands.append(argument)
                continue
            }
            switch argument {
            case "--db": database = try value(argument)
            case "--jsonl": jsonLines = true
            case "--full": options.full = true
            case "--prune": options.prune = true
            case "--quiet", "-q": quiet = true
            case "--workers":
                let text = try value(argument)
                guard let count = Int(text), (1...1024).contains(count) else { throw UsageError("--workers needs a number from 1 to 1024") }
                options.workers = count
            case "--": onlyPaths = true
            default:
                guard try pathArguments.parse(argument, value: { () throws(UsageError) -> String in try value(argument) }) else {
                    throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
                }
            }
        }
        options.walker = pathArguments.walker
        if pathArguments.isEmpty { throw UsageError("no FOLDER given\n\n\(Self.usage)") }
    }

    func run() async -> Int32 {
        let roots = pathArguments.givenPaths()
        var failed = false
        for entry in roots where entry.problem != nil {
            failed = true
            if !quiet {
                StandardStream.error.write(text: "\(TerminalText.escape(entry.path)): error: \(TerminalText.escape(entry.problem ?? ""))\n")
            }
        }
        let catalogPath: String? = database ?? (jsonLines ? nil : CatalogLocation.defaultPath())
        // As sqlite3 does: a named catalog file is created, its folder is not
        // (only the default location's folder is made when missing).
        if let database, !PostgreSQLCatalog.isConnectionString(database) {
            let folder = URL(fileURLWithPath: database).deletingLastPathComponent().path
            guard FileStatus(path: folder, followingLinks: true)?.isDirectory == true else {
                StandardStream.error.write(text: "mdkit scan: error: the catalog's folder \(folder) does not exist (create it first)\n")
                return 3
            }
        }
        var openCatalog: (@Sendable () throws(CatalogError) -> any Catalog)?
        if let catalogPath, PostgreSQLCatalog.isConnectionString(catalogPath) {
            openCatalog = { () throws(CatalogError) -> any Catalog in try PostgreSQLCatalog(connection: catalogPath) }
        } else if let catalogPath {
            openCatalog = { () throws(CatalogError) -> any Catalog in try SQLiteCatalog(path: catalogPath) }
        }
        let scanner = LibraryScanner(options: options, openCatalog: openCatalog)
        let jsonLines = jsonLines, quiet = quiet
        let counters = scanner.progress
        let progress = Progress(shown: Progress.shouldShow(quiet: quiet)) { elapsed in
            let snapshot = counters.snapshot
            return Progress.rateLine(
                Progress.Rates(
                    done: snapshot.done, total: snapshot.found, totalKnown: snapshot.walkFinished, bytes: snapshot.bytes,
                    errors: snapshot.errors), elapsed: elapsed)
        }
        let output = OutputLines(progress: progress)
        progress.start()
        let summary: ScanSummary
        do {
            let events: @Sendable (ScanEvent) -> Void = { event in
                guard !quiet else { return }
                switch event {
                case .problem(let path, let message): output.error("\(TerminalText.escape(path)): error: \(TerminalText.escape(message))")
                case .vanished(let path): output.error("\(TerminalText.escape(path)): vanished before it was read")
                case .read(let path, let result):
                    if case .failure(let error) = result {
                        output.error("\(TerminalText.escape(path)): error: \(TerminalText.escape(Report.errorMessage(error)))")
                    }
                }
            }
            let walkable = roots.filter { $0.problem == nil }.map(\.path)
            if jsonLines {
                // Rendered by the reading workers, written in walk order.
                summary = try await scanner.scan(walkable, events: events) { event in
                    guard case .read(let path, let result) = event else { return nil }
                    var writer = JSONWriter()
                    Report.json(path: path, result: result, includeItems: true, to: &writer)
                    var line = writer.bytes
                    line.append(0x0A)
                    return line
                } write: { bytes in
                    output.write(bytes)
                }
            } else {
                summary = try await scanner.scan(walkable, events: events)
            }
        } catch {
            progress.interrupt()
            StandardStream.error.write(text: "mdkit: the catalog failed: \(error.message)\n")
            return 3
        }
        progress.finish()
        if !quiet {
            var text = "scanned \(summary.seen) files: \(summary.read) read, \(summary.unchanged) unchanged, \(summary.moved) moved"
            text += ", \(summary.errors) errors"
            if summary.problems > 0 { text += ", \(summary.problems) paths not walked" }
            if summary.vanished > 0 { text += ", \(summary.vanished) vanished" }
            if options.prune { text += ", \(summary.pruned) pruned" }
            if let catalogPath {
                // A connection string may hold a password: not printed.
                text += PostgreSQLCatalog.isConnectionString(catalogPath) ? " (catalog: PostgreSQL)" : " (catalog: \(catalogPath))"
            }
            StandardStream.error.write(text: text + "\n")
        }
        return failed || summary.errors > 0 || summary.problems > 0 ? 1 : 0
    }
}

/// Lines to stdout and stderr from the scan's threads, whole lines at a
/// time; stderr's through the progress drawer (which clears its line first).
final class OutputLines: @unchecked Sendable {
    private let lock = Lock()
    private let progress: Progress

    init(progress: Progress) { self.progress = progress }

    /// Writes `bytes` (whole lines) to standard output.
    func write(_ bytes: [UInt8]) {
        lock.withLock { StandardStream.output.write(Data(bytes)) }
    }

    func error(_ text: String) {
        progress.message(text + "\n")
    }
}
