import Foundation

/// External tools the MP4 interop tests drive (ffmpeg, AtomicParsley,
/// python3 with mutagen, exiftool); tests needing one are skipped without it.
enum MP4Tools {
    /// True when `tool` is an executable file in a `PATH` directory.
    static func has(_ tool: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { directory in
            FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)")
        }
    }

    /// True when python3 can import mutagen.
    static let hasMutagen: Bool = has("python3") && ((try? run("python3", ["-c", "import mutagen"])) != nil)

    /// Runs `tool` with `arguments`; returns its standard output, throws when it
    /// fails (with its standard error in the message).
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(message: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                              + String(decoding: err, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self)
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// A new temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
