#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One chapter of a file: a named time range, possibly holding chapters of
/// its own.
///
/// One model for every format that has chapters: Matroska ChapterAtoms
/// (RFC 9559 §5.1.7, nested, with a title per language), ID3v2 `CHAP`
/// frames (ID3v2 Chapter Frame Addendum §3, with `TIT2`/`TIT3`/`WXXX`/`APIC`
/// sub-frames), MP4 Nero `chpl` entries and QuickTime chapter-track samples,
/// and Vorbis `CHAPTERxxx` comments. Times are seconds from the start of
/// the presentation.
public struct Chapter: Sendable, Hashable {
    /// A title in one language (Matroska ChapterDisplay; ID3 and MP4 hold one).
    public struct Title: Sendable, Hashable {
        /// The title's text.
        public var text: String
        /// ISO 639-2 or BCP 47 language, when the format gives one.
        public var language: String?

        /// A title reading `text`, in `language` when known.
        public init(_ text: String, language: String? = nil) {
            self.text = text
            self.language = language
        }
    }

    /// The format's identifier of the chapter, as text: a Matroska
    /// ChapterUID, an ID3 `CHAP` element ID; nil where the format has none.
    public var id: String?
    /// Start time in seconds.
    public var start: Double
    /// End time in seconds; nil when the format doesn't say (the next
    /// chapter's start, or the end of the file, is meant).
    public var end: Double?
    /// Every title, in file order; ``title`` is the first.
    public var titles: [Title]
    /// A link for the chapter (ID3 `WXXX` sub-frame, Vorbis `CHAPTERxxxURL`).
    public var url: String?
    /// A picture for the chapter (ID3 `APIC` sub-frame, a chapter track image).
    public var artwork: Artwork?
    /// Whether players should skip it in their chapter lists (Matroska
    /// ChapterFlagHidden, or a disabled chapter).
    public var isHidden: Bool
    /// Chapters nested in this one (Matroska nested ChapterAtoms; an ID3
    /// `CTOC` child table).
    public var chapters: [Chapter]

    /// A chapter from `start` to `end` seconds (nil: until the next chapter
    /// or the end of the file); the other parameters set the properties of the
    /// same names.
    public init(
        id: String? = nil, start: Double, end: Double? = nil, titles: [Title] = [], url: String? = nil,
        artwork: Artwork? = nil, isHidden: Bool = false, chapters: [Chapter] = []
    ) {
        self.id = id
        self.start = start
        self.end = end
        self.titles = titles
        self.url = url
        self.artwork = artwork
        self.isHidden = isHidden
        self.chapters = chapters
    }

    /// The first title's text.
    public var title: String? { titles.first?.text }
    /// The first title's language.
    public var language: String? { titles.first?.language }
}

/// A table of contents: a list of chapters that belong together (a Matroska
/// EditionEntry, an ID3 `CTOC` frame). Most files hold one.
public struct ChapterTable: Sendable, Hashable {
    /// The format's identifier of the table (Matroska EditionUID, ID3 `CTOC`
    /// element ID), as text.
    public var id: String?
    /// The table's name, when the format gives one.
    public var title: String?
    /// Whether players use this table unless told otherwise (Matroska
    /// EditionFlagDefault; ID3's top-level `CTOC`).
    public var isDefault: Bool
    /// Whether the chapters are ordered (Matroska EditionFlagOrdered: they
    /// say which parts play in which order; ID3 `CTOC`'s ordered flag).
    public var isOrdered: Bool
    /// Whether players should not offer the table (Matroska EditionFlagHidden).
    public var isHidden: Bool
    /// The table's top-level chapters, in file order.
    public var chapters: [Chapter]

    /// A table of `chapters`; the other parameters set the properties of the
    /// same names.
    public init(
        id: String? = nil, title: String? = nil, isDefault: Bool = false, isOrdered: Bool = false, isHidden: Bool = false,
        chapters: [Chapter] = []
    ) {
        self.id = id
        self.title = title
        self.isDefault = isDefault
        self.isOrdered = isOrdered
        self.isHidden = isHidden
        self.chapters = chapters
    }
}

extension Chapter {
    /// The seconds of a chapter timestamp: `H:MM:SS.fff`, `MM:SS.fff` or
    /// `SS.fff`, as chapter comments (`CHAPTERxxx`) and Podlove simple chapters
    /// write them (surrounding spaces allowed); nil for anything else.
    public static func seconds(fromTimestamp text: String) -> Double? {
        let fields = text.trimmingWhitespace().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (index, field) in fields.enumerated() {
            let isLast = index == fields.count - 1
            let whole = isLast ? field.prefix { $0 != "." } : field[...]
            let fraction = isLast ? field.dropFirst(whole.count) : ""
            guard !whole.isEmpty, whole.count <= 12, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
                fraction.isEmpty || (fraction.count > 1 && fraction.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }),
                let number = Double(whole + fraction)
            else { return nil }
            total = total * 60 + number
        }
        return total
    }
}

extension Array where Element == ChapterTable {
    /// The chapters players show by default: the first default table's,
    /// else the first table's.
    var defaultChapters: [Chapter] {
        (first { $0.isDefault } ?? first)?.chapters ?? []
    }
}

extension Array where Element == ChapterTable {
    /// Replaces the default chapters (see ``defaultChapters``): the first
    /// default table's, else the first table's; with no table, adds a default
    /// one holding `chapters`. An empty list given to a file whose only table
    /// it is removes that table.
    mutating func replaceDefaultChapters(with chapters: [Chapter]) {
        guard let index = firstIndex(where: \.isDefault) ?? indices.first else {
            if !chapters.isEmpty { self = [ChapterTable(isDefault: true, chapters: chapters)] }
            return
        }
        if chapters.isEmpty && count == 1 {
            removeAll()
        } else {
            self[index].chapters = chapters
        }
    }
}

/// Compares chapter tables written by a save with those read back: starts
/// and ends within a millisecond (formats store milliseconds, 100 ns units
/// or a track's timescale), titles by their text, the nesting by shape.
enum ChapterComparison {
    static let tolerance = 0.0015

    /// A description of the first difference, or nil when they agree.
    static func difference(expected: [ChapterTable], actual: [ChapterTable]) -> String? {
        let wanted = expected.filter { !$0.chapters.isEmpty }
        let found = actual.filter { !$0.chapters.isEmpty }
        guard wanted.count == found.count else {
            return "\(wanted.count) tables written, \(found.count) read"
        }
        for (table, read) in zip(wanted, found) {
            if let difference = difference(expected: table.chapters, actual: read.chapters) { return difference }
        }
        return nil
    }

    static func difference(expected: [Chapter], actual: [Chapter]) -> String? {
        guard expected.count == actual.count else {
            return "\(expected.count) chapters written, \(actual.count) read"
        }
        for (index, (chapter, read)) in zip(expected, actual).enumerated() {
            let name = "chapter \(index + 1)"
            if abs(chapter.start - read.start) > tolerance {
                return "\(name) starts at \(read.start) s, not \(chapter.start) s"
            }
            if let end = chapter.end, let readEnd = read.end, abs(end - readEnd) > tolerance {
                return "\(name) ends at \(readEnd) s, not \(end) s"
            }
            if (chapter.title ?? "") != (read.title ?? "") {
                return "\(name) is titled \(read.title.map { "'\($0)'" } ?? "nothing"), not '\(chapter.title ?? "")'"
            }
            if let difference = difference(expected: chapter.chapters, actual: read.chapters) { return difference }
        }
        return nil
    }
}
