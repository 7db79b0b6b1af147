import MetadataKit

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

/// A subcommand: parses its arguments (a usage error exits 2) and runs.
protocol Command {
    static var usage: String { get }
    init(arguments: [String]) throws(UsageError)
    func run() async -> Int32
    /// The command run on the calling thread (the main one), for a command
    /// whose work needs no Swift task: the process then never brings up the
    /// task pool (see ``ReadCommand/runBlocking()``). Nil for the others,
    /// which ``run()`` runs.
    func runBlocking() -> Int32?
    /// Starts, before the arguments are parsed, work the command will need
    /// whatever they are (on another core, so the parse and the thread's
    /// start overlap it).
    static func prepare()
}

extension Command {
    func runBlocking() -> Int32? { nil }
    static func prepare() {}
}

extension ReadCommand: Command {}
extension WriteCommand: Command {}
extension TracksCommand: Command {}
extension ExportCommand: Command {}
extension AnnotateCommand: Command {}
extension TimedCommand: Command {}
extension FieldsCommand: Command {}
extension ScanCommand: Command {}
extension QueryCommand: Command {}
extension ChaptersCommand: Command {}
extension CheckCommand: Command {}

let commands: [(name: String, type: any Command.Type, summary: String)] = [
    ("read", ReadCommand.self, "print metadata and properties"),
    ("write", WriteCommand.self, "change metadata, safely"),
    ("chapters", ChaptersCommand.self, "print the chapters"),
    ("check", CheckCommand.self, "find damage and inconsistencies, and repair them (--fix)"),
    ("tracks", TracksCommand.self, "list the tracks of MP4/MOV/M4A and Matroska/WebM files"),
    ("export", ExportCommand.self, "copy tracks into a new MP4/MOV/M4A, optionally cut"),
    ("annotate", AnnotateCommand.self, "copy a movie and add a timed metadata track"),
    ("timed", TimedCommand.self, "print a movie's timed metadata as JSON or WebVTT"),
    ("fields", FieldsCommand.self, "list the field names and the keys that hold them per format"),
    ("scan", ScanCommand.self, "read folders into a catalog (SQLite), incrementally"),
    ("query", QueryCommand.self, "run SQL on a catalog made by scan"),
]

/// The top-level help (a function: a global here would be built on every start).
@MainActor func topUsage() -> String {
    let lines = commands.map { command in
        "  " + command.name + String(repeating: " ", count: max(1, 9 - command.name.count))
            + "\(command.summary) (mdkit \(command.name) --help)"
    }
    let width = (MediaFormat.all.map(\.identifier.count).max() ?? 0) + 2
    let formats = MediaFormat.all.map { format in
        "  " + format.identifier + String(repeating: " ", count: width - format.identifier.count) + format.name + ": "
            + format.extensions.map { "." + $0 }.joined(separator: " ") + (format.isWritable ? " (read, write)" : " (read)")
    }
    return "usage: mdkit <command> [options] FILE...\n       mdkit --version\n\ncommands:\n" + lines.joined(separator: "\n")
        + "\n\nformats (detected from the first bytes):\n" + formats.joined(separator: "\n")
}

func fail(_ message: String, status: Int32) -> Never {
    StandardStream.error.write(text: "mdkit: \(message)\n")
    exit(status)
}

func run(_ command: sending any Command) async -> Never {
    exit(await command.run())
}

/// `type`'s command made from `arguments`; `--help` prints its usage and a
/// usage error its message (exit status 0 and 2).
func parse(_ type: any Command.Type, _ arguments: [String]) -> any Command {
    if arguments.contains("--help") || arguments.contains("-h") {
        print(type.usage)
        exit(0)
    }
    do {
        return try type.init(arguments: arguments)
    } catch {
        fail(error.message, status: 2)
    }
}

Allocator.keepLargeBuffersInTheHeap() // glibc: large buffers stay in the heap (Platform/Allocator.swift)

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else { fail(topUsage(), status: 2) }
if ["--help", "-h", "help"].contains(name) {
    // `mdkit help read` is `mdkit read --help`.
    if name == "help", arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
        print(command.type.usage)
        exit(0)
    }
    print(topUsage())
    exit(0)
}
if ["--version", "version"].contains(name) {
    print("mdkit \(MetadataKitVersion.current)")
    exit(0)
}
guard let command = commands.first(where: { $0.name == name }) else {
    fail("unknown command '\(name)'\n\n\(topUsage())", status: 2)
}
command.type.prepare()
let parsed = parse(command.type, Array(arguments.dropFirst()))
// (A requirement, not a cast to a protocol: the cast would look the
// conformance up among all of the binary's at every start.)
if let status = parsed.runBlocking() { exit(status) }
await run(parsed)
