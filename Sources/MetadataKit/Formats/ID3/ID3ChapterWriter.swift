#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns ``ChapterTable``s into ID3v2 `CHAP`/`CTOC` items (ID3v2 Chapter
/// Frame Addendum 1.0), for ``MediaFormat/ChapterWriting/asItems(_:)``.
///
/// Every `CHAP` and `CTOC` item of the file is replaced:
/// - the default table (else the first) becomes a top-level, ordered `CTOC`
///   (element ID the table's ``ChapterTable/id``, else "toc"); every other
///   table a `CTOC` that is not top-level (read back as a table of its own);
/// - each chapter a `CHAP` frame whose element ID is the chapter's
///   ``Chapter/id`` when it is usable (ISO-8859-1, no zero byte, not taken),
///   else "chp0", "chp1"…; a chapter holding chapters a `CTOC` listing them;
/// - end time: the chapter's end, else the next chapter's start, else the
///   enclosing chapter's end, else the file's `TLEN` (its length in ms), else
///   the start; byte offsets `0xFFFFFFFF` (not used);
/// - embedded frames: `TIT2` (first title), `TIT3` (second title), `WXXX`
///   (url), `APIC` (artwork), text in ISO-8859-1 when it fits, else UTF-16
///   with a byte order mark (valid in v2.3 and v2.4). Sizes are written for
///   v2.4; ``ID3v2FrameEncoder`` rewrites them for a v2.3 tag.
///
/// The chapters' items are `.data` payloads under the keys `CHAP` and `CTOC`,
/// as the reader keeps them.
enum ID3ChapterWriter {
    static func store(_ tables: [ChapterTable], _ items: [MetadataItem]) throws -> [MetadataItem] {
        var result = items.filter { !($0.keySpace == .id3 && ($0.key == "CHAP" || $0.key == "CTOC")) }
        let tables = tables.filter { !$0.chapters.isEmpty }
        guard !tables.isEmpty else { return result }
        let length = items.first { $0.keySpace == .id3 && $0.key == "TLEN" }?.value.stringValue.flatMap { Double($0) }.map { $0 / 1000 }
        var builder = Builder(length: length)
        builder.reserve(tables)
        let main = tables.firstIndex(where: \.isDefault) ?? 0
        var tableFrames: [(id: String, payload: [UInt8])] = []
        for (index, table) in tables.enumerated() {
            let children = try builder.add(table.chapters, enclosingEnd: nil)
            let id = builder.tableID(table.id)
            let titles = table.title.map { [Chapter.Title($0)] } ?? []
            let toc = ID3TableOfContentsFrame(
                elementID: id, isTopLevel: index == main, isOrdered: index == main || table.isOrdered, children: children,
                subFrames: textFrames(titles))
            tableFrames.append(("CTOC", try toc.payload(version: 4)))
        }
        // Tables first, in table order (the reader keeps it), then nested tables and chapters.
        let ordered = tableFrames + builder.frames.filter { $0.id == "CTOC" } + builder.frames.filter { $0.id == "CHAP" }
        result += ordered.map { MetadataItem(keySpace: .id3, key: $0.id, value: .data(Data($0.payload)), dataType: .binary) }
        return result
    }

    /// `TIT2`/`TIT3` for `titles`.
    private static func textFrames(_ titles: [Chapter.Title]) -> [ID3EmbeddedFrame] {
        zip(["TIT2", "TIT3"], titles).map { id, title in
            ID3EmbeddedFrame(id: id, flags: 0, payload: text(title.text))
        }
    }

    private static func encoding(_ string: String) -> ID3TextEncoding {
        string.unicodeScalars.allSatisfy { $0.value <= 0xFF } ? .latin1 : .utf16
    }

    private static func text(_ string: String) -> [UInt8] {
        let encoding = encoding(string)
        return [encoding.rawValue] + ID3v2FrameEncoder.encode(string, encoding)
    }

    private struct Builder {
        let length: Double?
        var used: Set<String> = []
        var next = 0
        var nextTable = 0
        /// Frames in the order they are made (nested tables before their parents).
        var frames: [(id: String, payload: [UInt8])] = []

        init(length: Double?) { self.length = length }

        /// Keeps the usable IDs of `tables` and their chapters, so generated ones don't take them.
        mutating func reserve(_ tables: [ChapterTable]) {
            func walk(_ chapters: [Chapter]) {
                for chapter in chapters {
                    if let id = chapter.id, Self.isUsable(id) { used.insert(id) }
                    walk(chapter.chapters)
                }
            }
            for table in tables { walk(table.chapters) }
        }

        static func isUsable(_ id: String) -> Bool {
            !id.isEmpty && id.utf8.count <= 255 && id.unicodeScalars.allSatisfy { $0.value > 0 && $0.value <= 0xFF }
        }

        /// Element IDs given out so far.
        var claimed: Set<String> = []

        /// `id` when usable and not given out, else the first free "chpN".
        mutating func chapterID(_ id: String?) -> String {
            if let id, Self.isUsable(id), !claimed.contains(id) {
                claimed.insert(id)
                return id
            }
            while used.contains("chp\(next)") || claimed.contains("chp\(next)") { next += 1 }
            claimed.insert("chp\(next)")
            return "chp\(next)"
        }

        /// `id` when usable and free, else the first free of "toc", "toc1"…
        mutating func tableID(_ id: String?) -> String {
            if let id, Self.isUsable(id), !claimed.contains(id), !used.contains(id) {
                claimed.insert(id)
                return id
            }
            func name(_ number: Int) -> String { number == 0 ? "toc" : "toc\(number)" }
            while claimed.contains(name(nextTable)) || used.contains(name(nextTable)) { nextTable += 1 }
            claimed.insert(name(nextTable))
            return name(nextTable)
        }

        /// Adds the frames of `chapters`; returns their element IDs.
        mutating func add(_ chapters: [Chapter], enclosingEnd: Double?) throws -> [String] {
            var ids: [String] = []
            for (index, chapter) in chapters.enumerated() {
                let id = chapterID(chapter.id)
                ids.append(id)
                let end = chapter.end ?? (index + 1 < chapters.count ? chapters[index + 1].start : nil) ?? enclosingEnd ?? length
                if !chapter.chapters.isEmpty {
                    let children = try add(chapter.chapters, enclosingEnd: end)
                    frames.append(
                        (
                            "CTOC",
                            try ID3TableOfContentsFrame(
                                elementID: id, isTopLevel: false, isOrdered: true, children: children,
                                subFrames: ID3ChapterWriter.textFrames(chapter.titles)
                            ).payload(version: 4)
                        ))
                    continue
                }
                var subFrames = ID3ChapterWriter.textFrames(chapter.titles)
                if let url = chapter.url {
                    subFrames.append(ID3EmbeddedFrame(id: "WXXX", flags: 0, payload: [0, 0] + ID3v2FrameEncoder.latin1(url)))
                }
                if let artwork = chapter.artwork {
                    let item = MetadataItem(keySpace: .id3, key: "APIC", value: .picture(artwork), dataType: .binary)
                    subFrames.append(
                        ID3EmbeddedFrame(id: "APIC", flags: 0, payload: try ID3v2FrameEncoder.payload(id: "APIC", item: item, version: 3)))
                }
                let frame = ID3ChapterFrame(
                    elementID: id, start: try Self.milliseconds(chapter.start),
                    end: try Self.milliseconds(max(end ?? chapter.start, chapter.start)),
                    subFrames: subFrames)
                frames.append(("CHAP", try frame.payload(version: 4)))
            }
            return ids
        }

        static func milliseconds(_ seconds: Double) throws -> UInt32 {
            let value = (seconds * 1000).rounded()
            guard value.isFinite, value >= 0, value < 4_294_967_295 else {
                throw MediaError(.invalidValue, "an ID3 chapter time must be from 0 to 4294967 s, not \(seconds)")
            }
            return UInt32(value)
        }
    }
}
