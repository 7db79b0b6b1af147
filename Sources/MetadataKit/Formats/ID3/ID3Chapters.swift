#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ID3v2 chapters (ID3v2 Chapter Frame Addendum 1.0): `CHAP` frames read
/// into ``Chapter``s and `CTOC` frames into ``ChapterTable``s, and back.
///
/// Reading:
/// - each top-level `CTOC` (flag bit 1) is a default table (the first one;
///   the addendum allows one), its `TIT2` the table's title, its ordered flag
///   ``ChapterTable/isOrdered``; a `CTOC` no other `CTOC` lists is a table
///   too (not default);
/// - a `CTOC` listed by another is a ``Chapter`` nested there: its element
///   ID, its `TIT2`, the span of its children, its children as
///   ``Chapter/chapters``;
/// - `CHAP` frames no `CTOC` lists form one more table in file order, sorted
///   by start (the default table when the file has no top-level `CTOC`);
/// - a chapter's ``Chapter/id`` is its element ID; `TIT2` is its first title
///   and `TIT3` (the addendum's "description") its second; `WXXX` its
///   ``Chapter/url``; `APIC` its ``Chapter/artwork`` (held in memory: the
///   `CHAP` frame's payload is read whole anyway).
///
/// The read is forgiving and bounded: a frame that doesn't parse, an embedded
/// frame that can't be walked, an unknown or repeated element ID are skipped
/// with a warning; a `CTOC` that lists itself or an ancestor is not followed
/// again; nesting stops at ``maximumDepth`` and the chapters made at
/// ``maximumChapters``. Files without `CHAP`/`CTOC` frames pay one look at
/// each frame ID.
enum ID3Chapters {
    static let maximumDepth = 8
    static let maximumChapters = 65_536

    /// The chapter tables of `frames` (a tag's frames in file order) and the
    /// damage read around.
    static func read(_ frames: [ID3v2FrameRecord]) -> (tables: [ChapterTable], warnings: [MediaWarning]) {
        guard frames.contains(where: { $0.id == "CHAP" || $0.id == "CTOC" }) else { return ([], []) }
        var warnings: [MediaWarning] = []
        var chapters: [String: Chapter] = [:]
        var chapterOrder: [String] = []
        var tocs: [String: ID3TableOfContentsFrame] = [:]
        var tocOrder: [String] = []
        for record in frames where (record.id == "CHAP" || record.id == "CTOC") && !record.isRaw && !record.isEncrypted {
            guard case .data(let data)? = record.item?.value else { continue }
            let payload = [UInt8](data)
            let offset = record.plainPayload?.lowerBound ?? record.range.lowerBound + 10
            if record.id == "CHAP" {
                guard let frame = ID3ChapterFrame(parsing: payload, version: record.version, offset: offset, warnings: &warnings) else {
                    warnings.append(
                        MediaWarning(.malformed, "CHAP frame too short for its fields: skipped", offset: record.range.lowerBound))
                    continue
                }
                guard chapters[frame.elementID] == nil, tocs[frame.elementID] == nil else {
                    warnings.append(repeated(frame.elementID, at: record.range.lowerBound))
                    continue
                }
                chapters[frame.elementID] = chapter(frame, offset: offset, warnings: &warnings)
                chapterOrder.append(frame.elementID)
            } else {
                guard let toc = ID3TableOfContentsFrame(parsing: payload, version: record.version, offset: offset, warnings: &warnings)
                else {
                    warnings.append(
                        MediaWarning(.malformed, "CTOC frame too short for its fields: skipped", offset: record.range.lowerBound))
                    continue
                }
                guard chapters[toc.elementID] == nil, tocs[toc.elementID] == nil else {
                    warnings.append(repeated(toc.elementID, at: record.range.lowerBound))
                    continue
                }
                tocs[toc.elementID] = toc
                tocOrder.append(toc.elementID)
            }
        }
        var resolver = Resolver(chapters: chapters, tocs: tocs)
        let listed = Set(tocs.values.flatMap(\.children))
        var tables: [ChapterTable] = []
        var hasDefault = false
        for id in tocOrder {
            guard let toc = tocs[id], toc.isTopLevel || !listed.contains(id) else { continue }
            let isDefault = toc.isTopLevel && !hasDefault
            hasDefault = hasDefault || isDefault
            tables.append(
                ChapterTable(
                    id: id, title: title(in: toc.subFrames, offset: 0, warnings: &warnings).first?.text, isDefault: isDefault,
                    isOrdered: toc.isOrdered, chapters: resolver.children(of: toc, path: [id])))
        }
        let loose = chapterOrder.filter { !listed.contains($0) }.compactMap { chapters[$0] }
        if !loose.isEmpty {
            let sorted = loose.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
            tables.append(ChapterTable(isDefault: !hasDefault, chapters: sorted))
        }
        for id in resolver.missing.prefix(8) {
            warnings.append(
                MediaWarning(.malformed, "a CTOC lists element '\(id)', which no CHAP or CTOC frame has: left out", offset: nil))
        }
        if resolver.isCut {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "the chapter tables nest deeper than \(maximumDepth) or list more than \(maximumChapters) chapters: the rest are left out",
                    offset: nil))
        }
        return (tables, warnings)
    }

    private static func repeated(_ id: String, at offset: Int64) -> MediaWarning {
        MediaWarning(.malformed, "a second chapter frame with element ID '\(id)': skipped", offset: offset)
    }

    /// Follows `CTOC` child lists, bounded.
    private struct Resolver {
        let chapters: [String: Chapter]
        let tocs: [String: ID3TableOfContentsFrame]
        var made = 0
        var isCut = false
        var missing: [String] = []

        init(chapters: [String: Chapter], tocs: [String: ID3TableOfContentsFrame]) {
            self.chapters = chapters
            self.tocs = tocs
        }

        /// The chapters `toc` lists; `path` holds the element IDs of it and its ancestors.
        mutating func children(of toc: ID3TableOfContentsFrame, path: [String]) -> [Chapter] {
            var result: [Chapter] = []
            for child in toc.children {
                guard made < ID3Chapters.maximumChapters else {
                    isCut = true
                    break
                }
                if let chapter = chapters[child] {
                    made += 1
                    result.append(chapter)
                } else if let nested = tocs[child] {
                    guard !path.contains(child) else { continue } // a loop: listed by itself or a descendant
                    guard path.count < ID3Chapters.maximumDepth else {
                        isCut = true
                        continue
                    }
                    made += 1
                    let inner = children(of: nested, path: path + [child])
                    var ignored: [MediaWarning] = []
                    let titles = ID3Chapters.title(in: nested.subFrames, offset: 0, warnings: &ignored)
                    let start = inner.map(\.start).min() ?? 0
                    let end = inner.compactMap(\.end).max()
                    result.append(Chapter(id: child, start: start, end: end, titles: titles, chapters: inner))
                } else if missing.count < 8 {
                    missing.append(child)
                }
            }
            return result
        }
    }

    /// The chapter a `CHAP` frame holds.
    private static func chapter(_ frame: ID3ChapterFrame, offset: Int64, warnings: inout [MediaWarning]) -> Chapter {
        var chapter = Chapter(
            id: frame.elementID, start: Double(frame.startMilliseconds) / 1000, end: Double(frame.endMilliseconds) / 1000,
            titles: title(in: frame.subFrames, offset: offset, warnings: &warnings))
        for sub in frame.subFrames {
            switch sub.id {
            case "WXXX" where chapter.url == nil && sub.flags & 0x00FF == 0:
                chapter.url = ID3v2FrameDecoder.item(id: "WXXX", payload: sub.payload).value.stringValue
            case "APIC" where chapter.artwork == nil && sub.flags & 0x00FF == 0:
                if let header = ID3v2PictureHeader(sub.payload, legacy: false) {
                    chapter.artwork = Artwork(
                        data: Data(sub.payload[header.length...]), mimeType: Artwork.normalizedMIMEType(header.format),
                        pictureType: .init(rawValue: header.pictureType), description: header.description)
                } else {
                    warnings.append(MediaWarning(.malformed, "APIC in CHAP '\(frame.elementID)' can't be read: skipped", offset: offset))
                }
            default:
                break
            }
        }
        return chapter
    }

    /// The titles of embedded frames: `TIT2`, then `TIT3`. Frames with
    /// format flags (compression, encryption…) are skipped.
    static func title(in frames: [ID3EmbeddedFrame], offset: Int64, warnings: inout [MediaWarning]) -> [Chapter.Title] {
        var titles: [Chapter.Title] = []
        for id in ["TIT2", "TIT3"] {
            guard let sub = frames.first(where: { $0.id == id }) else {
                if id == "TIT2" && frames.contains(where: { $0.id == "TIT3" }) { titles.append(Chapter.Title("")) }
                continue
            }
            guard sub.flags & 0x00FF == 0, !sub.payload.isEmpty else {
                if id == "TIT2" { titles.append(Chapter.Title("")) }
                continue
            }
            let item = ID3v2FrameDecoder.item(id: id, payload: sub.payload)
            let text: String
            switch item.value {
            case .string(let value): text = value
            case .strings(let values): text = values.joined(separator: "/")
            default:
                warnings.append(MediaWarning(.malformed, "\(id) embedded in a chapter frame can't be read: skipped", offset: offset))
                text = ""
            }
            titles.append(Chapter.Title(text))
        }
        while titles.last?.text.isEmpty == true { titles.removeLast() }
        return titles
    }
}
