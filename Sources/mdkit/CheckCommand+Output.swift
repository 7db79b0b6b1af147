import MetadataKit

extension CheckCommand {
    /// The lines of one file: the changes made or planned, then its
    /// findings (those left after a repair). Every line is escaped for the
    /// terminal. (A file that could not be read is reported on stderr.)
    static func text(_ result: FileResult, dryRun: Bool) -> String {
        var lines: [String] = []
        for repair in result.repairs {
            lines.append("\(result.path): \(dryRun ? "would fix" : "fixed") \(repair.code): \(repair.change)")
        }
        for finding in result.left {
            let offset = finding.byteOffset.map { " at byte \($0)" } ?? ""
            let fixable = finding.isFixable ? " (fixable)" : finding.fixNote.map { " (not fixable: \($0))" } ?? ""
            lines.append("\(result.path): \(finding.severity.rawValue) \(finding.code)\(offset): \(finding.message)\(fixable)")
        }
        return lines.map { TerminalText.escape($0) + "\n" }.joined()
    }

    /// The JSON object of one file: `path`, `error` or `findings` (each with
    /// `code`, `severity`, `byteOffset`, `message`, `fixable`, `fixNote`),
    /// and after a repair `repairs` (`code`, `change`), `dryRun`, and the
    /// findings `remaining` (not for a dry run) or `repairError`.
    static func write(_ result: FileResult, dryRun: Bool, to json: inout JSONWriter) {
        json.beginObject()
        json.member("path", result.path)
        if let error = result.error {
            json.member("error", error)
            json.end(array: false)
            return
        }
        json.key("findings")
        write(result.findings, to: &json)
        if !result.repairs.isEmpty || result.repairError != nil {
            json.key("repairs")
            json.beginArray()
            for repair in result.repairs {
                json.beginObject()
                json.member("code", repair.code.rawValue)
                json.member("change", repair.change)
                json.end(array: false)
            }
            json.end(array: true)
            json.member("dryRun", dryRun)
            json.member("repairError", ifPresent: result.repairError)
            if let remaining = result.remaining {
                json.key("remaining")
                write(remaining, to: &json)
            }
        }
        json.end(array: false)
    }

    private static func write(_ findings: [Finding], to json: inout JSONWriter) {
        json.beginArray()
        for finding in findings {
            json.beginObject()
            json.member("code", finding.code.rawValue)
            json.member("severity", finding.severity.rawValue)
            json.member("byteOffset", ifPresent: finding.byteOffset)
            json.member("message", finding.message)
            json.member("fixable", finding.isFixable)
            json.member("fixNote", ifPresent: finding.fixNote)
            json.end(array: false)
        }
        json.end(array: true)
    }
}

/// The counts `mdkit check` ends with, and its exit status.
struct CheckSummary {
    var files = 0
    var unreadable = 0
    var filesWithFindings = 0
    var repairedFiles = 0
    var failedRepairs = 0
    /// Findings left, by code: how many, how many fixable.
    var byCode: [Finding.Code: (count: Int, fixable: Int)] = [:]
    /// Changes made (or planned), by code.
    var repairsByCode: [Finding.Code: Int] = [:]

    mutating func add(_ result: CheckCommand.FileResult) {
        files += 1
        if result.error != nil { unreadable += 1 }
        if result.repairError != nil { failedRepairs += 1 }
        if !result.repairs.isEmpty { repairedFiles += 1 }
        for repair in result.repairs { repairsByCode[repair.code, default: 0] += 1 }
        let left = result.left
        if !left.isEmpty { filesWithFindings += 1 }
        for finding in left {
            let old = byCode[finding.code] ?? (0, 0)
            byCode[finding.code] = (old.count + 1, old.fixable + (finding.isFixable ? 1 : 0))
        }
    }

    /// 3 when a file could not be read, else 1 when findings are left or a repair failed, else 0.
    var status: Int32 {
        if unreadable > 0 { return 3 }
        return filesWithFindings > 0 || failedRepairs > 0 ? 1 : 0
    }

    func text(fixing: Bool, dryRun: Bool) -> String {
        let total = byCode.values.reduce(0) { $0 + $1.count }
        let fixable = byCode.values.reduce(0) { $0 + $1.fixable }
        var lines = [
            "checked \(files) file\(files == 1 ? "" : "s"): \(filesWithFindings) with findings, \(total) finding\(total == 1 ? "" : "s")"
                + " (\(fixable) fixable)" + (unreadable > 0 ? ", \(unreadable) could not be read" : "")
        ]
        if fixing {
            let changes = repairsByCode.values.reduce(0, +)
            lines.append(
                "\(dryRun ? "would repair" : "repaired") \(repairedFiles) file\(repairedFiles == 1 ? "" : "s") (\(changes) change\(changes == 1 ? "" : "s"))"
                    + (failedRepairs > 0 ? ", \(failedRepairs) repair\(failedRepairs == 1 ? "" : "s") failed" : ""))
        }
        let width = (byCode.keys.map(\.rawValue.count).max() ?? 0) + 2
        for code in byCode.keys.sorted() {
            let counts = byCode[code]!
            lines.append(
                "  " + code.rawValue + String(repeating: " ", count: width - code.rawValue.count) + "\(counts.count)"
                    + (counts.fixable > 0 ? " (\(counts.fixable) fixable)" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
