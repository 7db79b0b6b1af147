#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the Chapters element of a save (RFC 9559 §5.1.7) from chapter
/// tables, for ``MatroskaEditPlanner``.
///
/// - A table equal to the one read at the same place is copied byte for
///   byte (its EditionEntry keeps every element the model doesn't hold:
///   ChapterSegmentUID, ChapProcess, ChapCountry, a CRC-32, …).
/// - Other tables are built: an EditionEntry with EditionUID and the
///   EditionFlagHidden/Default/Ordered flags that are set; a ChapterAtom per
///   chapter (nested chapters nested) with ChapterUID, ChapterTimeStart and
///   ChapterTimeEnd in nanoseconds (§20.1, with the default
///   TimestampScale-independent unit), ChapterFlagHidden when hidden, and a
///   ChapterDisplay per title: ChapString, ChapLanguage (an ISO 639-2 code,
///   else `und`) and ChapLanguageBCP47 for any other language tag.
/// - A UID is the table's or chapter's ``ChapterTable/id``/``Chapter/id``
///   when that is a number other than 0 not used yet (a Tag's
///   TagChapterUID keeps pointing at it), else a number derived from the
///   chapters themselves (the same chapters get the same UIDs).
/// - A table's name (``ChapterTable/title``) is an EditionDisplay with its
///   EditionString (Matroska v5; no EditionLanguageIETF, since the model
///   holds no language for it) where ``MatroskaWriteRules`` allow it; in a
///   file whose DocTypeVersion can't be raised it is left out.
/// - WebM (see ``MatroskaWriteRules``): no EditionUID, flags or name, and
///   no ChapLanguageBCP47; a hidden or ordered table, a hidden chapter, a
///   default table other than the first, or a language that isn't ISO 639-2
///   is refused. Copied tables stay as they were.
/// - A table without chapters is left out (an EditionEntry needs at least
///   one ChapterAtom); no table left: the Chapters element goes.
enum MatroskaChapterWriter {
    /// The Chapters element's new data for `tables`; empty when there is
    /// no chapter to write. `old` are the tables read from `element`.
    static func data(
        _ tables: [ChapterTable], old: [ChapterTable], element: EBMLElement?, source: FileSource, rules: inout MatroskaWriteRules
    ) throws -> [UInt8] {
        var oldEntries: [[UInt8]] = []
        var hasCRC = false
        if let element {
            var warnings: [MediaWarning] = []
            guard let reader = try MatroskaLayout.data(of: element, in: source, maximum: MatroskaChapters.maximumSize, warnings: &warnings)
            else {
                throw MediaError(
                    .unsupportedFeature, "the Chapters element can't be read whole; it can't be rewritten", offset: element.offset)
            }
            let bytes = EBMLChildren.bytes(reader)
            let base = bytes.startIndex
            for (child, _) in EBMLChildren.list(reader, warnings: &warnings) {
                guard let end = child.end else { continue }
                let range = base + Int(child.offset - element.dataOffset)..<base + Int(end - element.dataOffset)
                if child.id == MatroskaID.crc32 { hasCRC = true }
                if child.id == MatroskaID.editionEntry { oldEntries.append(Array(bytes[range])) }
            }
            // The tables read are the EditionEntries in order, unless damage left some out.
            if oldEntries.count != old.count { oldEntries = [] }
        }
        var uids = UIDs(seed: tables)
        var kept: Set<Int> = []
        for (index, table) in tables.enumerated() where index < oldEntries.count && table == old[index] {
            kept.insert(index)
            uids.reserve(table)
        }
        var data: [UInt8] = []
        var written = 0
        for (index, table) in tables.enumerated() where !table.chapters.isEmpty {
            data += kept.contains(index) ? oldEntries[index] : try edition(table, first: written == 0, uids: &uids, rules: &rules)
            written += 1
        }
        guard !data.isEmpty else { return [] }
        return hasCRC ? EBMLCRC32.prefixed(data) : data
    }

    private static func edition(_ table: ChapterTable, first: Bool, uids: inout UIDs, rules: inout MatroskaWriteRules) throws -> [UInt8] {
        var data: [UInt8] = []
        if rules.isWebM {
            guard !table.isHidden, !table.isOrdered, !table.isDefault || first else {
                throw MediaError(
                    .unsupportedFeature, "WebM chapters can't be hidden or ordered, and only the first table can be the default one")
            }
        } else {
            data += EBML.element(MatroskaID.editionUID, unsigned: uids.take(table.id))
            if table.isHidden { data += EBML.element(MatroskaID.editionFlagHidden, unsigned: 1) }
            if table.isDefault { data += EBML.element(MatroskaID.editionFlagDefault, unsigned: 1) }
            if table.isOrdered { data += EBML.element(MatroskaID.editionFlagOrdered, unsigned: 1) }
            if let title = table.title, rules.allows(minver: 5) {
                data += EBML.element(MatroskaID.editionDisplay, EBML.element(MatroskaID.editionString, string: title))
                rules.use(minver: 5)
            }
        }
        for chapter in table.chapters { data += try atom(chapter, depth: 1, uids: &uids, rules: &rules) }
        return EBML.element(MatroskaID.editionEntry, data)
    }

    private static func atom(_ chapter: Chapter, depth: Int, uids: inout UIDs, rules: inout MatroskaWriteRules) throws -> [UInt8] {
        guard depth <= EBMLChildren.maximumDepth else {
            throw MediaError(.invalidValue, "chapters nested more than \(EBMLChildren.maximumDepth) deep can't be written")
        }
        var data = EBML.element(MatroskaID.chapterUID, unsigned: uids.take(chapter.id))
        data += EBML.element(MatroskaID.chapterTimeStart, unsigned: try nanoseconds(chapter.start))
        if let end = chapter.end { data += EBML.element(MatroskaID.chapterTimeEnd, unsigned: try nanoseconds(end)) }
        if chapter.isHidden {
            guard !rules.isWebM else { throw MediaError(.unsupportedFeature, "WebM chapters can't be hidden") }
            data += EBML.element(MatroskaID.chapterFlagHidden, unsigned: 1)
        }
        for title in chapter.titles {
            let language = try rules.language(
                title.language, plain: MatroskaID.chapLanguage, bcp47: MatroskaID.chapLanguageBCP47, what: "chapter titles")
            data += EBML.element(MatroskaID.chapterDisplay, EBML.element(MatroskaID.chapString, string: title.text) + language)
        }
        for nested in chapter.chapters { data += try atom(nested, depth: depth + 1, uids: &uids, rules: &rules) }
        return EBML.element(MatroskaID.chapterAtom, data)
    }

    /// Seconds as nanoseconds; a negative, non-finite or too large time is refused.
    static func nanoseconds(_ seconds: Double) throws -> UInt64 {
        let value = (seconds * 1e9).rounded()
        guard value.isFinite, value >= 0, value < 1.8e19 else {
            throw MediaError(.invalidValue, "a chapter time of \(seconds) s can't be written")
        }
        return UInt64(value)
    }

    /// Unique non-zero UIDs: wanted ones when free, else derived ones from a
    /// generator seeded by the chapters (SplitMix64).
    struct UIDs {
        private var used: Set<UInt64> = [0]
        private var state: UInt64

        init(seed tables: [ChapterTable]) {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 // FNV-1a over the chapters' description
            for byte in String(describing: tables).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            state = hash
        }

        /// Marks the UIDs of a table copied as it was.
        mutating func reserve(_ table: ChapterTable) {
            func walk(_ chapters: [Chapter]) {
                for chapter in chapters {
                    if let uid = chapter.id.flatMap({ UInt64($0) }) { used.insert(uid) }
                    walk(chapter.chapters)
                }
            }
            if let uid = table.id.flatMap({ UInt64($0) }) { used.insert(uid) }
            walk(table.chapters)
        }

        mutating func take(_ wanted: String?) -> UInt64 {
            if let uid = wanted.flatMap({ UInt64($0) }), used.insert(uid).inserted { return uid }
            while true {
                state &+= 0x9E37_79B9_7F4A_7C15
                var value = state
                value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
                value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
                value ^= value >> 31
                if used.insert(value).inserted { return value }
            }
        }
    }
}
