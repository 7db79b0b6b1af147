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
/// ``MatroskaEditPlanner``), a rebuilt one gets the default flag.
struct MatroskaTags: Sendable {
    /// One Tag element: its target, where it is, and its items.
    struct Group: Sendable {
        var target: MatroskaTarget
        var offset: Int64
        var size: Int
        var items: [MetadataItem]
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
            for (field, value) in EBMLChildren.list(tag, warnings: &warnings) {
                switch field.id {
                case MatroskaID.targets: target = Self.target(value, warnings: &warnings)
                case MatroskaID.simpleTag:
                    Self.simpleTag(value, path: [], target: target, depth: 1, into: &items, warnings: &warnings, offset: field.offset)
                default: break
                }
            }
            groups.append(Group(target: target, offset: child.offset, size: Int(size), items: items))
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
        warnings: inout [MediaWarning], offset: Int64
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
        for (field, data) in EBMLChildren.list(reader, warnings: &warnings) {
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
        }
        for (child, childOffset) in nested {
            simpleTag(child, path: fullPath, target: target, depth: depth + 1, into: &items, warnings: &warnings, offset: childOffset)
        }
    }
}

extension MatroskaTags {
    /// A Tag element holding `items` (all of one target), nested SimpleTags
    /// under the last SimpleTag of their parent's name.
    /// A language that isn't ISO 639-2 goes to TagLanguageBCP47 where
    /// `rules` allow it (not in WebM: refused there).
    static func tagElement(
        target: MatroskaTarget, items: [(path: [String], item: MetadataItem)], rules: inout MatroskaWriteRules
    ) throws -> [UInt8] {
        final class Node {
            let name: String
            var item: MetadataItem?
            var children: [Node] = []
            init(name: String, item: MetadataItem?) {
                self.name = name
                self.item = item
            }
        }
        var roots: [Node] = []
        for (path, item) in items {
            var siblings = roots
            var parent: Node?
            for name in path.dropLast() {
                if let found = siblings.last(where: { $0.name == name }) {
                    parent = found
                } else {
                    let node = Node(name: name, item: nil)
                    if let parent { parent.children.append(node) } else { roots.append(node) }
                    parent = node
                }
                siblings = parent!.children
            }
            let node = Node(name: path.last!, item: item)
            if let parent { parent.children.append(node) } else { roots.append(node) }
        }
        func serialize(_ node: Node) throws -> [UInt8] {
            var data = EBML.element(MatroskaID.tagName, string: node.name)
            if let item = node.item {
                // TagLanguage holds ISO 639-2 (3 letters); other tags go to TagLanguageBCP47.
                data += try rules.language(
                    item.language, plain: MatroskaID.tagLanguage, bcp47: MatroskaID.tagLanguageBCP47, what: "tags")
                data += EBML.element(MatroskaID.tagDefault, unsigned: 1)
                switch item.value {
                case .data(let bytes): data += EBML.element(MatroskaID.tagBinary, [UInt8](bytes))
                case .picture:
                    throw MediaError(.invalidValue, "Matroska tag '\(item.key)' can't hold a picture (pictures are attachments)")
                default:
                    guard
                        let text = item.value.stringValues.isEmpty
                            ? item.value.stringValue : item.value.stringValues.joined(separator: "; ")
                    else {
                        throw MediaError(.invalidValue, "Matroska tag '\(item.key)' needs a text or binary value")
                    }
                    data += EBML.element(MatroskaID.tagString, string: text)
                }
            }
            for child in node.children { data += try serialize(child) }
            return EBML.element(MatroskaID.simpleTag, data)
        }
        var data = target.serialized()
        for root in roots { data += try serialize(root) }
        return EBML.element(MatroskaID.tag, data)
    }
}
