#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Chapters stored as Vorbis comment fields (FLAC, Ogg Vorbis, Opus,
/// FLAC-in-Ogg), the convention of the Xiph "Chapter Extension" proposal
/// (wiki.xiph.org/Chapter_Extension) that ffmpeg, mkvtoolnix and foobar2000
/// follow:
///
///     CHAPTER001=00:00:00.000
///     CHAPTER001NAME=Intro
///     CHAPTER001URL=https://example.com/intro
///
/// ### Reading
/// A field name is `CHAPTER`, a number of two or three digits and an
/// optional `NAME` or `URL` suffix (names compare case-insensitively, so the
/// upper-cased item keys are looked at). A number may start at 000 (ffmpeg
/// writes `CHAPTER000`) or 001 (the proposal's examples); `CHAPTER01` and
/// `CHAPTER001` are the same chapter. The start is `H:MM:SS.fff` (hours and
/// the fraction of any length; `MM:SS` and plain seconds too); the early
/// proposal's `start-->end` form gives an end as well. A number without a
/// readable start is skipped (as ffmpeg does). The chapters make one default
/// ``ChapterTable``, sorted by start (then number); a chapter ends where the
/// next one starts, the last at the file's duration when it is known (as
/// ffprobe reports it), else its end is nil. The fields stay raw items too.
///
/// ### Writing (``storing(_:in:)``)
/// Every `CHAPTERnn…`/`CHAPTERnnn…` field goes; the new chapters are
/// numbered from 001 with three digits (ffmpeg reads any such number; it
/// writes from 000), the start as `HH:MM:SS.mmm`, then `NAME` and `URL`
/// when the chapter has them. What the fields can't hold is refused before
/// anything is written: more than one table, nested chapters, pictures,
/// hidden chapters, several titles, starts out of order, a gap or overlap
/// between chapters (only starts are stored), more than 999 chapters.
enum VorbisChapters {
    /// The parts of a chapter field.
    enum Part: Equatable {
        case start, name, url
        /// A suffix nobody reads (removed with the chapter on a write).
        case other
    }

    /// The chapter number's digits and the part a field name (upper-cased)
    /// holds; nil when it is not a chapter field.
    static func field(_ key: String) -> (digits: Substring, part: Part)? {
        let utf8 = key.utf8
        guard utf8.count >= 9, utf8.starts(with: "CHAPTER".utf8) else { return nil }
        let rest = key.dropFirst(7)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 2 || digits.count == 3 else { return nil }
        let suffix = rest.dropFirst(digits.count)
        let part: Part =
            switch suffix {
            case "": .start
            case "NAME": .name
            case "URL": .url
            default: .other
            }
        if part == .other && !suffix.allSatisfy({ $0.isASCII && $0.isLetter }) { return nil }
        return (digits, part)
    }

    /// The chapter table the comment's `CHAPTERxxx` fields make (none
    /// without them); `duration` ends the last chapter.
    static func tables(from items: [MetadataItem], duration: Double?) -> [ChapterTable] {
        // The common case, no chapter field, costs one prefix check per item.
        guard items.contains(where: { $0.key.utf8.starts(with: "CHAPTER".utf8) && $0.keySpace == .vorbis }) else { return [] }
        struct Found {
            var digits: String
            var start: Double?
            var end: Double?
            var name: String?
            var url: String?
        }
        var found: [Int: Found] = [:]
        for item in items where item.keySpace == .vorbis {
            guard let key = field(item.key), let number = Int(key.digits), let value = item.value.stringValues.first else {
                continue
            }
            var chapter = found[number] ?? Found(digits: String(key.digits))
            switch key.part {
            case .start:
                if chapter.start == nil, let times = times(value) { (chapter.start, chapter.end) = (times.start, times.end) }
            case .name: if chapter.name == nil { chapter.name = value }
            case .url: if chapter.url == nil { chapter.url = value }
            case .other: break
            }
            found[number] = chapter
        }
        let ordered = found.compactMap { number, chapter in chapter.start.map { (number, $0, chapter) } }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard !ordered.isEmpty else { return [] }
        var chapters: [Chapter] = []
        for (index, (_, start, chapter)) in ordered.enumerated() {
            let next = index + 1 < ordered.count ? ordered[index + 1].1 : nil
            let end = chapter.end ?? next ?? duration.flatMap { $0 > start ? $0 : nil }
            chapters.append(
                Chapter(
                    id: chapter.digits, start: start, end: end, titles: chapter.name.map { [Chapter.Title($0)] } ?? [],
                    url: chapter.url))
        }
        return [ChapterTable(isDefault: true, chapters: chapters)]
    }

    /// The start (and, in the `start-->end` form, the end) of a `CHAPTERxxx` value.
    static func times(_ value: String) -> (start: Double, end: Double?)? {
        let parts = value.components(separatedBy: "-->")
        guard parts.count <= 2, let start = seconds(parts[0]) else { return nil }
        guard parts.count == 2 else { return (start, nil) }
        guard let end = seconds(parts[1]), end >= start else { return (start, nil) }
        return (start, end)
    }

    /// Seconds of `H:MM:SS.fff`, `MM:SS.fff` or `SS.fff` (surrounding spaces
    /// allowed); nil for anything else.
    static func seconds(_ text: String) -> Double? {
        Chapter.seconds(fromTimestamp: text)
    }

    /// `HH:MM:SS.mmm` (hours as many digits as needed) for `seconds`.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int64((seconds * 1000).rounded())
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return padded(milliseconds / 3_600_000, 2) + ":" + padded(milliseconds / 60_000 % 60, 2) + ":"
            + padded(milliseconds / 1000 % 60, 2) + "." + padded(milliseconds % 1000, 3)
    }

    /// `items` with every chapter field replaced by fields holding `tables`
    /// (see the type's documentation); for ``MediaFormat/ChapterWriting/asItems(_:)``.
    ///
    /// - Throws: `invalidValue` for chapters the fields can't hold.
    static func storing(_ tables: [ChapterTable], in items: [MetadataItem]) throws -> [MetadataItem] {
        let used = tables.filter { !$0.chapters.isEmpty }
        guard used.count <= 1 else {
            throw MediaError(.invalidValue, "Vorbis comments hold one list of chapters, not \(used.count) tables")
        }
        let chapters = used.first?.chapters ?? []
        guard chapters.count <= 999 else {
            throw MediaError(.invalidValue, "Vorbis comments hold at most 999 chapters (CHAPTER001–CHAPTER999), not \(chapters.count)")
        }
        for (index, chapter) in chapters.enumerated() {
            let name = "chapter \(index + 1)"
            func refuse(_ reason: String) -> MediaError {
                MediaError(.invalidValue, "\(name) \(reason): Vorbis comment chapters can't hold that")
            }
            guard chapter.start.isFinite, chapter.start >= 0, chapter.start < 1e9 else { throw refuse("starts at \(chapter.start) s") }
            if !chapter.chapters.isEmpty { throw refuse("has nested chapters") }
            if chapter.artwork != nil { throw refuse("has a picture") }
            if chapter.isHidden { throw refuse("is hidden") }
            if chapter.titles.count > 1 { throw refuse("has \(chapter.titles.count) titles") }
            if index > 0, chapter.start < chapters[index - 1].start {
                throw MediaError(
                    .invalidValue, "\(name) starts before chapter \(index) (\(chapter.start) s < \(chapters[index - 1].start) s): sort them"
                )
            }
            if let end = chapter.end, end < chapter.start { throw refuse("ends before it starts") }
            if let end = chapter.end, index + 1 < chapters.count, abs(end - chapters[index + 1].start) > ChapterComparison.tolerance {
                throw MediaError(
                    .invalidValue,
                    "\(name) ends at \(end) s but chapter \(index + 2) starts at \(chapters[index + 1].start) s: Vorbis comments "
                        + "store only starts, each chapter ends where the next begins")
            }
        }
        var result = items.filter { !($0.keySpace == .vorbis && field($0.key) != nil) }
        for (index, chapter) in chapters.enumerated() {
            let number = String(repeating: "0", count: index + 1 < 10 ? 2 : index + 1 < 100 ? 1 : 0) + String(index + 1)
            func add(_ suffix: String, _ value: String) {
                result.append(MetadataItem(keySpace: .vorbis, key: "CHAPTER" + number + suffix, value: .string(value), dataType: .utf8))
            }
            add("", timestamp(chapter.start))
            if let title = chapter.title, !title.isEmpty { add("NAME", title) }
            if let url = chapter.url, !url.isEmpty { add("URL", url) }
        }
        return result
    }
}
