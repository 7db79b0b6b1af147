#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// Matroska and WebM: SimpleTags as `TARGET/NAME` (the form is documented on `MatroskaTarget`),
    /// the Segment title as `Info/Title`, attached files as `Attachment/<FileName>`.
    public static let matroska = MetadataKeySpace(rawValue: "matroska")
}

/// The Tags of a Matroska file (RFC 9559 §5.1.8): each Tag with its target
/// and its SimpleTags as raw items, in file order.
///
/// A SimpleTag with TagString is a `.string` item (UTF-8), with TagBinary a
/// `.data` item; TagLanguageBCP47 (else TagLanguage, default `und`) is the
/// item's language. A SimpleTag with neither value gives no item, but its
/// nested SimpleTags do. TagDefault is not part of the item: a Tag whose
/// items are unchanged is written back byte for byte (see
/// ``MatroskaEditPlanner``); in a rebuilt one each SimpleTag keeps its own
/// elements as the file had them (see ``MatroskaSimpleTagWriter``).
struct MatroskaTags: Sendable {
    /// One Tag element: its target, where it is, and its items.
    struct Group: Sendable {
        var target: MatroskaTarget
        var offset: Int64
        var size: Int
        var items: [MetadataItem]
        /// Each item's SimpleTag elements other than nested SimpleTags, as
        /// stored (parallel to ``items``).
        var fields: [[MatroskaSimpleTagWriter.Field]] = []
    }

    var groups: [Group] = []
    /// Whether the Tags element starts with a CRC-32 element.
    var hasCRC = false
    /// Every item, in file order.
    var items: [MetadataItem] { groups.flatMap(\.items) }

    /// A Tags element larger than this is not read (TagBinary can be large).
    static let maximumSize: Int64 = 64 << 20
}

extension MatroskaTags {
    /// Reads the Tag elements of one Tags element.
    init(parsing source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws {
        self.init()
        guard let data = try MatroskaLayout.data(of: element, in: source, maximum: Self.maximumSize, warnings: &warnings) else { return }
        var groups: [Group] = []
        for (child, tag) in EBMLChildren.list(data, warnings: &warnings) {
            if child.id == MatroskaID.crc32 { hasCRC = true }
            guard child.id == MatroskaID.tag else { continue }
            let size = Int(child.dataOffset - child.offset) + tag.remaining
            var target = MatroskaTarget()
            var items: [MetadataItem] = []
            var fields: [[MatroskaSimpleTagWriter.Field]] = []
            for (field, value) in EBMLChildren.list(tag, warnings: &warnings) {
                switch field.id {
                case MatroskaID.targets: target = Self.target(value, warnings: &warnings)
                case MatroskaID.simpleTag:
                    Self.simpleTag(
                        value, path: [], target: target, depth: 1, into: &items, fields: &fields, warnings: &warnings,
                        offset: field.offset)
                default: break
                }
            }
            groups.append(Group(target: target, offset: child.offset, size: Int(size), items: items, fields: fields))
        }
        self.groups = groups
    }

    private static func target(_ reader: ByteReader, warnings: inout [MediaWarning]) -> MatroskaTarget {
        var target = MatroskaTarget()
        for (field, value) in EBMLChildren.list(reader, warnings: &warnings) {
            switch field.id {
            case MatroskaID.targetTypeValue: target.typeValue = EBMLChildren.unsigned(value)
            case MatroskaID.targetType: target.type = EBMLChildren.string(value)
            case MatroskaID.tagTrackUID: if let uid = EBMLChildren.unsigned(value), uid != 0 { target.trackUIDs.append(uid) }
            case MatroskaID.tagEditionUID: if let uid = EBMLChildren.unsigned(value), uid != 0 { target.editionUIDs.append(uid) }
            case MatroskaID.tagChapterUID: if let uid = EBMLChildren.unsigned(value), uid != 0 { target.chapterUIDs.append(uid) }
            case MatroskaID.tagAttachmentUID: if let uid = EBMLChildren.unsigned(value), uid != 0 { target.attachmentUIDs.append(uid) }
            default: break
            }
        }
        return target
    }

    private static func simpleTag(
        _ reader: ByteReader, path: [String], target: MatroskaTarget, depth: Int, into items: inout [MetadataItem],
        fields stored: inout [[MatroskaSimpleTagWriter.Field]], warnings: inout [MediaWarning], offset: Int64
    ) {
        guard depth <= EBMLChildren.maximumDepth else {
            warnings.append(
                MediaWarning(.tooDeep, "SimpleTags nested more than \(EBMLChildren.maximumDepth) deep; the rest skipped", offset: offset))
            return
        }
        var name: String?
        var value: MetadataValue?
        var language = "und"
        var bcp47: String?
        var nested: [(ByteReader, Int64)] = []
        var own: [MatroskaSimpleTagWriter.Field] = []
        for (field, data) in EBMLChildren.list(reader, warnings: &warnings) {
            if field.id != MatroskaID.simpleTag {
                own.append(.init(id: field.id, payload: Array(EBMLChildren.bytes(data)), sizeLength: field.sizeLength))
            }
            switch field.id {
            case MatroskaID.tagName: name = EBMLChildren.string(data)
            case MatroskaID.tagString: value = .string(EBMLChildren.string(data))
            case MatroskaID.tagBinary: value = .data(Data(EBMLChildren.bytes(data)))
            case MatroskaID.tagLanguage: language = EBMLChildren.string(data)
            case MatroskaID.tagLanguageBCP47: bcp47 = EBMLChildren.string(data)
            case MatroskaID.simpleTag: nested.append((data, field.offset))
            default: break
            }
        }
        guard let name, !name.isEmpty, !name.contains("/") else {
            warnings.append(MediaWarning(.malformed, "SimpleTag without a usable TagName skipped", offset: offset))
            return
        }
        let fullPath = path + [name]
        if let value {
            let type: MetadataDataType = if case .data = value { .binary } else { .utf8 }
            items.append(
                MetadataItem(keySpace: .matroska, key: target.key(fullPath), value: value, dataType: type, language: bcp47 ?? language))
            stored.append(own)
        }
        for (child, childOffset) in nested {
            simpleTag(
                child, path: fullPath, target: target, depth: depth + 1, into: &items, fields: &stored, warnings: &warnings,
                offset: childOffset)
        }
    }
}
