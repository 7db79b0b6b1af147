#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Text from strangers' files (tag values, keys, file names, warnings that
/// quote them) made safe for a terminal or a log: the one rule every
/// human-readable output of the tool follows (tables, lines, messages,
/// warnings, errors, progress). JSON and JSON Lines outputs don't use it:
/// they escape for JSON and keep every value exact.
///
/// Shown visibly instead of sent raw:
/// - C0 controls and DEL as `\xNN` (ESC as `\x1b`), except a tab as `\t`, a
///   carriage return as `\r` and a line feed as `\n` (so one value is one
///   line; multi-line text the tool prints itself keeps its line feeds with
///   `keepingLineFeeds`);
/// - C1 controls (U+0080–U+009F, NEL among them), the line and paragraph
///   separators U+2028/U+2029, and the bidirectional marks, embeddings,
///   overrides and isolates (U+061C, U+200E–F, U+202A–E, U+2066–9, which can
///   make `evil\u{202E}3pm.exe` look like `evilexe.mp3`) as `\uXXXX`;
///
/// Everything else, a backslash too, is shown as it is: the shown form is
/// for reading, `--json` gives the exact value.
enum TerminalText {
    /// `text` with the characters above shown visibly.
    static func escape(_ text: String, keepingLineFeeds: Bool = false) -> String {
        // Printable ASCII (nearly every value) comes back as it is.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x0A && keepingLineFeeds }) { return text }
        var shown = ""
        shown.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars { append(scalar, to: &shown, keepingLineFeeds: keepingLineFeeds) }
        return shown
    }

    /// Whether `scalar` is shown escaped (not counting the tab, CR and LF forms).
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to shown: inout String, keepingLineFeeds: Bool) {
        switch scalar.value {
        case 0x0A: shown += keepingLineFeeds ? "\n" : "\\n"
        case 0x09: shown += "\\t"
        case 0x0D: shown += "\\r"
        case 0x00...0x1F, 0x7F: shown += hex(UInt8(scalar.value), prefix: "\\x")
        case _ where isUnsafe(scalar):
            shown +=
                "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                + String(scalar.value, radix: 16)
        default: shown.unicodeScalars.append(scalar)
        }
    }

    private static func hex(_ byte: UInt8, prefix: String) -> String {
        let digits = Array("0123456789abcdef")
        return prefix + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}

extension StandardStream {
    /// Writes human-readable `text` (lines the tool made, values in them)
    /// through ``TerminalText``: line feeds kept, every other control,
    /// bidirectional or invalid character shown visibly.
    func write(text: String) {
        write(Data(TerminalText.escape(text, keepingLineFeeds: true).utf8))
    }
}
