#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Chapters of a Matroska file (RFC 9559 §5.1.7, §20): each
/// EditionEntry a ``ChapterTable``, each ChapterAtom a ``Chapter`` (nested
/// atoms nested), times from ChapterTimeStart/End in nanoseconds, titles
/// from every ChapterDisplay (ChapString with ChapLanguageBCP47, else
/// ChapLanguage, default `eng`). A chapter with ChapterFlagHidden set or
/// ChapterFlagEnabled cleared is hidden. An edition's name is the
/// EditionString of its first EditionDisplay (Matroska v5).
enum MatroskaChapters {
    /// A Chapters element larger than this is not read.
    static let maximumSize: Int64 = 16 << 20

    static func parse(_ source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws -> [ChapterTable] {
        guard let data = try MatroskaLayout.data(of: element, in: source, maximum: maximumSize, warnings: &warnings) else { return [] }
        var tables: [ChapterTable] = []
        for (child, edition) in EBMLChildren.list(data, warnings: &warnings) {
            guard child.id == MatroskaID.editionEntry else { continue }
            var table = ChapterTable()
            for (field, value) in EBMLChildren.list(edition, warnings: &warnings) {
                switch field.id {
                case MatroskaID.editionUID: table.id = EBMLChildren.unsigned(value).map(String.init)
                case MatroskaID.editionFlagDefault: table.isDefault = EBMLChildren.unsigned(value) ?? 0 != 0
                case MatroskaID.editionFlagOrdered: table.isOrdered = EBMLChildren.unsigned(value) ?? 0 != 0
                case MatroskaID.editionFlagHidden: table.isHidden = EBMLChildren.unsigned(value) ?? 0 != 0
                case MatroskaID.editionDisplay where table.title == nil:
                    table.title = EBMLChildren.list(value, warnings: &warnings).first { $0.0.id == MatroskaID.editionString }
                        .map { EBMLChildren.string($0.1) }
                case MatroskaID.chapterAtom:
                    if let chapter = atom(value, depth: 1, warnings: &warnings, offset: field.offset) { table.chapters.append(chapter) }
                default: break
                }
            }
            tables.append(table)
        }
        return tables
    }

    private static func atom(_ reader: ByteReader, depth: Int, warnings: inout [MediaWarning], offset: Int64) -> Chapter? {
        guard depth <= EBMLChildren.maximumDepth else {
            warnings.append(
                MediaWarning(.tooDeep, "ChapterAtoms nested more than \(EBMLChildren.maximumDepth) deep; the rest skipped", offset: offset))
            return nil
        }
        var chapter = Chapter(start: 0)
        var start: UInt64?
        var enabled = true
        for (field, value) in EBMLChildren.list(reader, warnings: &warnings) {
            switch field.id {
            case MatroskaID.chapterUID: chapter.id = EBMLChildren.unsigned(value).map(String.init)
            case MatroskaID.chapterTimeStart: start = EBMLChildren.unsigned(value)
            case MatroskaID.chapterTimeEnd: chapter.end = EBMLChildren.unsigned(value).map { Double($0) / 1e9 }
            case MatroskaID.chapterFlagHidden: chapter.isHidden = chapter.isHidden || EBMLChildren.unsigned(value) ?? 0 != 0
            case MatroskaID.chapterFlagEnabled: enabled = EBMLChildren.unsigned(value) ?? 1 != 0
            case MatroskaID.chapterDisplay:
                var text: String?
                var language = "eng"
                var bcp47: String?
                for (display, string) in EBMLChildren.list(value, warnings: &warnings) {
                    switch display.id {
                    case MatroskaID.chapString: text = EBMLChildren.string(string)
                    case MatroskaID.chapLanguage: language = EBMLChildren.string(string)
                    case MatroskaID.chapLanguageBCP47: bcp47 = EBMLChildren.string(string)
                    default: break
                    }
                }
                if let text { chapter.titles.append(Chapter.Title(text, language: bcp47 ?? language)) }
            case MatroskaID.chapterAtom:
                if let nested = atom(value, depth: depth + 1, warnings: &warnings, offset: field.offset) { chapter.chapters.append(nested) }
            default: break
            }
        }
        guard let start else {
            warnings.append(MediaWarning(.malformed, "ChapterAtom without ChapterTimeStart skipped", offset: offset))
            return nil
        }
        chapter.start = Double(start) / 1e9
        if !enabled { chapter.isHidden = true }
        return chapter
    }
}
