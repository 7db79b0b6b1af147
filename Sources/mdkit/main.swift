import Foundation
import MetadataKit

let topUsage = """
    usage: mdkit <command> [options] FILE...

    commands:
      read     print metadata and properties (mdkit read --help)
      write    change metadata, safely (mdkit write --help)
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("mdkit: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail(topUsage, status: 2) }
let rest = Array(arguments.dropFirst())

switch command {
case "read":
    if rest.contains("--help") || rest.contains("-h") {
        print(ReadCommand.usage)
        exit(0)
    }
    do {
        let read = try ReadCommand(arguments: rest)
        exit(await read.run())
    } catch {
        fail(error.message, status: 2)
    }
case "write":
    if rest.contains("--help") || rest.contains("-h") {
        print(WriteCommand.usage)
        exit(0)
    }
    do {
        let write = try WriteCommand(arguments: rest)
        exit(await write.run())
    } catch {
        fail(error.message, status: 2)
    }
case "--help", "-h", "help":
    print(topUsage)
default:
    fail("unknown command '\(command)'\n\n\(topUsage)", status: 2)
}
