import Foundation
import MetadataKit

extension Report {
    /// The `chapters` member of `mdkit read --json`: the chapters players
    /// show by default (``MediaItem/chapters``), each
    /// `{"start": s, "end": s, "title", "language", "url", "hidden": true,
    /// "chapters": [...]}` — times in seconds, members absent when unknown,
    /// nested chapters where the file has them.
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
            if chapter.isHidden { json.member("hidden", true) }
            if !chapter.chapters.isEmpty {
                json.key("chapters")
                Self.chapters(chapter.chapters, to: &json)
            }
            json.end(array: false)
        }
        json.end(array: true)
    }
}
