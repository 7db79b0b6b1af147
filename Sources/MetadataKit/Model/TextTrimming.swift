extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    ///
    /// Cheaper than Foundation's `trimmingCharacters(in:)`, which bridges
    /// through `NSString`; this runs for every track number and MIME type read.
    var trimmingSpaces: Substring { Substring(self[untrimmed { $0 == " " || $0 == "\t" }]) }

    /// The text without leading and trailing white space, as Foundation's
    /// `trimmingCharacters(in: .whitespaces)` gives it (that one is in
    /// swift-corelibs-foundation's `Foundation` module, which the library
    /// doesn't link on Linux): the scalars of ``Unicode/Scalar/isFoundationWhitespace``.
    package func trimmingWhitespace() -> String { trimmingScalars(where: \.isFoundationWhitespace) }

    /// The text without leading and trailing white space and line breaks, as
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`: the
    /// scalars of ``Unicode/Scalar/isFoundationWhitespace`` and
    /// ``Unicode/Scalar/isFoundationNewline``.
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { $0.isFoundationWhitespace || $0.isFoundationNewline }
    }

    /// The text without the leading and trailing scalars `trimmed` picks.
    /// Cut by scalars, not characters, as Foundation does: " \u{301}x" keeps
    /// its combining accent.
    private func trimmingScalars(where trimmed: (Unicode.Scalar) -> Bool) -> String {
        String(String.UnicodeScalarView(unicodeScalars[untrimmed(where: trimmed)]))
    }

    /// The range of scalars left when the leading and trailing ones `trimmed`
    /// picks are cut off.
    @inline(__always)
    private func untrimmed(where trimmed: (Unicode.Scalar) -> Bool) -> Range<Index> {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, trimmed(scalars[start]) { start = scalars.index(after: start) }
        while end > start {
            let before = scalars.index(before: end)
            guard trimmed(scalars[before]) else { break }
            end = before
        }
        return start..<end
    }

    /// Whether the text equals `ascii` (ASCII text) ignoring case, as
    /// Foundation's `caseInsensitiveCompare(_:) == .orderedSame` says (Unicode
    /// case folding and canonical equivalence: "ſ" matches "s", the Kelvin
    /// sign "k", "ß" "ss", "ﬁ" "fi"; the dotless "ı" does not match "i").
    /// Checked against Foundation for every scalar paired with every ASCII
    /// letter and with its case mappings.
    package func equalsIgnoringCase(ascii: String) -> Bool {
        let text = String(self)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.count == ascii.utf8.count && zip(text.utf8, ascii.utf8).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
        }
        // ı (U+0131) folds to itself: nothing with it equals ASCII text.
        guard !text.unicodeScalars.contains("\u{131}") else { return false }
        return text.uppercased().lowercased() == ascii.lowercased()
    }
}

private func asciiLowercase(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

extension Unicode.Scalar {
    /// A member of Foundation's `CharacterSet.whitespaces`: the tab, and the
    /// space separators (general category Zs: U+0020, U+00A0, U+1680,
    /// U+2000–U+200A, U+202F, U+205F, U+3000) plus U+200B ZERO WIDTH SPACE,
    /// which CoreFoundation's set keeps (Unicode moved it to Cf). The list
    /// is CoreFoundation's, checked against every scalar; not the standard
    /// library's `properties.isWhitespace`, which has the line breaks too.
    package var isFoundationWhitespace: Bool {
        switch value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// A member of Foundation's `CharacterSet.newlines`: U+000A–U+000D,
    /// U+0085, U+2028 and U+2029.
    package var isFoundationNewline: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}

extension String {
    /// The text with every `target` scalar replaced by `replacement`, as
    /// Foundation's `replacingOccurrences(of:with:)` replaced a one-scalar
    /// string: by scalars, so the "\n" of "\r\n" is replaced too (the
    /// standard library's `replacing(_:with:)` matches whole characters and
    /// leaves it), except where a combining mark (a grapheme extender)
    /// follows, which Foundation keeps with it ("\n\u{301}" stays).
    /// Foundation's Unicode data (ICU's) is older than the standard
    /// library's: a hundred-odd marks added or reclassified since differ.
    package func replacingScalar(_ target: Unicode.Scalar, with replacement: String) -> String {
        guard unicodeScalars.contains(target) else { return self }
        var result = String.UnicodeScalarView()
        let scalars = Array(unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if scalar == target, index + 1 == scalars.count || !scalars[index + 1].properties.isGraphemeExtend {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
