import Foundation
import MetadataKit

/// `mdkit read [--json] [--items] FILE...`
struct ReadCommand {
    static let usage = """
        usage: mdkit read [--json] [--items] FILE...
               mdkit read --lyrics | --lrc FILE...

        Prints the metadata and properties of each FILE.
          --json    one JSON array, one object per FILE, in argument order
                    (a file that can't be read is an object with "error")
          --items   also list every raw item (key space, key, value, data type)
          --lyrics  print only the lyrics: timed lines as "[mm:ss.xx] text" (ID3
                    SYLT, or LRC text in the lyrics), else the plain lyrics
          --lrc     print only the timed lyrics, as an LRC file
        Field names: mdkit fields.
        Without --json, a file that can't be read is reported on stderr as
        "FILE: error: <code>: <reason>". Local damage that was read around
        is shown as "warning" lines (JSON: "warnings").
        Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.
        """

    var json = false
    var includeItems = false
    /// `--lyrics` or `--lrc`: print only the lyrics.
    var lyrics: LyricsOutput?
    var paths: [String] = []

    enum LyricsOutput { case lines, lrc }

    init(arguments: [String]) throws(UsageError) {
        var onlyPaths = false
        for argument in arguments {
            if onlyPaths || !argument.hasPrefix("-") || argument == "-" {
                paths.append(argument)
                continue
            }
            switch argument {
            case "--json": json = true
            case "--items": includeItems = true
            case "--lyrics": lyrics = .lines
            case "--lrc": lyrics = .lrc
            case "--": onlyPaths = true
            default: throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
            }
        }
        if paths.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
        if lyrics != nil && (json || includeItems) { throw UsageError("--lyrics and --lrc print only the lyrics (no --json, --items)") }
    }

    /// Reads every file (in parallel), prints in argument order; returns the exit status.
    func run() async -> Int32 {
        // Each task loads its file and renders it, so the rendering runs in
        // parallel too; here the pieces are only joined, in argument order.
        let json = json, includeItems = includeItems, lyrics = lyrics, several = paths.count > 1
        let rendered = await Self.forEach(paths) { path, url -> (text: [UInt8], failed: Bool) in
            var item = MediaItem(url: url)
            let result: Result<MediaItem, any Error>
            do {
                try await item.load()
                result = .success(item)
            } catch {
                result = .failure(error)
            }
            var text: [UInt8] = []
            if let lyrics, case .success(let item) = result {
                return (Array(Report.lyrics(of: item, as: lyrics, path: several ? path : nil).utf8), false)
            }
            switch (json, result) {
            case (true, _):
                var writer = JSONWriter(indent: 2, level: 1)
                Report.json(path: path, result: result, includeItems: includeItems, to: &writer)
                text = writer.bytes
            case (false, .success(let item)):
                text = Array(Report.table(path: path, item: item, includeItems: includeItems).utf8)
            case (false, .failure(let error)):
                // Errors go to stderr in table mode, as `write` reports them.
                text = Array("\(path): error: \(Report.errorMessage(error))\n".utf8)
            }
            return (text, result.isFailure)
        }
        var output: [UInt8] = []
        output.reserveCapacity(rendered.reduce(16) { $0 + $1.text.count + 4 })
        if json {
            output.append(contentsOf: "[".utf8)
            for (index, piece) in rendered.enumerated() {
                output.append(contentsOf: (index == 0 ? "\n  " : ",\n  ").utf8)
                output += piece.text
            }
            output.append(contentsOf: (rendered.isEmpty ? "]\n" : "\n]\n").utf8)
        } else {
            var errors: [UInt8] = []
            for piece in rendered {
                if piece.failed { errors += piece.text } else { output += piece.text }
            }
            if !errors.isEmpty { FileHandle.standardError.write(Data(errors)) }
        }
        FileHandle.standardOutput.write(Data(output))
        return rendered.contains { $0.failed } ? 1 : 0
    }

    /// Runs `body` for every path, one worker task per core, each taking the
    /// next path from a shared counter (no per-file hand-off through this
    /// task); results in argument order.
    static func forEach<Value: Sendable>(_ paths: [String], _ body: @escaping @Sendable (String, URL) async -> Value) async -> [Value] {
        // Absolute paths made once here: URL(fileURLWithPath:) would ask for
        // the working directory and stat every file to see if it's a folder.
        // Made by the workers, in parallel, as they take the paths.
        let directory = Self.workingDirectory()
        let queue = WorkQueue(count: paths.count)
        let workers = min(paths.count, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        var results = [Value?](repeating: nil, count: paths.count)
        await withTaskGroup(of: [(Int, Value)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var done: [(Int, Value)] = []
                    while let index = queue.next() {
                        let path = paths[index]
                        let url = URL(filePath: path.hasPrefix("/") ? path : directory + "/" + path, directoryHint: .notDirectory)
                        done.append((index, await body(path, url)))
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
    /// The working directory (getcwd: making `FileManager.default` for it cost
    /// a visible part of the tool's start-up).
    static func workingDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return FileManager.default.currentDirectoryPath }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Hands out the indices 0..<count, each once, to any number of tasks.
final class WorkQueue: @unchecked Sendable {
    private let lock = NSLock()
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
