import Foundation
import MetadataKit
import Testing

/// Paths and processes shared by the tests.
enum TestSupport {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Tests/Fixtures.
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// A new empty folder under the system's temporary folder.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mdkit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The built `mdkit` executable, beside the test bundle; nil when it
    /// can't be found (tests that need it are gated by ``Capabilities/mdkit``).
    ///
    /// Linux: the tests are an executable (`….xctest`) in the build folder,
    /// beside `mdkit`. Darwin: a bundle, `….xctest/Contents/MacOS/…`, loaded
    /// by a runner elsewhere (Xcode's `xctest`, `swiftpm-testing-helper`): the
    /// folder holding the bundle is found from this code's own image.
    static var mdkitExecutable: URL? {
        var candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        #if canImport(Darwin)
            var image = Dl_info()
            if dladdr(#dsohandle, &image) != 0, let name = image.dli_fname {
                var folder = URL(fileURLWithPath: String(cString: name)).deletingLastPathComponent() // …/Contents/MacOS
                for _ in 0..<4 {
                    candidates.append(folder)
                    folder = folder.deletingLastPathComponent()
                }
            }
        #endif
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("mdkit") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Whether this is a CI run (`CI=true` or `CI=1` in the environment).
    static let isCI: Bool = ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")

    /// Whether `tool` is on the PATH — the one check every test that needs an
    /// interop tool uses (`.enabled(if:)` or inside the test).
    ///
    /// Locally a missing tool skips the test. Under CI a missing tool must
    /// not hide tests: the answer is then always true, so the test runs and
    /// fails where it starts the tool, and when asked inside a running test
    /// the missing tool is recorded as a failure right away.
    static func hasTool(_ tool: String) -> Bool {
        isInstalled(tool) || missingUnderCI(tool)
    }

    /// Whether python3 can import `module`; the CI rule of ``hasTool(_:)`` holds.
    static func hasPythonModule(_ module: String) -> Bool {
        let found = isInstalled("python3") && (try? run("python3", ["-c", "import \(module)"]).status) == 0
        return found || missingUnderCI("python3 module \(module)")
    }

    /// Whether `tool` is on the PATH (no CI rule: ``hasTool(_:)`` adds it).
    static func isInstalled(_ tool: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// False outside CI. Under CI: reports `what` as missing (a failure of the
    /// running test, if any) and returns true so the test runs and fails.
    static func missingUnderCI(_ what: String) -> Bool {
        guard isCI else { return false }
        let message = "\(what) is missing but CI=true: the CI install step is broken"
        FileHandle.standardError.write(Data("TestSupport: \(message)\n".utf8))
        if Test.current != nil { Issue.record(Comment(rawValue: message)) }
        return true
    }

    struct Output {
        var status: Int32
        var standardOutput: Data
        var standardError: String
        var text: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// Runs `tool` (a path, or a name looked up on the PATH) and collects its output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil) throws -> Output {
        let process = Process()
        if tool.contains("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, standardOutput: outputData,
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Runs `tool` and throws when it exits non-zero.
    @discardableResult
    static func runChecked(_ tool: String, _ arguments: [String]) throws -> Output {
        let output = try run(tool, arguments)
        guard output.status == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(output.status): \(output.standardError)")
        }
        return output
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var description: String
    }
}

extension MediaItem {
    /// The item for `url`, loaded.
    static func loaded(_ url: URL) async throws -> MediaItem {
        var item = MediaItem(url: url)
        try await item.load()
        return item
    }

    /// The item for `url`, loaded on the calling thread: for tests that time
    /// the parse. `load()` waits for a thread of its own and then for the
    /// task to run again, which in a busy suite (whose CLI tests block the
    /// cooperative pool waiting for processes) can take longer than the parse.
    static func loadedOnThisThread(_ url: URL) throws(MediaError) -> MediaItem {
        var item = MediaItem(url: url)
        try item.loadOnCallingThread()
        return item
    }
}

extension TestSupport {
    /// The process's peak resident memory in KiB: `ru_maxrss` is KiB on
    /// Linux and bytes on Darwin (whose `RUSAGE_SELF` is a plain Int32).
    static func peakResidentKiB() -> Int {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss) / 1024
        #else
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Int(usage.ru_maxrss)
        #endif
    }
}
