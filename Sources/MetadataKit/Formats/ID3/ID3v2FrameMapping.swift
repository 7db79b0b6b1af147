#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Frame IDs and date frames across ID3v2 versions, for the writer.
///
/// - v2.2 three-letter IDs become their v2.3/v2.4 IDs (ID3v2.3.0 appendix
///   / ID3v2.2.0 §4 list, plus the iTunes extensions `TCP`, `TST`, `TSP`,
///   `TSA`, `TS2`, `TSC`, `GP1`, `MVN`, `MVI`). The obsolete `RVA` becomes
///   `RVAD` with its payload (kept in v2.4 as a frame readers may not know,
///   rather than lost). v2.2 frames without an equivalent whose payload
///   keeps its meaning — `CRM` (encrypted meta frame), `LNK` (links name
///   three-letter frame IDs) and anything not in the table — can't be
///   upgraded: a save that would have to is refused (remove the item first).
/// - Dates (ID3v2.4.0 frames §4.2.5, ID3v2.3.0 §4.2.1): v2.3 stores the
///   recording date as `TYER` "yyyy", `TDAT` "DDMM" and `TIME` "HHMM";
///   v2.4 as one `TDRC` timestamp "yyyy-MM-ddTHH:mm". `TORY` (v2.3 original
///   year) and `TDOR` (v2.4 original date) likewise; a `TDOR` fuller than a
///   year is also kept whole in v2.3 as `TXXX:ORIGINALDATE`. A year frame that holds
///   no date ("Test Year") is carried over whole, never cut to four
///   characters; `TDAT`/`TIME` that can't be combined with a year, and the
///   deprecated `TRDA` and `TSIZ` (ID3v2.4.0 changes §3), stay as they are.
enum ID3v2FrameMapping {
    /// v2.2 ID → v2.3/v2.4 ID.
    static let upgradedIDs: [String: String] = [
        "BUF": "RBUF", "CNT": "PCNT", "COM": "COMM", "CRA": "AENC", "ETC": "ETCO", "EQU": "EQUA",
        "GEO": "GEOB", "IPL": "IPLS", "MCI": "MCDI", "MLL": "MLLT", "PIC": "APIC", "POP": "POPM",
        "REV": "RVRB", "RVA": "RVAD", "SLT": "SYLT", "STC": "SYTC", "TAL": "TALB", "TBP": "TBPM",
        "TCM": "TCOM", "TCO": "TCON", "TCR": "TCOP", "TDA": "TDAT", "TDY": "TDLY", "TEN": "TENC",
        "TFT": "TFLT", "TIM": "TIME", "TKE": "TKEY", "TLA": "TLAN", "TLE": "TLEN", "TMT": "TMED",
        "TOA": "TOPE", "TOF": "TOFN", "TOL": "TOLY", "TOR": "TORY", "TOT": "TOAL", "TP1": "TPE1",
        "TP2": "TPE2", "TP3": "TPE3", "TP4": "TPE4", "TPA": "TPOS", "TPB": "TPUB", "TRC": "TSRC",
        "TRD": "TRDA", "TRK": "TRCK", "TSI": "TSIZ", "TSS": "TSSE", "TT1": "TIT1", "TT2": "TIT2",
        "TT3": "TIT3", "TXT": "TEXT", "TXX": "TXXX", "TYE": "TYER", "UFI": "UFID", "ULT": "USLT",
        "WAF": "WOAF", "WAR": "WOAR", "WAS": "WOAS", "WCM": "WCOM", "WCP": "WCOP", "WPB": "WPUB",
        "WXX": "WXXX",
        // iTunes
        "TCP": "TCMP", "TST": "TSOT", "TSP": "TSOP", "TSA": "TSOA", "TS2": "TSO2", "TSC": "TSOC",
        "GP1": "GRP1", "MVN": "MVNM", "MVI": "MVIN",
    ]

    /// The v2.3/v2.4 frame ID for an item key's ID; nil when a v2.2 frame has
    /// no equivalent (the caller refuses the save).
    /// - Throws: `invalidValue` for an ID that is no frame ID at all.
    static func targetID(_ id: String, item: MetadataItem) throws -> String? {
        let valid = id.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
        guard valid, id.utf8.count == 3 || id.utf8.count == 4 else {
            throw MediaError(
                .invalidValue,
                "'\(item.key)' is not an ID3v2 frame key (four letters or digits, then ':description' where the frame has one)")
        }
        guard id.utf8.count == 3 else { return id }
        guard let upgraded = upgradedIDs[id] else { return nil }
        // A v2.2 picture that could not be parsed holds a v2.2 payload: no equivalent.
        if upgraded == "APIC", case .data = item.value { return nil }
        return upgraded
    }

    /// Entries of the frame list being built: the item to write, and the
    /// item as the file (or the edit) had it, to find the frame it came from.
    struct Entry {
        var id: String
        var item: MetadataItem
        /// The item as given, before any renaming or conversion.
        var original: MetadataItem
        /// Index of the existing frame the item was read from, if any.
        var record: Int?
        /// Whether the item is the file's frame, unchanged.
        var isAsStored: Bool { record != nil && item == original }
    }

    /// Applies the date conversions for `version` to `entries` (IDs already mapped).
    static func convertDates(_ entries: [Entry], version: UInt8) -> [Entry] {
        var entries = entries
        func first(_ id: String) -> Int? { entries.firstIndex { $0.id == id } }
        func text(_ index: Int) -> String { entries[index].item.value.stringValue ?? "" }
        func make(_ id: String, _ value: String) -> Entry {
            let item = MetadataItem(keySpace: .id3, key: id, value: .string(value), dataType: .latin1)
            return Entry(id: id, item: item, original: item)
        }
        /// Replaces the entries with `ids` by `replacement`, placed where the first of them was.
        func replace(_ ids: Set<String>, with replacement: [Entry]) {
            guard let position = entries.firstIndex(where: { ids.contains($0.id) }) else { return }
            let before = entries[..<position].filter { !ids.contains($0.id) }
            let after = entries[position...].filter { !ids.contains($0.id) }
            entries = Array(before) + replacement + after
        }
        if version < 4 {
            // The timestamp wins over the v2.3 frames; a TYER holding a full date is split too,
            // unless the file stores it so and nobody changed it (ffmpeg writes
            // "2020-01-01T00:00:00.000Z"): an item nobody changed is copied as stored.
            let source =
                first("TDRC") ?? first("TYER").flatMap { text($0).count > 4 && !entries[$0].isAsStored ? $0 : nil }
            if let source, let date = Timestamp(text(source)) {
                var frames = [make("TYER", date.year)]
                if let day = date.dayMonth { frames.append(make("TDAT", day)) }
                if let time = date.hourMinute { frames.append(make("TIME", time)) }
                // An unchanged TYER/TDAT/TIME keeps its frame (found again by value).
                frames = frames.map { frame in
                    entries.first { $0.id == frame.id && $0.item.value == frame.item.value } ?? frame
                }
                replace(["TDRC", "TYER", "TDAT", "TIME"], with: frames)
            } else if let source, entries[source].id == "TDRC" {
                // Not a timestamp: the text is kept whole.
                let kept = first("TYER").map { entries[$0] }.flatMap { $0.item.value.stringValue == text(source) ? $0 : nil }
                replace(["TDRC", "TYER"], with: [kept ?? make("TYER", text(source))])
            }
            if let original = first("TDOR") {
                let full = text(original)
                let year = Timestamp(full)?.year ?? full
                let kept = first("TORY").map { entries[$0] }.flatMap { $0.item.value == .string(year) ? $0 : nil }
                var frames = [kept ?? make("TORY", year)]
                // TORY holds the year only: a fuller date goes to TXXX:ORIGINALDATE too (Picard's
                // v2.3 name; see OriginalDateMetadataConverter), so no value is lost.
                let userKey = "TXXX:ORIGINALDATE"
                if full != year, !entries.contains(where: { $0.item.key == userKey }) {
                    let item = MetadataItem(keySpace: .id3, key: userKey, value: .string(full), dataType: entries[original].item.dataType)
                    frames.append(Entry(id: "TXXX", item: item, original: item))
                }
                replace(["TDOR", "TORY"], with: frames)
            }
        } else {
            if first("TDRC") != nil {
                replace(["TYER", "TDAT", "TIME"], with: [])
            } else if let year = first("TYER") {
                var value = text(year)
                if value.count == 4, value.allSatisfy(\.isASCIIDigit) {
                    var combined: Set<String> = ["TYER"]
                    if let date = first("TDAT").map(text), date.count == 4, date.allSatisfy(\.isASCIIDigit) {
                        value += "-\(date.suffix(2))-\(date.prefix(2))"
                        combined.insert("TDAT")
                        if let time = first("TIME").map(text), time.count == 4, time.allSatisfy(\.isASCIIDigit) {
                            value += "T\(time.prefix(2)):\(time.suffix(2))"
                            combined.insert("TIME")
                        }
                    }
                    replace(combined, with: [make("TDRC", value)])
                } else {
                    // Not a year ("Test Year", "2024-05-01"): carried over whole.
                    replace(["TYER"], with: [make("TDRC", value)])
                }
            }
            if first("TDOR") != nil {
                replace(["TORY"], with: [])
            } else if let year = first("TORY") {
                replace(["TORY"], with: [make("TDOR", text(year))])
            }
        }
        return entries
    }

    /// A v2.4 timestamp "yyyy[-MM[-dd[THH[:mm[:ss]]]]]" (ID3v2.4.0 structure §4),
    /// cut into the v2.3 fields.
    struct Timestamp {
        var year: String
        /// "DDMM" for TDAT, when the day is given.
        var dayMonth: String?
        /// "HHMM" for TIME, when hours and minutes are given.
        var hourMinute: String?

        init?(_ text: String) {
            let scalars: [Character] = Array(text.trimmingWhitespace())
            func digits(_ range: Range<Int>) -> String? {
                guard range.upperBound <= scalars.count, scalars[range].allSatisfy(\.isASCIIDigit) else { return nil }
                return String(scalars[range])
            }
            func separator(_ index: Int, _ character: Character) -> Bool {
                index < scalars.count && scalars[index] == character
            }
            guard let year = digits(0..<4), scalars.count == 4 || separator(4, "-") else { return nil }
            self.year = year
            if let month = digits(5..<7), separator(7, "-"), let day = digits(8..<10) {
                dayMonth = day + month
                if separator(10, "T"), let hour = digits(11..<13), separator(13, ":"), let minute = digits(14..<16) {
                    hourMinute = hour + minute
                }
            }
        }
    }
}

extension Character {
    /// "0" through "9" only (not other scripts' digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
