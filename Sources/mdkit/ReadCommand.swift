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
        let results = await Self.loadAll(paths)
        var output = ""
        if json {
            let objects = zip(paths, results).map { path, result in
                Report.json(path: path, result: result, includeItems: includeItems)
            }
            JSON.array(objects).write(to: &output, indent: 2)
            output += "\n"
        } else {
            for (path, result) in zip(paths, results) {
                output += Report.table(path: path, result: result, includeItems: includeItems)
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        return results.contains { if case .failure = $0 { true } else { false } } ? 1 : 0
    }

    /// Loads the files with at most one task per core at a time, keeping argument order.
    static func loadAll(_ paths: [String]) async -> [Result<MediaItem, any Error>] {
        var results = [Result<MediaItem, any Error>?](repeating: nil, count: paths.count)
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        // Absolute paths made once here: URL(fileURLWithPath:) would ask for
        // the working directory and stat every file to see if it's a folder.
        let directory = FileManager.default.currentDirectoryPath
        let urls = paths.map { path in
            URL(filePath: path.hasPrefix("/") ? path : directory + "/" + path, directoryHint: .notDirectory)
        }
        await withTaskGroup(of: (Int, Result<MediaItem, any Error>).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let url = urls[index]
                group.addTask {
                    var item = MediaItem(url: url)
                    do {
                        try await item.load()
                        return (index, .success(item))
                    } catch {
                        return (index, .failure(error))
                    }
                }
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

/// An error in the command line; exits with status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
