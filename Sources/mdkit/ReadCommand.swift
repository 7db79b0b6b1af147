import MetadataKit
import MetadataKitCatalog
import Synchronization

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

/// `mdkit read [--json] [--items] FILE...`
struct ReadCommand {
    static let usage = """
        usage: mdkit read [--json | --jsonl] [--items] [path options] FILE|FOLDER...
               mdkit read --lyrics | --lrc FILE...

        Prints the metadata and properties of each FILE (and of the media
        files in each FOLDER, walked in name order).
          --json    one JSON array, one object per FILE, in argument order
                    (a file that can't be read is an object with "error")
          --jsonl   the same objects, one per line, streamed in the same order
          --items   also list every raw item (key space, key, value, data type)
          --lyrics  print only the lyrics: timed lines as "[mm:ss.xx] text" (ID3
                    SYLT, or LRC text in the lyrics), else the plain lyrics
          --lrc     print only the timed lyrics, as an LRC file
                    (a file without them: "FILE: no lyrics" on stderr, exit status 1)
        Field names: mdkit fields.
        Without --json, a file that can't be read is reported on stderr as
        "FILE: error: <code>: <reason>". Local damage that was read around
        is shown as "warning" lines (JSON: "warnings").
        Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.

        Path options:
        \(PathArguments.usage)
        """

    var json = false
    var jsonLines = false
    var includeItems = false
    var pathArguments = PathArguments()
    /// `--lyrics` or `--lrc`: print only the lyrics.
    var lyrics: LyricsOutput?

    enum LyricsOutput { case lines, lrc }

    init(arguments: [String]) throws(UsageError) {
        pathArguments = try PathArguments.parsing(arguments, usage: Self.usage) { argument throws(UsageError) -> Bool in
            switch argument {
            case "--json": json = true
            case "--jsonl": jsonLines = true
            case "--items": includeItems = true
            case "--lyrics": lyrics = .lines
            case "--lrc": lyrics = .lrc
            default: return false
            }
            return true
        }
        if json && jsonLines { throw UsageError("--json and --jsonl exclude each other") }
        if pathArguments.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
        if lyrics != nil && (json || jsonLines || includeItems) {
            throw UsageError("--lyrics and --lrc print only the lyrics (no --json, --jsonl, --items)")
        }
    }

    /// Reads every file (in parallel), prints in argument order; returns the exit status.
    func run() async -> Int32 { read() }

    /// ``read()``, which main.swift calls on the main thread: a read starts
    /// no Swift task and no Dispatch thread (bringing those up took about
    /// 1.5 ms, a quarter of reading 200 files).
    func runBlocking() -> Int32? { read() }

    /// ``run()`` on the calling thread and threads of its own
    /// (``forEachOnThreads(_:_:)``).
    func read() -> Int32 {
        // This process writes nothing: loads may ask a listing of each
        // folder whether an interrupted save left a journal (JournalListings).
        JournalListings.shared.isEnabled = true
        let rendered: [(text: [UInt8], failed: Bool)]
        if jsonLines {
            return runJSONLines(pathArguments.entries())
        } else if lyrics == nil {
            rendered = readGivenPathsFirst()
        } else {
            let entries = pathArguments.entries()
            let paths = entries.map(\.path)
            rendered = Self.forEachOnThreads(paths, render(problems: Self.problems(entries), json: json, several: paths.count > 1))
        }
        var output = StandardOutput()
        if json {
            output.append("[")
            for (index, piece) in rendered.enumerated() {
                output.append(index == 0 ? "\n  " : ",\n  ")
                output.append(piece.text)
            }
            output.append(rendered.isEmpty ? "]\n" : "\n]\n")
        } else {
            var errors: [UInt8] = []
            for piece in rendered {
                if piece.failed { errors += piece.text } else { output.append(piece.text) }
            }
            output.flush()
            if !errors.isEmpty { StandardStream.error.write(Data(errors)) } // escaped by render
        }
        output.flush()
        return rendered.contains { $0.failed } ? 1 : 0
    }

    /// Makes the tables every read needs (the key map, the converters) on
    /// another core while this one parses the arguments and checks the
    /// paths; otherwise the first worker makes them while the others wait
    /// for it. On a thread of ``BlockingWork``, which
    /// ``forEachOnThreads(_:_:)`` then reuses.
    static func prepare() {
        let arguments = CommandLine.arguments
        BlockingWork.start {
            let map = MetadataKeyMap.standard
            _ = MetadataConverterRegistry.standard
            // Then the index of the main tag's keys of the formats the files'
            // extensions name (ID3v2 for .mp3), which the first file's items
            // would otherwise wait for.
            for keySpace in likelyKeySpaces(of: arguments) { map.prepare(keySpace) }
            awaitFiles(forAtMost: .milliseconds(1))
        }
    }

    /// Set by the first thread that takes a file (``forEachOnThreads(_:_:)``),
    /// once the work is queued for the thread of ``prepare()``; and by
    /// ``forEach(_:_:)``, whose tasks that thread doesn't run.
    private static let filesQueued = Atomic<Bool>(false)

    /// Keeps the thread of ``prepare()`` running until the files are queued
    /// for it (at most `limit`), so that it takes them from the queue as it
    /// returns: a thread asleep would be woken by this one, and Linux runs a
    /// thread it wakes on the waker's core, which then waits, while the other
    /// core may idle for milliseconds before the scheduler moves one of them
    /// (seen in `perf sched` on a 2-core VM: 3.5 ms in one run of eight).
    ///
    /// The wait yields its core to any other thread ready to run; with one
    /// core there is nothing to hand over, and no wait.
    private static func awaitFiles(forAtMost limit: Duration) {
        guard workers(for: 2) > 1 else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var checks = 0
        while !filesQueued.load(ordering: .acquiring) {
            sched_yield()
            checks += 1
            if checks % 16 == 0, clock.now >= deadline { return }
        }
    }

    /// The first key space of each format whose extension ends one of
    /// `arguments` (at most four), in the order met.
    static func likelyKeySpaces(of arguments: [String]) -> [MetadataKeySpace] {
        var extensions: [Substring] = []
        for argument in arguments.dropFirst(2) where extensions.count < 4 {
            guard let dot = argument.utf8.lastIndex(of: UInt8(ascii: ".")),
                argument.utf8[dot...].contains(UInt8(ascii: "/")) == false
            else { continue }
            let pathExtension = argument[argument.index(after: dot)...]
            if !extensions.contains(pathExtension) { extensions.append(pathExtension) }
        }
        var keySpaces: [MetadataKeySpace] = []
        for pathExtension in extensions {
            if let keySpace = MediaFormat.first(withExtension: pathExtension.lowercased())?.keySpaces.first,
                !keySpaces.contains(keySpace)
            {
                keySpaces.append(keySpace)
            }
        }
        return keySpaces
    }

    /// Runs `body` for every path on the calling thread and one more thread
    /// per further core (``Parallel/map(_:width:reusingThreads:startingEachThread:_:)``),
    /// each taking the next path from a shared counter; results in argument
    /// order. For a command that runs no task of its own (``read()``).
    static func forEachOnThreads<Value: Sendable>(_ paths: [String], _ body: @Sendable (String, FileURL) -> Value) -> [Value] {
        let directory = Self.workingDirectory()
        let workers = Self.workers(for: paths.count)
        // The thread of prepare() goes on with the files once the tables are
        // made: no thread is started beside it to share this one's core.
        return Parallel.map(
            paths.count, width: workers, reusingThreads: true,
            startingEachThread: {
                filesQueued.store(true, ordering: .releasing)
                Self.reserveHeap(files: paths.count, workers: workers)
            }
        ) {
            body(paths[$0], FileURL(paths[$0], in: directory))
        }
    }

    /// Workers for `count` files: one per core, at most one per file.
    static func workers(for count: Int) -> Int {
        min(count, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    /// A worker's heap reserved for its share of `files` (about 4 KiB each, up to 1 MiB).
    static func reserveHeap(files: Int, workers: Int) {
        Allocator.reserveThreadHeap(populating: min(files / max(1, workers), 256) * 4096)
    }

    /// Runs `body` for every path, one worker task per core, each taking the
    /// next path from a shared counter (no per-file hand-off through this
    /// task); results in argument order.
    static func forEach<Value: Sendable>(_ paths: [String], _ body: @escaping @Sendable (String, FileURL) async -> Value) async -> [Value] {
        // Absolute paths made once here: URL(fileURLWithPath:) would ask for
        // the working directory and stat every file to see if it's a folder.
        // Made by the workers, in parallel, as they take the paths.
        filesQueued.store(true, ordering: .releasing) // the thread of prepare() needn't wait: no handover here
        let directory = Self.workingDirectory()
        let queue = WorkQueue(count: paths.count)
        let workers = Self.workers(for: paths.count)
        var results = [Value?](repeating: nil, count: paths.count)
        await withTaskGroup(of: [(Int, Value)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var done: [(Int, Value)] = []
                    Self.reserveHeap(files: paths.count, workers: workers)
                    while let index = queue.next() {
                        done.append((index, await body(paths[index], FileURL(paths[index], in: directory))))
                    }
                    return done
                }
            }
            for await done in group {
                for (index, value) in done { results[index] = value }
            }
        }
        return results.map { $0! }
    }
}

extension ReadCommand {
    /// The file at `url`, loaded; a path in `problems` (a folder that could
    /// not be walked) fails with that reason without being read.
    static func load(_ path: String, _ url: FileURL, problems: [String: String]) -> Result<MediaItem, any Error> {
        var item = url.mediaItem()
        do {
            if let problem = problems[path] { throw MediaError(.io, problem) }
            try item.loadOnCallingThread() // the command's threads may block: no thread hop per file
            return .success(item)
        } catch {
            return .failure(error)
        }
    }

    /// Renders one file: each task loads its file and renders it, so the
    /// rendering runs in parallel too; the pieces are only joined, in order.
    /// `json`: an object (indented for `--json`, one line for `--jsonl`), else
    /// a table (errors as a line for stderr). A path in `problems` (a folder
    /// that could not be walked) is reported with that reason, not read.
    func render(problems: [String: String], json: Bool, indent: Int? = 2, several: Bool = true)
        -> @Sendable (String, FileURL) -> (text: [UInt8], failed: Bool)
    {
        let includeItems = includeItems, lyrics = lyrics
        return { path, url in
            let result = Self.load(path, url, problems: problems)
            var text: [UInt8] = []
            if let lyrics, case .success(let item) = result {
                // No lyrics is a failure, as a missing field elsewhere: said on stderr.
                let none = lyrics == .lrc ? item.lrcLyrics == nil : item.timedLyrics == nil && item.metadata.lyrics == nil
                if none { return (Array(TerminalText.escape("\(path): no lyrics").utf8) + [0x0A], true) }
                return (Array(Report.lyrics(of: item, as: lyrics, path: several ? path : nil).utf8), false)
            }
            switch (json, result) {
            case (true, _):
                var writer = JSONWriter(indent: indent, level: indent == nil ? 0 : 1)
                Report.json(path: path, result: result, includeItems: includeItems, to: &writer)
                text = writer.bytes
            case (false, .success(let item)):
                text = Array(Report.table(path: path, item: item, includeItems: includeItems).utf8)
            case (false, .failure(let error)):
                // Errors go to stderr in table mode, as `write` reports them.
                text = Array(TerminalText.escape("\(path): error: \(Report.errorMessage(error))").utf8 + [0x0A])
            }
            return (text, result.isFailure)
        }
    }

    /// What reading a given path found: its report, or that it is a folder.
    enum GivenPathOutcome: Sendable {
        case read(text: [UInt8], failed: Bool)
        case folder
    }

    /// The reports of every file to read, in order, as reading
    /// ``PathArguments/entries()`` gives them — without a `stat` of every
    /// given path to find the folders among them first: each given path is
    /// read as a file, and only one that fails is asked whether it is a
    /// folder; the folders are then walked and their files read in their
    /// place. Not for `--lyrics`, whose reports depend on the number of
    /// files before any is read.
    func readGivenPathsFirst() -> [(text: [UInt8], failed: Bool)] {
        let given = pathArguments.givenPaths()
        let renderer = render(problems: Self.problems(given), json: json)
        // A path with a problem (a list that could not be read) is never walked.
        let problemPaths = Set(given.filter { $0.problem != nil }.map(\.path))
        let outcomes = Self.forEachOnThreads(given.map(\.path)) { path, url -> GivenPathOutcome in
            let report = renderer(path, url)
            if report.failed, !problemPaths.contains(path), FileStatus(path: path, followingLinks: true)?.isDirectory == true {
                return .folder
            }
            return .read(text: report.text, failed: report.failed)
        }
        var folders: [(index: Int, entries: [PathArguments.Entry])] = []
        for (index, outcome) in outcomes.enumerated() {
            if case .folder = outcome { folders.append((index, pathArguments.entries(ofFolder: given[index].path))) }
        }
        let inFolders = folders.flatMap(\.entries)
        var folderReports = Self.forEachOnThreads(inFolders.map(\.path), render(problems: Self.problems(inFolders), json: json))[...]
        var reports: [(text: [UInt8], failed: Bool)] = []
        reports.reserveCapacity(outcomes.count + inFolders.count)
        var nextFolder = 0
        for (index, outcome) in outcomes.enumerated() {
            if nextFolder < folders.count, folders[nextFolder].index == index {
                reports += folderReports.prefix(folders[nextFolder].entries.count)
                folderReports = folderReports.dropFirst(folders[nextFolder].entries.count)
                nextFolder += 1
            } else if case .read(let text, let failed) = outcome {
                reports.append((text, failed))
            }
        }
        return reports
    }

    /// The reasons of the entries that could not be walked, by path.
    static func problems(_ entries: [PathArguments.Entry]) -> [String: String] {
        Dictionary(entries.compactMap { entry in entry.problem.map { (entry.path, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// `--jsonl`: one object a line, in walk order, written a chunk of files
    /// at a time (so the output streams and memory stays flat).
    func runJSONLines(_ entries: [PathArguments.Entry]) -> Int32 {
        let renderer = render(problems: Self.problems(entries), json: true, indent: nil)
        var failed = false
        var output = StandardOutput()
        for start in stride(from: 0, to: entries.count, by: 512) {
            let paths = entries[start..<min(entries.count, start + 512)].map(\.path)
            for piece in Self.forEachOnThreads(paths, renderer) {
                output.append(piece.text)
                output.append([0x0A])
                failed = failed || piece.failed
            }
            output.flush()
        }
        return failed ? 1 : 0
    }

    /// The working directory (getcwd: making `FileManager.default` for it cost
    /// a visible part of the tool's start-up).
    static func workingDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return FileManager.default.currentDirectoryPath }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A file argument's URL and the absolute path string it was made from
/// (``ReadCommand/forEach(_:_:)``): an item made from both needn't ask the
/// URL for its path, which parses it (a few percent of a read).
struct FileURL: Sendable {
    let url: URL
    let absolutePath: String

    init(url: URL, absolutePath: String) {
        self.url = url
        self.absolutePath = absolutePath
    }

    /// The URL of `path`, a path as given (relative to `directory`, the
    /// working directory, unless it starts with `/`), made without asking
    /// the file system anything.
    init(_ path: String, in directory: String) {
        absolutePath = path.hasPrefix("/") ? path : directory + "/" + path
        url = URL(filePath: absolutePath, directoryHint: .notDirectory)
    }

    /// The URL of `path` as typed (relative to the working directory).
    init(path: String) {
        url = URL(fileURLWithPath: path)
        absolutePath = url.path
    }

    /// An item for the file, read and saved through `schema`; its path is
    /// the string the URL was made from when the URL keeps that string as it
    /// is (no `//`, `.` or `..` segments, no trailing `/`).
    func mediaItem(schema: MetadataSchema = .standard) -> MediaItem {
        var path = absolutePath
        let plain = path.withUTF8 { bytes -> Bool in
            guard bytes.count > 1, bytes[0] == 0x2F, bytes[bytes.count - 1] != 0x2F else { return false }
            var start = 1
            for index in 1...bytes.count where index == bytes.count || bytes[index] == 0x2F {
                let length = index - start
                if length == 0 || bytes[start] == 0x2E && (length == 1 || length == 2 && bytes[start + 1] == 0x2E) { return false }
                start = index + 1
            }
            return true
        }
        guard plain else { return MediaItem(url: url, schema: schema) }
        assert(url.path == absolutePath, "\(url.path) ≠ \(absolutePath)")
        return MediaItem(url: url, path: absolutePath, schema: schema)
    }
}

/// Hands out the indices 0..<count, each once, to any number of tasks.
final class WorkQueue: @unchecked Sendable {
    private let lock = Lock()
    private var position = 0
    private let count: Int

    init(count: Int) { self.count = count }

    /// The next index, or nil when all were handed out.
    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard position < count else { return nil }
        position += 1
        return position - 1
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

/// An error in the command line; exits with status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
