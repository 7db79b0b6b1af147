import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The FILE arguments of a command: files, folders (walked recursively),
/// `-` or `--files-from FILE` for a list of paths (one a line, or NUL
/// separated with `-0`), with the walk's options. A command passes each of
/// its arguments to ``parse(_:value:)`` first, then walks ``forEach(_:)``.
struct PathArguments {
    /// The help lines of the options, for a command's usage.
    static let usage = """
          -, --files-from FILE
                    read paths (files or folders) from stdin or FILE, one a line
          -0        the path list is NUL separated (find -print0)
          --include GLOB, --exclude GLOB
                    in folders, only files matching an --include, and no file or
                    folder matching an --exclude (a GLOB with no / is matched
                    against the name, with / against the path below the folder)
          --all-files  in folders, every file, not only the known media extensions
          --follow  follow symbolic links in folders (each folder walked once)
        """

    /// Paths as given, `-` for stdin's list.
    var operands: [String] = []
    /// Files holding path lists (`--files-from`).
    var listFiles: [String] = []
    /// Whether path lists are NUL separated.
    var nulSeparated = false
    var walker = FolderWalker.Options()

    /// One path to work on: a file (as given, or found in a folder) or a path
    /// that could not be walked, with the reason (to report in its place).
    struct Entry: Equatable {
        var path: String
        var problem: String?
    }

    var isEmpty: Bool { operands.isEmpty && listFiles.isEmpty }

    /// Reads the arguments of a command whose own options are flags: `flag`
    /// takes those (false for one the command doesn't have), the paths and
    /// path options go here, everything after `--` is a path, and anything
    /// else is an unknown option (with the command's `usage`).
    static func parsing(
        _ arguments: [String], usage: String, flag: (String) throws(UsageError) -> Bool
    ) throws(UsageError) -> PathArguments {
        var paths = PathArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // A path: most arguments are (hundreds of files), and matching
            // each against every option's name was a visible part of a start.
            if argument.utf8.first != UInt8(ascii: "-") {
                paths.operands.append(argument)
                continue
            }
            if argument == "--" {
                paths.operands += remaining
                break
            }
            if try flag(argument) { continue }
            let taken = try paths.parse(argument) { () throws(UsageError) -> String in
                guard let value = remaining.popFirst() else { throw UsageError("\(argument) needs a value\n\n\(usage)") }
                return value
            }
            if !taken { throw UsageError("unknown option '\(argument)'\n\n\(usage)") }
        }
        return paths
    }

    /// Takes `argument` when it is a path or one of the path options (`value`
    /// gives an option's value); false for another option.
    mutating func parse(_ argument: String, value: () throws(UsageError) -> String) throws(UsageError) -> Bool {
        switch argument {
        case "-": operands.append("-")
        case "--files-from": listFiles.append(try value())
        case "-0": nulSeparated = true
        case "--include": walker.include.append(try value())
        case "--exclude": walker.exclude.append(try value())
        case "--all-files": walker.extensions = nil
        case "--follow": walker.followSymbolicLinks = true
        case _ where argument.hasPrefix("-"): return false
        default: operands.append(argument)
        }
        return true
    }

    /// The paths given, with the path lists read in their place (in order:
    /// operands, then `--files-from` lists); problems reading a list are
    /// entries too.
    func givenPaths() -> [Entry] {
        var paths: [Entry] = []
        for operand in operands {
            if operand == "-" {
                paths += Self.list(StandardStream.readInput(), nulSeparated: nulSeparated)
            } else {
                paths.append(Entry(path: operand))
            }
        }
        for file in listFiles {
            guard let data = FileManager.default.contents(atPath: file) else {
                paths.append(Entry(path: file, problem: "can't read the path list"))
                continue
            }
            paths += Self.list(data, nulSeparated: nulSeparated)
        }
        return paths
    }

    static func list(_ data: Data, nulSeparated: Bool) -> [Entry] {
        data.split(separator: nulSeparated ? 0 : 0x0A).compactMap { line in
            var bytes = line
            if !nulSeparated && bytes.last == 0x0D { bytes = bytes.dropLast() }
            return bytes.isEmpty ? nil : Entry(path: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Calls `body` with every file to work on, in order: a given file as it
    /// is (even if missing: reading it reports that), a folder's files in walk
    /// order (see ``FolderWalker``), and problems in their place.
    func forEach(_ body: (Entry) -> Void) {
        let walker = FolderWalker(options: walker)
        for given in givenPaths() {
            guard given.problem == nil, FileStatus(path: given.path, followingLinks: true)?.isDirectory == true else {
                body(given)
                continue
            }
            Self.walk(given.path, with: walker, body)
        }
    }

    /// The entries of the folder `path` (given as a path), as ``forEach(_:)``
    /// has them in its place.
    func entries(ofFolder path: String) -> [Entry] {
        var entries: [Entry] = []
        Self.walk(path, with: FolderWalker(options: walker)) { entries.append($0) }
        return entries
    }

    private static func walk(_ folder: String, with walker: FolderWalker, _ body: (Entry) -> Void) {
        walker.walk(folder) { entry in
            switch entry {
            case .file(let path, _): body(Entry(path: path))
            case .problem(let path, let message): body(Entry(path: path, problem: message))
            }
        }
    }

    /// Every entry of ``forEach(_:)``.
    func entries() -> [Entry] {
        var entries: [Entry] = []
        forEach { entries.append($0) }
        return entries
    }
}
