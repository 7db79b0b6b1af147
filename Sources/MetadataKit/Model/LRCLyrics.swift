#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Lyrics in the LRC text format: lines `[mm:ss.xx]text`, optionally headed
/// by ID tags (`[ar:Artist]`, `[ti:Title]`, `[offset:+100]`). There is no
/// formal specification; this follows the common form that players and
/// taggers (foobar2000, MusicBee, Mp3tag) read and write.
///
/// ``init(parsing:)`` followed by ``text`` gives the text back exactly for
/// LRC in that form: ID tags and other lines kept in place, one timestamp per
/// line, two or three fraction digits (the text's own), the same line
/// endings and final newline. A line with several timestamps
/// (`[00:01.00][00:30.00]chorus`) becomes one line per time.
public struct LRCLyrics: Sendable, Hashable {
    /// One line of the text.
    public enum Line: Sendable, Hashable {
        /// A timed line: milliseconds and text.
        case timed(milliseconds: Int, text: String)
        /// Anything else (an ID tag, an empty line), as written.
        case other(String)
    }

    /// Every line of the file, in order, timed or not.
    public var lines: [Line]
    /// Digits after the seconds' point when written: 2 (centiseconds) or 3.
    public var fractionDigits: Int
    /// What ends each line ("\n" or "\r\n").
    public var lineEnding: String
    /// Whether the text ends with a line ending.
    public var endsWithNewline: Bool

    /// LRC made of timed lines.
    public init(lines: [TimedLyricLine]) {
        self.lines = lines.map { .timed(milliseconds: Int(($0.time * 1000).rounded()), text: $0.text) }
        self.fractionDigits = lines.allSatisfy { Int(($0.time * 1000).rounded()) % 10 == 0 } ? 2 : 3
        self.lineEnding = "\n"
        self.endsWithNewline = true
    }

    /// Parses LRC text; nil when no line starts with a timestamp (plain lyrics).
    public init?(parsing text: String) {
        lineEnding = text.contains("\r\n") ? "\r\n" : "\n"
        var rows = text.components(separatedBy: lineEnding)
        endsWithNewline = rows.last == ""
        if endsWithNewline { rows.removeLast() }
        lines = []
        var digits: Int?
        for row in rows {
            var rest = Substring(row)
            var times: [Int] = []
            while let (milliseconds, fraction, after) = Self.timestamp(rest) {
                times.append(milliseconds)
                digits = digits ?? fraction
                rest = after
            }
            if times.isEmpty {
                lines.append(.other(row))
            } else {
                lines += times.map { .timed(milliseconds: $0, text: String(rest)) }
            }
        }
        guard let digits else { return nil }
        fractionDigits = digits
    }

    /// A `[mm:ss]`, `[mm:ss.xx]` or `[mm:ss.xxx]` at the start of `text`: the
    /// time, the fraction's digit count and the rest.
    private static func timestamp(_ text: Substring) -> (Int, Int, Substring)? {
        guard text.first == "[", let close = text.firstIndex(of: "]") else { return nil }
        let inside = text[text.index(after: text.startIndex)..<close]
        let parts = inside.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...3).contains(parts[0].count), parts[0].allSatisfy(\.isASCIIDigit),
            let minutes = Int(parts[0])
        else { return nil }
        let secondParts = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(secondParts.count), secondParts[0].count == 2, secondParts[0].allSatisfy(\.isASCIIDigit),
            let seconds = Int(secondParts[0]), seconds < 60
        else { return nil }
        var milliseconds = (minutes * 60 + seconds) * 1000
        var digits = 2
        if secondParts.count == 2 {
            let fraction = secondParts[1]
            guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit), let value = Int(fraction) else { return nil }
            digits = fraction.count
            milliseconds += value * [100, 10, 1][fraction.count - 1]
        }
        return (milliseconds, digits, text[text.index(after: close)...])
    }

    /// The timed lines, in file order.
    public var timedLines: [TimedLyricLine] {
        lines.compactMap { line in
            if case .timed(let milliseconds, let text) = line { return TimedLyricLine(time: Double(milliseconds) / 1000, text: text) }
            return nil
        }
    }

    /// The LRC text.
    public var text: String {
        let rows = lines.map { line -> String in
            switch line {
            case .other(let row): return row
            case .timed(let milliseconds, let text): return Self.format(milliseconds, digits: fractionDigits) + text
            }
        }
        return rows.joined(separator: lineEnding) + (endsWithNewline ? lineEnding : "")
    }

    /// `[mm:ss.xx]` (or three fraction digits).
    static func format(_ milliseconds: Int, digits: Int) -> String {
        let total = max(0, milliseconds)
        let minutes = total / 60_000, seconds = total / 1000 % 60
        let fraction = digits == 3 ? String(cFormat: "%03d", total % 1000) : String(cFormat: "%02d", total % 1000 / 10)
        return String(cFormat: "[%02d:%02d.", minutes, seconds) + fraction + "]"
    }
}
