import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Report {
    /// The `chapters` member of `mdkit read --json`: the chapters players
    /// show by default (``MediaItem/chapters``), each
    /// `{"start": s, "end": s, "title", "language", "url", "artwork":
    /// {"mimeType", "byteCount"}, "hidden": true, "chapters": [...]}` — times
    /// in seconds, members absent when unknown, nested chapters where the file
    /// has them. `mdkit chapters --json` prints the same.
    static func chapters(_ chapters: [Chapter], to json: inout JSONWriter) {
        json.beginArray()
        for chapter in chapters {
            json.beginObject()
            json.key("start")
            json.number(chapter.start)
            if let end = chapter.end {
                json.key("end")
                json.number(end)
            }
            if let title = chapter.title { json.member("title", title) }
            if let language = chapter.language { json.member("language", language) }
            if let url = chapter.url { json.member("url", url) }
            if let artwork = chapter.artwork {
                json.key("artwork")
                json.beginObject()
                json.member("mimeType", artwork.mimeType)
                json.member("byteCount", artwork.byteCount)
                json.end(array: false)
            }
            if chapter.isHidden { json.member("hidden", true) }
            if !chapter.chapters.isEmpty {
                json.key("chapters")
                Self.chapters(chapter.chapters, to: &json)
            }
            json.end(array: false)
        }
        json.end(array: true)
    }

    /// The chapters as text lines for `mdkit chapters`: start, end and title
    /// (then the URL and picture), nested chapters indented below theirs.
    static func chapterLines(_ chapters: [Chapter], depth: Int = 1) -> String {
        var text = ""
        for chapter in chapters {
            let end = chapter.end.map(clock) ?? String(repeating: " ", count: 11) + "-"
            var line = String(repeating: "  ", count: depth) + clock(chapter.start) + "  " + end + "  " + (chapter.title ?? "")
            if let url = chapter.url { line += "  <\(url)>" }
            if let artwork = chapter.artwork { line += "  [\(artwork.mimeType), \(artwork.byteCount) bytes]" }
            text += TerminalText.escape(line) + "\n"
            text += chapterLines(chapter.chapters, depth: depth + 1)
        }
        return text
    }

    /// `H:MM:SS.mmm`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return String(seconds) }
        let milliseconds = Int64((seconds * 1000).rounded())
        return String(
            cFormat: "%lld:%02lld:%02lld.%03lld", milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60,
            milliseconds % 1000)
    }
}
