import Dispatch
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

/// One line of progress on standard error, redrawn in place (`\r`): a phase
/// ("loading", "saving", "exporting"), what is done of the total (files, or
/// bytes shown in MB), and a bar. Shown only when standard error is a
/// terminal and the command was not given `--quiet`; otherwise every call
/// does nothing. Holds nothing per item (memory stays flat however many
/// files a command goes through), and redraws at most ten times a second
/// (and when done). Safe to call from several tasks at once.
///
/// Used by `mdkit write` (files saved of the files given) and
/// `mdkit export` (bytes written of the input's size). `mdkit scan` gives it
/// a line of its own (``init(shown:write:line:)``: files done of found, files
/// per second, MB/s, errors, ETA — ``rateLine(_:elapsed:)``), which
/// ``start()`` redraws four times a second from a thread of its own.
final class Progress: @unchecked Sendable {
    enum Unit: Sendable { case files, bytes }

    let unit: Unit
    /// Whether anything is drawn.
    let isShown: Bool
    private let lock = Lock()
    private var phase: String
    private var done: Int64 = 0
    private var total: Int64
    private var lastDraw: UInt64 = 0
    private var drawn = false
    private let write: @Sendable (String) -> Void
    /// Makes the line from the seconds since ``start()`` (instead of phase, done and total).
    private let provider: (@Sendable (Double) -> String)?
    private var started = DispatchTime.now().uptimeNanoseconds
    private var ticking = false

    /// `shown` decides whether anything is drawn (``shouldShow(quiet:)``);
    /// `write` receives what would go to standard error (tests pass their own).
    init(
        phase: String, total: Int64, unit: Unit, shown: Bool,
        write: @escaping @Sendable (String) -> Void = { StandardStream.error.write(Data($0.utf8)) }
    ) {
        self.phase = phase
        self.total = max(0, total)
        self.unit = unit
        self.isShown = shown
        self.write = write
        self.provider = nil
    }

    /// A line made by `line` (from the seconds since ``start()``), redrawn by
    /// ``start()``'s thread until ``finish()`` or ``interrupt()``.
    init(
        shown: Bool, write: @escaping @Sendable (String) -> Void = { StandardStream.error.write(Data($0.utf8)) },
        line: @escaping @Sendable (_ elapsed: Double) -> String
    ) {
        self.phase = ""
        self.total = 0
        self.unit = .files
        self.isShown = shown
        self.write = write
        self.provider = line
    }

    /// What a line of progress for files read shows.
    struct Rates: Sendable {
        /// Files done (read, or found unchanged).
        var done: Int
        /// Files found so far; the total once ``totalKnown``.
        var total: Int
        var totalKnown: Bool
        /// Bytes of the files read.
        var bytes: Int64
        var errors: Int
    }

    /// `120/4000+ files  850 files/s  12.3 MB/s  2 errors  ETA 0:04`: a `+`
    /// while the total is still counted, errors only when there are some,
    /// the ETA once the total is known.
    static func rateLine(_ rates: Rates, elapsed: Double) -> String {
        let seconds = max(elapsed, 0.001)
        let rate = Double(rates.done) / seconds
        var text = "\(rates.done)/\(rates.total)\(rates.totalKnown ? "" : "+") files"
        text += String(cFormat: "  %.0f files/s  %.1f MB/s", rate, Double(rates.bytes) / seconds / 1e6)
        if rates.errors > 0 { text += "  \(rates.errors) error\(rates.errors == 1 ? "" : "s")" }
        if rates.totalKnown && rate > 0 {
            let left = Int(Double(max(0, rates.total - rates.done)) / rate)
            text += String(cFormat: "  ETA %d:%02d", left / 60, left % 60)
        }
        return text
    }

    /// For a line of ``init(shown:write:line:)``: draws it now and then four
    /// times a second, from a thread of its own, until ``finish()`` or ``interrupt()``.
    func start() {
        guard isShown, provider != nil else { return }
        lock.withLock {
            started = DispatchTime.now().uptimeNanoseconds
            ticking = true
        }
        startThread { [self] in
            while lock.withLock({ () -> Bool in
                guard ticking else { return false }
                lastDraw = 0
                drawIfDue()
                return true
            }) {
                usleep(250_000)
            }
        }
    }

    /// Writes `text` (whole lines) on standard error through the drawer: the
    /// progress line is cleared first and drawn again after.
    func message(_ text: String) {
        let text = TerminalText.escape(text, keepingLineFeeds: true)
        guard isShown else { return write(text) }
        lock.withLock {
            write((drawn ? "\r\u{1B}[K" : "") + text)
            drawn = false
            lastDraw = 0
            if provider != nil && ticking { drawIfDue() }
        }
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
            ticking = false
            guard drawn else { return }
            write("\r" + line() + "\u{1B}[K\n")
            drawn = false
        }
    }

    /// Ends the line without redrawing (before an error message).
    func interrupt() {
        guard isShown else { return }
        lock.withLock {
            ticking = false
            if drawn { write("\n") }
            drawn = false
        }
    }

    /// The text of the line, e.g. `saving   12/40 files [######----------] 30%`.
    func line() -> String {
        if let provider { return TerminalText.escape(provider(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)) }
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
        String(cFormat: "%.1f", Double(bytes) / 1_000_000)
    }

    /// Redraws when the last draw is 0.1 s old, or when everything is done.
    private func drawIfDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw >= 100_000_000 || (done == total && provider == nil) else { return }
        lastDraw = now
        // "\u{1B}[K" clears what a longer earlier line left.
        write("\r" + line() + "\u{1B}[K")
        drawn = true
    }
}
