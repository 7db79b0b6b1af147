import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit check [--json|--jsonl] [--fix[=CODES]] [--dry-run] FILE|FOLDER...`
struct CheckCommand {
    static let usage = """
        usage: mdkit check [--json | --jsonl] [--fix[=CODE,...]] [--dry-run] [--quiet]
                           [path options] FILE|FOLDER...

        Finds what is wrong in each FILE (and in the media files of each FOLDER):
        every warning a read reports, and checks of its own — stacked ID3 tags,
        ID3v2.4 frames in a v2.3 tag, TYER and TDRC disagreeing, ID3v1 out of
        step with ID3v2, FLAC block lengths, pictures whose MIME type lies,
        audio cut short, VBR MP3s without a Xing header, Matroska tags no
        SeekHead reaches. Each finding has a stable code, a severity (error,
        warning, info), the byte offset, one line of explanation and whether
        --fix repairs it (docs/CHECK.md lists them).
        Output: "FILE: SEVERITY CODE at byte N: message (fixable)" per finding;
        sound files print nothing. A file that can't be read is reported on
        stderr ("FILE: error: <code>: <reason>"; JSON: an object with "error").
        A summary (files, findings by code, fixable) goes to stderr.
          --json      one JSON array, one object per file with "findings"
          --jsonl     the same objects, one per line, streamed
          --fix       repair the fixable findings, each file in one normal save
                      (journal, verification, every other item kept, the audio
                      byte for byte); then the file is checked again
          --fix=CODE,...  repair only findings with these codes (findings that
                      any save repairs, such as flac.block-length, come along)
          --dry-run   with --fix: show each change, write nothing
          --quiet     no summary
        Repairs that would touch the audio stream (rebuilding a Xing header)
        are never made; such findings say so.
        Exit status: 0 when no finding is left, 1 when findings are left (or a
        repair failed), 2 on a usage error, 3 when a file could not be read.

        Path options:
        \(PathArguments.usage)
        """

    var json = false
    var jsonLines = false
    var quiet = false
    var fix = false
    /// The codes `--fix=` names; nil for every fixable code.
    var fixCodes: Set<Finding.Code>?
    var dryRun = false
    var pathArguments = PathArguments()

    init(arguments: [String]) throws(UsageError) {
        var fix = false, fixCodes: Set<Finding.Code>?
        pathArguments = try PathArguments.parsing(arguments, usage: Self.usage) { argument throws(UsageError) -> Bool in
            switch argument {
            case "--json": json = true
            case "--jsonl": jsonLines = true
            case "--quiet", "-q": quiet = true
            case "--dry-run", "-n": dryRun = true
            case "--fix": fix = true
            case _ where argument.hasPrefix("--fix="):
                fix = true
                let names = argument.dropFirst(6).split(separator: ",").map { String($0) }
                if names.isEmpty { throw UsageError("--fix= needs a code (e.g. --fix=id3.stacked)\n\n\(Self.usage)") }
                for name in names where !Finding.Code.named.map(\.rawValue).contains(name) && !name.hasPrefix("read.") {
                    throw UsageError(
                        "unknown finding code '\(name)' (codes: \(Finding.Code.named.map(\.rawValue).joined(separator: ", ")), read.*)")
                }
                fixCodes = (fixCodes ?? []).union(names.map(Finding.Code.init(rawValue:)))
            default: return false
            }
            return true
        }
        self.fix = fix
        self.fixCodes = fixCodes
        if json && jsonLines { throw UsageError("--json and --jsonl exclude each other") }
        if dryRun && !fix { throw UsageError("--dry-run goes with --fix") }
        if pathArguments.isEmpty { throw UsageError("no FILE given\n\n\(Self.usage)") }
    }

    /// What was found in one file, and done about it.
    struct FileResult: Sendable {
        var path: String
        /// Why the file could not be read; nil when it was.
        var error: String?
        var findings: [Finding] = []
        /// The changes made (or, with --dry-run, that would be made).
        var repairs: [Repair] = []
        /// Why the repair failed; the file is unchanged.
        var repairError: String?
        /// The findings after the repair; nil when nothing was repaired.
        var remaining: [Finding]?

        /// The findings left in the file.
        var left: [Finding] { remaining ?? findings }
    }

    /// The tables every read needs, made as for `read` (``ReadCommand/prepare()``).
    static func prepare() { ReadCommand.prepare() }

    func run() async -> Int32 {
        let entries = pathArguments.entries()
        let problems = ReadCommand.problems(entries)
        let fix = fix, codes = fixCodes, dryRun = dryRun
        var summary = CheckSummary()
        var output = StandardOutput()
        var first = true
        if json { output.append("[") }
        for start in stride(from: 0, to: entries.count, by: 512) {
            let paths = entries[start..<min(entries.count, start + 512)].map(\.path)
            let results = await ReadCommand.forEach(paths) { path, url in
                await Self.check(path, url.url, problem: problems[path], fix: fix ? codes ?? [] : nil, all: codes == nil, dryRun: dryRun)
            }
            for result in results {
                summary.add(result)
                if json || jsonLines {
                    var writer = JSONWriter(indent: json ? 2 : nil, level: json ? 1 : 0)
                    Self.write(result, dryRun: dryRun, to: &writer)
                    if json { output.append(first ? "\n  " : ",\n  ") }
                    output.append(writer.bytes)
                    if jsonLines { output.append([0x0A]) }
                    first = false
                } else {
                    output.append(Self.text(result, dryRun: dryRun))
                }
                if let error = result.error {
                    StandardStream.error.write(text: TerminalText.escape("\(result.path): error: \(error)") + "\n")
                }
                if let error = result.repairError {
                    StandardStream.error.write(text: TerminalText.escape("\(result.path): repair failed: \(error)") + "\n")
                }
            }
            output.flush()
        }
        if json { output.append(first ? "]\n" : "\n]\n") }
        output.flush()
        if !quiet { StandardStream.error.write(text: summary.text(fixing: fix, dryRun: dryRun)) }
        return summary.status
    }

    /// Loads, checks and (when `fix` is not nil) repairs one file. `fix`
    /// empty with `all`: every fixable code.
    static func check(
        _ path: String, _ url: URL, problem: String?, fix: Set<Finding.Code>?, all: Bool, dryRun: Bool
    ) async -> FileResult {
        var result = FileResult(path: path)
        var item = MediaItem(url: url)
        do {
            if let problem { throw MediaError(.io, problem) }
            // The file the load opened is checked without opening it again.
            let file = try await item.loadKeepingFile()
            result.findings = try item.check(reading: file)
        } catch {
            result.error = Report.errorMessage(error)
            return result
        }
        guard let fix, result.findings.contains(where: { $0.isFixable && (all || fix.contains($0.code)) }) else { return result }
        let codes = all ? nil : fix
        do {
            if dryRun {
                result.repairs = try item.plannedRepairs(codes)
            } else {
                result.repairs = try await item.repair(codes)
                result.remaining = try item.check()
            }
        } catch {
            result.repairError = Report.errorMessage(error)
        }
        return result
    }
}
