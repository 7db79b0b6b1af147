import Foundation
import MetadataKit
import MetadataKitCatalog

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
                       keyed by host and path: several machines may scan into it)
          --jsonl      also print each file read as a JSON line (as `read --jsonl`,
                       in the order the files finish); without --db, no catalog
                       is used and every file is read
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
            if !quiet { FileHandle.standardError.write(Data("\(entry.path): error: \(entry.problem ?? "")\n".utf8)) }
        }
        let catalogPath: String? = database ?? (jsonLines ? nil : CatalogLocation.defaultPath())
        var openCatalog: (@Sendable () throws(CatalogError) -> any Catalog)?
        if let catalogPath, PostgreSQLCatalog.isConnectionString(catalogPath) {
            openCatalog = { () throws(CatalogError) -> any Catalog in try PostgreSQLCatalog(connection: catalogPath) }
        } else if let catalogPath {
            openCatalog = { () throws(CatalogError) -> any Catalog in try SQLiteCatalog(path: catalogPath) }
        }
        let scanner = LibraryScanner(options: options, openCatalog: openCatalog)
        let output = OutputLines()
        let jsonLines = jsonLines, quiet = quiet
        let progress = quiet ? nil : ScanProgressLine(scanner.progress)
        progress?.start()
        let summary: ScanSummary
        do {
            summary = try await scanner.scan(roots.filter { $0.problem == nil }.map(\.path)) { event in
                switch event {
                case .problem(let path, let message):
                    if !quiet { output.error("\(path): error: \(message)") }
                case .vanished(let path):
                    if !quiet { output.error("\(path): vanished before it was read") }
                case .read(let path, let result):
                    if jsonLines {
                        var writer = JSONWriter()
                        Report.json(path: path, result: result, includeItems: true, to: &writer)
                        output.line(writer.bytes)
                    }
                    if !quiet, case .failure(let error) = result { output.error("\(path): error: \(Report.errorMessage(error))") }
                }
            }
        } catch {
            progress?.stop()
            FileHandle.standardError.write(Data("mdkit: the catalog failed: \(error.message)\n".utf8))
            return 3
        }
        progress?.stop()
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
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        return failed || summary.errors > 0 || summary.problems > 0 ? 1 : 0
    }
}

/// Lines to stdout and stderr from the scan's threads, one whole line at a time.
final class OutputLines: @unchecked Sendable {
    private let lock = NSLock()

    func line(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data(bytes + [0x0A]))
    }

    func error(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        // Clear a progress line first (on a terminal it is redrawn after).
        FileHandle.standardError.write(Data(((isatty(2) == 1 ? "\r\u{1B}[K" : "") + text + "\n").utf8))
    }
}

/// The scan's progress line on a terminal's stderr: files done of found
/// (the walk counts ahead), files/s, MB/s, errors, ETA once the walk is done;
/// redrawn in place a few times a second; nothing when stderr is not a TTY.
/// (A scan-only stand-in for the shared progress type.)
final class ScanProgressLine: @unchecked Sendable {
    private let progress: ScanProgress
    private let lock = NSLock()
    private var running = false
    private var thread: Thread?
    private let started = Date()

    init(_ progress: ScanProgress) { self.progress = progress }

    func start() {
        guard isatty(2) == 1 else { return }
        lock.lock()
        running = true
        lock.unlock()
        let thread = Thread { [self] in
            while draw() { Thread.sleep(forTimeInterval: 0.25) }
        }
        self.thread = thread
        thread.start()
    }

    /// Clears the line; nothing is drawn after.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        if running { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        running = false
    }

    static func line(_ snapshot: ScanProgress.Snapshot, elapsed: Double) -> String {
        let seconds = max(elapsed, 0.001)
        let rate = Double(snapshot.done) / seconds
        var text = "\(snapshot.done)/\(snapshot.found)\(snapshot.walkFinished ? "" : "+") files"
        text += String(format: "  %.0f files/s  %.1f MB/s", rate, Double(snapshot.bytes) / seconds / 1e6)
        if snapshot.errors > 0 { text += "  \(snapshot.errors) errors" }
        if snapshot.walkFinished && rate > 0 {
            let left = Int(Double(snapshot.found - snapshot.done) / rate)
            text += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        return text
    }

    /// Draws the line unless stopped; returns whether it is still running.
    private func draw() -> Bool {
        let text = Self.line(progress.snapshot, elapsed: -started.timeIntervalSinceNow)
        lock.lock()
        defer { lock.unlock() }
        if running { FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8)) }
        return running
    }
}
