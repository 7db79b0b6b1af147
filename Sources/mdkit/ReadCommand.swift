import Foundation
import MetadataKit

/// `mdkit read [--json] [--items] FILE...`
struct ReadCommand {
    static let usage = """
        usage: mdkit read [--json] [--items] FILE...

        Prints the metadata and properties of each FILE.
          --json    one JSON array, one object per FILE, in argument order
          --items   also list every raw item (key space, key, value, data type)
        Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.
        """

    var json = false
    var includeItems = false
    var paths: [String] = []

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
            case "--": onlyPaths = true
            default: throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
            }
        }
        if paths.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
    }

    /// Reads every file (in parallel), prints in argument order; returns the exit status.
    func run() async -> Int32 {
        // Each task loads its file and renders it, so the rendering runs in
        // parallel too; here the pieces are only joined, in argument order.
        let json = json, includeItems = includeItems
        let rendered = await Self.forEach(paths) { path, url -> (text: String, failed: Bool) in
            var item = MediaItem(url: url)
            let result: Result<MediaItem, any Error>
            do {
                try await item.load()
                result = .success(item)
            } catch {
                result = .failure(error)
            }
            var text = ""
            if json {
                Report.json(path: path, result: result, includeItems: includeItems).write(to: &text, indent: 2, level: 1)
            } else {
                text = Report.table(path: path, result: result, includeItems: includeItems)
            }
            return (text, result.isFailure)
        }
        var output = ""
        if json {
            output = rendered.isEmpty ? "[]\n" : "[\n  " + rendered.map(\.text).joined(separator: ",\n  ") + "\n]\n"
        } else {
            output = rendered.map(\.text).joined()
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        return rendered.contains { $0.failed } ? 1 : 0
    }

    /// Runs `body` for every path with at most one task per core at a time;
    /// results in argument order.
    static func forEach<Value: Sendable>(_ paths: [String], _ body: @escaping @Sendable (String, URL) async -> Value) async -> [Value] {
        var results = [Value?](repeating: nil, count: paths.count)
        // A few tasks per core in flight, so a worker never waits for the loop below to hand it the next file.
        let width = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        // Absolute paths made once here: URL(fileURLWithPath:) would ask for
        // the working directory and stat every file to see if it's a folder.
        let directory = FileManager.default.currentDirectoryPath
        let urls = paths.map { path in
            URL(filePath: path.hasPrefix("/") ? path : directory + "/" + path, directoryHint: .notDirectory)
        }
        await withTaskGroup(of: (Int, Value).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let path = paths[index], url = urls[index]
                group.addTask { (index, await body(path, url)) }
            }
            while next < min(width, paths.count) { add() }
            for await (index, result) in group {
                results[index] = result
                if next < paths.count { add() }
            }
        }
        return results.map { $0! }
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
