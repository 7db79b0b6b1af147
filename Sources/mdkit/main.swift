import Foundation
import MetadataKit

let topUsage = """
    usage: mdkit <command> [options] FILE...

    commands:
      read     print metadata and properties (mdkit read --help)
      write    change metadata, safely (mdkit write --help)
      tracks   list the tracks of MP4/MOV/M4A files (mdkit tracks --help)
      export   copy tracks into a new MP4/MOV/M4A, optionally cut (mdkit export --help)
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
case "tracks":
    if rest.contains("--help") || rest.contains("-h") {
        print(TracksCommand.usage)
        exit(0)
    }
    do {
        let tracks = try TracksCommand(arguments: rest)
        exit(await tracks.run())
    } catch {
        fail(error.message, status: 2)
    }
case "export":
    if rest.contains("--help") || rest.contains("-h") {
        print(ExportCommand.usage)
        exit(0)
    }
    do {
        let export = try ExportCommand(arguments: rest)
        exit(await export.run())
    } catch {
        fail(error.message, status: 2)
    }
case "--help", "-h", "help":
    print(topUsage)
default:
    fail("unknown command '\(command)'\n\n\(topUsage)", status: 2)
}
