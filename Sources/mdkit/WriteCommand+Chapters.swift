import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension WriteCommand {
    /// `--chapters F` or `--remove-chapters`.
    enum ChapterEdit {
        case set([Chapter])
        case remove
    }

    /// The help lines of the chapter options.
    static let chapterUsage = """
          --chapters F        set the chapters from F, detected by its content: JSON
                              {"chapters": [{"start": 0.0, "end": 12.5, "title": "One",
                              "url": ...}, ...]} as mdkit chapters --json prints it (times in
                              seconds; nested "chapters" allowed), ffmpeg metadata text
                              (;FFMETADATA1 with [CHAPTER] TIMEBASE= START= END= title=), or
                              Podlove simple chapters ("HH:MM:SS.mmm Title <url>" lines).
                              A format that can't store chapters (or these chapters: Vorbis
                              comments hold only starts, one flat list) is refused
          --remove-chapters   remove every chapter
        """

    /// The chapters of `--chapters F`: the file read and parsed (see ``ChapterInput``).
    static func chapterEdit(file path: String) throws(UsageError) -> ChapterEdit {
        let data = try WriteCommand.contents(of: path, what: "the chapters file")
        guard let text = String(data: data, encoding: .utf8) else {
            throw UsageError("the chapters file \(path) is not UTF-8 text")
        }
        guard !text.allSatisfy(\.isWhitespace) else { throw UsageError("the chapters file \(path) is empty") }
        do {
            return .set(try ChapterInput.parse(text))
        } catch {
            throw UsageError("\(TerminalText.escape(path)): \(error.message)")
        }
    }

    /// Applies the chapter edit to `item`; the lines `--dry-run` prints for it
    /// (none when the chapters stay as they are).
    static func apply(_ edit: ChapterEdit?, to item: inout MediaItem) -> [String] {
        guard let edit else { return [] }
        let before = item.chapters
        switch edit {
        case .set(let chapters): item.chapters = chapters
        case .remove: item.chapterTables = []
        }
        guard item.chapters != before else { return [] }
        func count(_ chapters: [Chapter]) -> String { "\(chapters.count) chapter\(chapters.count == 1 ? "" : "s")" }
        return ["chapters: \(count(before)) → \(count(item.chapters))"]
    }
}

/// Reads chapter lists given to `mdkit write --chapters`, in one of three
/// syntaxes told apart by their content:
///
/// - JSON (starts with `{` or `[`): `{"chapters": [...]}` as `mdkit chapters
///   --json` prints it (that command's array of one file is taken too, and a
///   bare array of chapters); each chapter `{"start": s, "end": s, "title",
///   "language", "url", "hidden", "chapters": [...]}`, times in seconds.
/// - ffmpeg metadata (starts with `;FFMETADATA`): `[CHAPTER]` sections with
///   `TIMEBASE=num/den` (nanoseconds without one, as ffmpeg reads it),
///   `START=`, `END=` and `title=`; `\` escapes `=`, `;`, `#`, `\` and a line
///   break. Other sections and the global tags are not chapters.
/// - Podlove Simple Chapters text: `HH:MM:SS.mmm Title <url>` lines (hours
///   and the fraction optional; the `<url>` too).
///
/// Chapters come out sorted by start.
enum ChapterInput {
    struct Failure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    static func parse(_ text: String) throws(Failure) -> [Chapter] {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let trimmed = body.trimmingWhitespaceAndNewlines()
        let chapters: [Chapter]
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            chapters = try json(trimmed)
        } else if trimmed.hasPrefix(";FFMETADATA") {
            chapters = try ffmetadata(body)
        } else {
            chapters = try podlove(body)
        }
        return sorted(chapters)
    }

    static func sorted(_ chapters: [Chapter]) -> [Chapter] {
        chapters.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map { element in
            var chapter = element.element
            chapter.chapters = sorted(chapter.chapters)
            return chapter
        }
    }

    // MARK: JSON

    /// Read with the library's JSON parser (numbers exactly: the nearest
    /// `Double`), with the types `JSONSerialization` gave (`true` reads as
    /// 1 where a number is wanted, 0 and 1 as false and true for `hidden`).
    static func json(_ text: String) throws(Failure) -> [Chapter] {
        let object: TimedMetadataJSON.Value
        do {
            object = try TimedMetadataJSON.parse(Data(text.utf8))
        } catch let error as MediaError {
            // The parser's reason already says "not valid JSON: …".
            throw Failure(error.reason)
        } catch {
            throw Failure("not valid JSON (\(error))")
        }
        var list: TimedMetadataJSON.Value? = object
        if case .array(let files) = object, files.count == 1, let file = files[0].object, file["chapters"] != nil {
            list = file["chapters"]
        } else if let file = object.object {
            guard let chapters = file["chapters"] else { throw Failure("the JSON object has no \"chapters\" member") }
            list = chapters
        }
        guard case .array(let entries) = list else { throw Failure("\"chapters\" is not an array") }
        return try chapters(entries, path: "chapters")
    }

    static func chapters(_ entries: [TimedMetadataJSON.Value], path: String) throws(Failure) -> [Chapter] {
        var result: [Chapter] = []
        for (index, entry) in entries.enumerated() {
            let name = "\(path)[\(index)]"
            guard let object = entry.object else { throw Failure("\(name) is not an object") }
            func seconds(_ key: String) throws(Failure) -> Double? {
                guard let value = object[key], value != .null else { return nil }
                guard let number = value.numberValue, number.isFinite, number >= 0 else {
                    throw Failure("\(name).\(key) is not a time in seconds (a number ≥ 0)")
                }
                return number
            }
            func string(_ key: String) throws(Failure) -> String? {
                guard let value = object[key], value != .null else { return nil }
                guard let text = value.string else { throw Failure("\(name).\(key) is not a string") }
                return text
            }
            guard let start = try seconds("start") else { throw Failure("\(name) has no \"start\"") }
            let end = try seconds("end")
            if let end, end < start { throw Failure("\(name) ends before it starts") }
            if object["artwork"] != nil { throw Failure("\(name): chapter pictures can't be set from the chapters file") }
            var chapter = Chapter(start: start, end: end, url: try string("url"))
            if let title = try string("title") { chapter.titles = [Chapter.Title(title, language: try string("language"))] }
            if let hidden = object["hidden"] {
                guard let flag = boolean(hidden) else { throw Failure("\(name).hidden is not true or false") }
                chapter.isHidden = flag
            }
            if let nested = object["chapters"] {
                guard case .array(let list) = nested else { throw Failure("\(name).chapters is not an array") }
                chapter.chapters = try chapters(list, path: name + ".chapters")
            }
            result.append(chapter)
        }
        return result
    }

    /// `value as? Bool` of a `JSONSerialization` value: true and false, and
    /// the numbers 1 and 0.
    private static func boolean(_ value: TimedMetadataJSON.Value) -> Bool? {
        switch value {
        case .bool(let flag): flag
        case .integer(let number) where number == 0 || number == 1: number == 1
        case .number(let number) where number == 0 || number == 1: number == 1
        default: nil
        }
    }

    // MARK: ffmetadata

    /// ffmpeg's metadata file (ffmpeg-formats(1), "Metadata"): `key=value`
    /// lines in sections; `;` and `#` start comment lines.
    static func ffmetadata(_ text: String) throws(Failure) -> [Chapter] {
        var chapters: [Chapter] = []
        var current: [String: String]?
        var line = "", lineNumber = 1
        func finish() throws(Failure) {
            guard let fields = current else { return }
            current = nil
            var timebase = (numerator: 1.0, denominator: 1_000_000_000.0)
            if let value = fields["TIMEBASE"] {
                let parts = value.split(separator: "/")
                guard parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]), numerator > 0,
                    denominator > 0
                else { throw Failure("a [CHAPTER] has TIMEBASE=\(value), not num/den") }
                timebase = (numerator, denominator)
            }
            func time(_ key: String) throws(Failure) -> Double {
                guard let value = fields[key], let ticks = Int64(value), ticks >= 0 else {
                    throw Failure("a [CHAPTER] needs \(key)=<integer ≥ 0>, has \(fields[key].map { "'\($0)'" } ?? "none")")
                }
                return Double(ticks) * timebase.numerator / timebase.denominator
            }
            let start = try time("START"), end = try time("END")
            guard end >= start else { throw Failure("a [CHAPTER] ends (END) before it starts (START)") }
            chapters.append(Chapter(start: start, end: end, titles: fields["title"].map { [Chapter.Title($0)] } ?? []))
        }
        func take(_ line: String) throws(Failure) {
            if line.hasPrefix(";") || line.hasPrefix("#") || line.isEmpty { return }
            if line.hasPrefix("[") {
                try finish()
                if line == "[CHAPTER]" { current = [:] }
                return
            }
            guard current != nil else { return }
            var key = "", value = "", escaped = false, inValue = false
            for character in line {
                if escaped {
                    if inValue { value.append(character) } else { key.append(character) }
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "=" && !inValue {
                    inValue = true
                } else if inValue {
                    value.append(character)
                } else {
                    key.append(character)
                }
            }
            guard inValue else { throw Failure("line \(lineNumber) is not key=value") }
            if current?[key] == nil { current?[key] = value }
        }
        // A line ends at a line break that no backslash escapes.
        var escaped = false
        for character in text {
            if character == "\n" && !escaped {
                try take(line.hasSuffix("\r") ? String(line.dropLast()) : line)
                line = ""
                lineNumber += 1
                continue
            }
            escaped = character == "\\" && !escaped
            line.append(character)
        }
        try take(line)
        try finish()
        return chapters
    }

    // MARK: Podlove Simple Chapters

    /// `HH:MM:SS.mmm Title <url>` lines (Podlove Simple Chapters' normal play
    /// time: `H:MM:SS`, `MM:SS` or `SS`, an optional `.fraction`).
    static func podlove(_ text: String) throws(Failure) -> [Chapter] {
        var chapters: [Chapter] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty { continue }
            let time = line.prefix { !$0.isWhitespace }
            guard let start = Chapter.seconds(fromTimestamp: String(time)) else {
                throw Failure(
                    "line \(index + 1) doesn't start with a time (HH:MM:SS.mmm): not JSON, ffmetadata (;FFMETADATA1) or "
                        + "Podlove simple chapters")
            }
            var title = line.dropFirst(time.count).trimmingWhitespace()
            var url: String?
            if title.hasSuffix(">"), let open = title.lastIndex(of: "<") {
                url = String(title[title.index(after: open)..<title.index(before: title.endIndex)])
                title = title[..<open].trimmingWhitespace()
            }
            chapters.append(Chapter(start: start, titles: title.isEmpty ? [] : [Chapter.Title(title)], url: url))
        }
        guard !chapters.isEmpty else { throw Failure("no chapters in it") }
        return chapters
    }
}
