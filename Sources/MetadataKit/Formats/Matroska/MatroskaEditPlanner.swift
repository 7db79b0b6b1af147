#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags, the Segment title, the chapters and the cover-art
/// attachments of a Matroska or WebM file in place where they fit, the way
/// mkvpropedit does; Clusters and Cues are never changed, and move only
/// when an element must go before them (see
/// ``MatroskaSpaceLayout/insertBeforeClusters()``).
///
/// - The Tags element is rebuilt from the `matroska` tag items: a Tag whose
///   items are all unchanged is copied byte for byte (with its TagDefault
///   flags and any CRC-32); changed targets get one new Tag each, whose
///   SimpleTags keep the elements they had (``MatroskaSimpleTagWriter``).
///   Tags stay in file order; a new Tag of level 50 or more goes before the
///   first of a lower level (or without one), so ffprobe, which keeps the
///   last of two equal names, shows the track's values. The Info
///   element is rebuilt with the new Title, its other children copied byte
///   for byte. A CRC-32 element at the start of a rebuilt master is
///   recomputed (RFC 8794 §11.3.1). Changed chapter tables
///   (``SaveOptions/chapterTables``) rebuild the Chapters element (see
///   ``MatroskaChapterWriter``), changed `Attachment/…` items the
///   Attachments element (see ``MatroskaAttachmentWriter``).
/// - A rebuilt element goes back where it was when it fits; the difference
///   becomes an EBMLVoid (a Void takes at least 2 bytes; a 1-byte difference
///   is absorbed by a size field 1 byte wider). A Void right after the old
///   element is used too. Otherwise the element goes into a large enough
///   top-level Void, or at the end of the Segment (the file), and the old one
///   becomes a Void. Tags emptied of every item are voided. In a file
///   without SeekHead, or for an element that was before the Clusters, the
///   end of the Segment is replaced by a place right before the first
///   Cluster (the file is rewritten, the Clusters moved byte for byte),
///   where ffprobe, mediainfo and exiftool look.
/// - Moved, added or removed elements are entered in the SeekHead that
///   pointed at them (new ones in the first SeekHead), rebuilt in its place
///   and the Void after it; a Segment of known size gets its new size
///   (an unknown size stays unknown).
/// - What the file's DocType and DocTypeVersion allow is written (see
///   ``MatroskaWriteRules``): WebM gets no attachments and only WebM's
///   chapter and tag elements; a newer Matroska element raises the header's
///   DocTypeVersion in place.
/// - Several Tags elements (another tool's edits, Tags both before and
///   after the Clusters) are read as one; when the tags change they are
///   merged into one Tags element written where the first one was (or
///   wherever it fits, as above), the others become Voids and their
///   SeekHead entries go, as mkvpropedit does (it reads every Tags element
///   into one and voids the rest). Unchanged, they stay as they are.
/// - A SeekHead that can't take a new entry in place (no Void after it) is
///   written whole, with the new entry, at the end of the Segment, and its
///   old place gets a SeekHead of one entry pointing there (the rest a
///   Void), as mkvpropedit does (mkvtoolnix `kax_analyzer_c`, "move seek
///   head to end and create new one at start").
/// - Refused before anything is written (`unsupportedFeature`): several
///   Info elements (or Chapters, Attachments when they change), a Tags
///   element too large to read when several must be merged, a Segment
///   followed by other data or whose last element is cut short when
///   something must go at its end, a SeekHead without room even for the
///   one-entry SeekHead.
enum MatroskaEditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let file = try MatroskaFile(parsing: source)
        guard file.isEditable, let infoElement = file.layout.first(MatroskaID.info) else {
            throw MediaError(.unsupportedFeature, "this Matroska file has several Info elements, or none; it can't be written")
        }
        let url = URL(fileURLWithPath: source.path)
        var title: String?
        var tagItems: [(target: MatroskaTarget, path: [String], item: MetadataItem)] = []
        var attachmentItems: [MetadataItem] = []
        for item in items where item.keySpace == .matroska {
            if item.key == "Info/Title" {
                guard let text = item.value.stringValue else { throw MediaError(.invalidValue, "the Segment title must be text") }
                title = text
            } else if item.key.hasPrefix("Attachment/") {
                attachmentItems.append(item)
            } else if let (target, path) = MatroskaTarget.split(item.key) {
                tagItems.append((target, path, item))
            } else {
                throw MediaError(.invalidValue, "'\(item.key)' is not a Matroska tag key (TARGET/NAME, see MatroskaTarget)")
            }
        }
        if options.removesAllTags {
            title = nil
            tagItems = []
        }
        var layout = MatroskaSpaceLayout(file: file, source: source)
        var rules = MatroskaWriteRules(header: file.layout.header)
        let tagsElements = file.layout.all(MatroskaID.tags)
        if let data = try newTags(source, old: merged(file.tags), element: tagsElements.first, items: tagItems, rules: &rules) {
            if let element = tagsElements.first {
                // The other Tags elements go first, so their space can take the merged one.
                for other in tagsElements.dropFirst() {
                    guard let size = other.totalSize, size <= MatroskaTags.maximumSize else {
                        throw MediaError(
                            .unsupportedFeature, "a Tags element is too large to be read; the tags can't be merged and written",
                            offset: other.offset)
                    }
                    try layout.remove(other)
                }
                if data.isEmpty { try layout.remove(element) } else { try layout.replace(element, id: MatroskaID.tags, data: data) }
            } else if !data.isEmpty {
                try layout.add(id: MatroskaID.tags, data: data)
            }
        }
        if let tables = options.chapterTables {
            let elements = file.layout.all(MatroskaID.chapters)
            guard elements.count <= 1 else {
                throw MediaError(.unsupportedFeature, "this Matroska file has several Chapters elements; its chapters can't be written")
            }
            let data = try MatroskaChapterWriter.data(tables, old: file.chapters, element: elements.first, source: source, rules: &rules)
            try put(data, id: MatroskaID.chapters, old: elements.first, in: &layout)
        }
        // Attachments stay when every tag is removed (they are files, not tags).
        if !options.removesAllTags {
            let elements = file.layout.all(MatroskaID.attachments)
            if let data = try MatroskaAttachmentWriter.data(
                attachmentItems, old: file.attachments, element: elements.first, source: source, url: url)
            {
                guard !rules.isWebM || data.isEmpty else {
                    throw MediaError(.unsupportedFeature, "WebM files can't hold attachments (cover art): only Matroska files can")
                }
                guard elements.count <= 1 else {
                    throw MediaError(
                        .unsupportedFeature, "this Matroska file has several Attachments elements; its attachments can't be written")
                }
                try put(data, id: MatroskaID.attachments, old: elements.first, in: &layout)
            }
        }
        // After the others: an Info that must move can take an old element's place.
        if title != file.info?.title {
            let data = try newInfo(source, element: infoElement, title: title)
            try layout.replace(infoElement, id: MatroskaID.info, data: data)
        }
        if let patch = rules.versionPatch(file.layout.header) { layout.patchHeader(patch.offset, patch.bytes) }
        return try layout.plan()
    }

    /// Every Tags element's Tags as one, in file order (the CRC-32 flag of the
    /// first); nil when the file has none.
    static func merged(_ tags: [MatroskaTags]) -> MatroskaTags? {
        guard var first = tags.first else { return nil }
        first.groups = tags.flatMap(\.groups)
        return first
    }

    /// Replaces `old` by element `id` with `data`, adds it, or (empty data) removes `old`.
    private static func put(_ data: [UInt8], id: UInt32, old: EBMLElement?, in layout: inout MatroskaSpaceLayout) throws {
        if let old {
            if data.isEmpty { try layout.remove(old) } else { try layout.replace(old, id: id, data: data) }
        } else if !data.isEmpty {
            try layout.add(id: id, data: data)
        }
    }

    /// The Info element's new data: every child as it was but Title (and
    /// CRC-32, recomputed), the title where the old one was or at the end.
    static func newInfo(_ source: FileSource, element: EBMLElement, title: String?) throws -> [UInt8] {
        var warnings: [MediaWarning] = []
        guard let reader = try MatroskaLayout.data(of: element, in: source, maximum: MatroskaInfo.maximumSize, warnings: &warnings),
            warnings.isEmpty
        else {
            throw MediaError(
                .unsupportedFeature, "the Info element can't be read whole; its title can't be written", offset: element.offset)
        }
        let bytes = try source.getBytes(at: element.dataOffset, count: Int(element.dataSize ?? 0))
        var data: [UInt8] = []
        var hasCRC = false
        var placed = false
        let titleBytes = title.map { EBML.element(MatroskaID.title, string: $0) } ?? []
        for (child, _) in EBMLChildren.list(reader, warnings: &warnings) {
            let start = Int(child.offset - element.dataOffset)
            let end = Int(child.end! - element.dataOffset)
            switch child.id {
            case MatroskaID.crc32: hasCRC = true
            case MatroskaID.title:
                if !placed { data += titleBytes }
                placed = true
            default: data += bytes[start..<end]
            }
        }
        guard warnings.isEmpty else {
            throw MediaError(.unsupportedFeature, "the Info element is damaged; its title can't be written", offset: element.offset)
        }
        if !placed { data += titleBytes }
        return hasCRC ? EBMLCRC32.prefixed(data) : data
    }

    /// The Tags element's new data (empty: no Tags); nil when nothing changed.
    static func newTags(
        _ source: FileSource, old: MatroskaTags?, element: EBMLElement?,
        items: [(target: MatroskaTarget, path: [String], item: MetadataItem)], rules: inout MatroskaWriteRules
    ) throws -> [UInt8]? {
        let groups = old?.groups ?? []
        var order: [MatroskaTarget] = []
        for target in groups.map(\.target) where !order.contains(target) { order.append(target) }
        // A new Tag of a higher level than a track goes before the first Tag
        // of a lower level (or none): ffprobe lets the last of two equal
        // names win, and the track's ARTIST or TITLE must.
        for target in items.map(\.target) where !order.contains(target) {
            let level = target.typeValue ?? 0
            let isWhole =
                target.trackUIDs.isEmpty && target.editionUIDs.isEmpty && target.chapterUIDs.isEmpty
                && target.attachmentUIDs.isEmpty
            if isWhole, level >= 50, let index = order.firstIndex(where: { ($0.typeValue ?? 0) < level }) {
                order.insert(target, at: index)
            } else {
                order.append(target)
            }
        }
        var data: [UInt8] = []
        var changed = false
        for target in order {
            let oldGroups = groups.filter { $0.target == target }
            let newItems = items.filter { $0.target == target }
            if newItems.map(\.item) == oldGroups.flatMap(\.items) {
                for group in oldGroups { data += try source.getBytes(at: group.offset, count: group.size) }
            } else {
                changed = true
                if !newItems.isEmpty {
                    let stored = oldGroups.flatMap { group in zip(group.items.map(\.key), group.fields).map { ($0, $1) } }
                    data += try MatroskaSimpleTagWriter.tagElement(
                        target: target, items: newItems.map { ($0.path, $0.item) }, old: stored, rules: &rules)
                }
            }
        }
        guard changed || (element == nil && !data.isEmpty) else { return nil }
        if data.isEmpty { return [] }
        return old?.hasCRC == true ? EBMLCRC32.prefixed(data) : data
    }
}
