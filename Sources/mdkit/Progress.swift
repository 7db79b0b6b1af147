import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line of progress on standard error, redrawn in place (`\r`): a phase
/// ("loading", "saving", "exporting"), what is done of the total (files, or
/// bytes shown in MB), and a bar. Shown only when standard error is a
/// terminal and the command was not given `--quiet`; otherwise every call
/// does nothing. Holds nothing per item (memory stays flat however many
/// files a command goes through), and redraws at most ten times a second
/// (and when done). Safe to call from several tasks at once.
///
/// Used by `mdkit write` (files saved of the files given) and
/// `mdkit export` (bytes written of the input's size).
final class Progress: @unchecked Sendable {
    enum Unit: Sendable { case files, bytes }

    let unit: Unit
    /// Whether anything is drawn.
    let isShown: Bool
    private let lock = NSLock()
    private var phase: String
    private var done: Int64 = 0
    private var total: Int64
    private var lastDraw: UInt64 = 0
    private var drawn = false
    private let write: @Sendable (String) -> Void

    /// `shown` decides whether anything is drawn (``shouldShow(quiet:)``);
    /// `write` receives what would go to standard error (tests pass their own).
    init(
        phase: String, total: Int64, unit: Unit, shown: Bool,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.phase = phase
        self.total = max(0, total)
        self.unit = unit
        self.isShown = shown
        self.write = write
    }

    /// Progress is drawn when standard error is a terminal and `--quiet`
    /// was not given; `MDKIT_PROGRESS=0` or `1` overrides the terminal check.
    static func shouldShow(quiet: Bool) -> Bool {
        if quiet { return false }
        switch ProcessInfo.processInfo.environment["MDKIT_PROGRESS"] {
        case "1": return true
        case "0": return false
        default: return isatty(STDERR_FILENO) == 1
        }
    }

    /// Adds `count` to what is done.
    func advance(by count: Int64 = 1) {
        guard isShown else { return }
        lock.withLock {
            done = min(total, done + count)
            drawIfDue()
        }
    }

    /// Sets what is done (and, optionally, a new phase that starts from it).
    func update(done value: Int64, phase newPhase: String? = nil) {
        guard isShown else { return }
        lock.withLock {
            done = min(total, max(0, value))
            if let newPhase, newPhase != phase {
                phase = newPhase
                lastDraw = 0 // a new phase shows at once
            }
            drawIfDue()
        }
    }

    /// Draws the final state and ends the line, so what the command prints next starts on a line of its own.
    func finish() {
        guard isShown else { return }
        lock.withLock {
            guard drawn else { return }
            write("\r" + line() + "\n")
            drawn = false
        }
    }

    /// Ends the line without redrawing (before an error message).
    func interrupt() {
        guard isShown else { return }
        lock.withLock {
            if drawn { write("\n") }
            drawn = false
        }
    }

    /// The text of the line, e.g. `saving   12/40 files [######----------] 30%`.
    func line() -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let width = 24
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let amount: String
        switch unit {
        case .files: amount = "\(done)/\(total) file\(total == 1 ? "" : "s")"
        case .bytes: amount = "\(Self.megabytes(done))/\(Self.megabytes(total)) MB"
        }
        return "\(phase) \(amount) [\(bar)] \(Int(fraction * 100))%"
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }

    /// Redraws when the last draw is 0.1 s old, or when everything is done.
    private func drawIfDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw >= 100_000_000 || done == total else { return }
        lastDraw = now
        // "\u{1B}[K" clears what a longer earlier line left.
        write("\r" + line() + "\u{1B}[K")
        drawn = true
    }
}
