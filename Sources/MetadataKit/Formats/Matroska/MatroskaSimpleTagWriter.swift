#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the Tag elements of a Matroska save (RFC 9559 §5.1.8) so that a
/// rebuilt Tag grows only by what changed.
///
/// - A SimpleTag the file already had (same key, matched in file order)
///   keeps its elements as stored, in their order and with their size
///   fields: TagName, TagLanguage, TagLanguageBCP47, TagDefault and
///   anything unknown. Only the value (TagString or TagBinary) is replaced,
///   and the language elements when the language changed.
/// - A new SimpleTag gets TagName, a language only when it has one other
///   than `und` (TagLanguage's default, §5.1.8.1.2.2), and its value; no
///   TagDefault (its default is 1, §5.1.8.1.2.4). mkvpropedit and ffmpeg
///   write the same minimum; adding `und` and the flag to every SimpleTag
///   made a shorter value grow the Tags (they then had to move).
enum MatroskaSimpleTagWriter {
    /// One element of a stored SimpleTag (not a nested SimpleTag).
    struct Field: Sendable, Equatable {
        var id: UInt32
        var payload: [UInt8]
        var sizeLength: Int

        /// The element as stored.
        var bytes: [UInt8] { EBML.element(id, payload, minimumSizeLength: sizeLength) }
    }

    /// A Tag element holding `items` (all of one target), nested SimpleTags
    /// under the last SimpleTag of their parent's name. `old` are the stored
    /// SimpleTags of this target (key and elements), matched to the items by
    /// key in order. A language that isn't ISO 639-2 goes to
    /// TagLanguageBCP47 where `rules` allow it (not in WebM: refused there).
    static func tagElement(
        target: MatroskaTarget, items: [(path: [String], item: MetadataItem)],
        old: [(key: String, fields: [Field])] = [], rules: inout MatroskaWriteRules
    ) throws -> [UInt8] {
        final class Node {
            let name: String
            var item: MetadataItem?
            var stored: [Field]?
            var children: [Node] = []
            init(name: String, item: MetadataItem?, stored: [Field]?) {
                self.name = name
                self.item = item
                self.stored = stored
            }
        }
        var unused = old
        var roots: [Node] = []
        for (path, item) in items {
            var siblings = roots
            var parent: Node?
            for name in path.dropLast() {
                if let found = siblings.last(where: { $0.name == name }) {
                    parent = found
                } else {
                    let node = Node(name: name, item: nil, stored: nil)
                    if let parent { parent.children.append(node) } else { roots.append(node) }
                    parent = node
                }
                siblings = parent!.children
            }
            let stored = unused.firstIndex { $0.key == item.key }.map { unused.remove(at: $0).fields }
            let node = Node(name: path.last!, item: item, stored: stored)
            if let parent { parent.children.append(node) } else { roots.append(node) }
        }
        func serialize(_ node: Node) throws -> [UInt8] {
            var data: [UInt8]
            if let item = node.item {
                let value = try valueElement(item)
                if let stored = node.stored {
                    data = try rebuilt(stored, item: item, value: value, rules: &rules)
                } else {
                    data = EBML.element(MatroskaID.tagName, string: node.name)
                    if let language = item.language, language != "und" {
                        data += try rules.language(
                            language, plain: MatroskaID.tagLanguage, bcp47: MatroskaID.tagLanguageBCP47, what: "tags")
                    }
                    data += value
                }
            } else {
                data = EBML.element(MatroskaID.tagName, string: node.name)
            }
            for child in node.children { data += try serialize(child) }
            return EBML.element(MatroskaID.simpleTag, data)
        }
        var data = target.serialized()
        for root in roots { data += try serialize(root) }
        return EBML.element(MatroskaID.tag, data)
    }

    /// The TagString or TagBinary element of `item`.
    static func valueElement(_ item: MetadataItem) throws -> [UInt8] {
        switch item.value {
        case .data(let bytes): return EBML.element(MatroskaID.tagBinary, [UInt8](bytes))
        case .picture:
            throw MediaError(.invalidValue, "Matroska tag '\(item.key)' can't hold a picture (pictures are attachments)")
        default:
            guard let text = item.value.stringValues.isEmpty ? item.value.stringValue : item.value.stringValues.joined(separator: "; ")
            else {
                throw MediaError(.invalidValue, "Matroska tag '\(item.key)' needs a text or binary value")
            }
            return EBML.element(MatroskaID.tagString, string: text)
        }
    }

    /// A stored SimpleTag's elements with the new value (and language, when
    /// it changed) in place of the old ones; the rest as stored.
    private static func rebuilt(_ stored: [Field], item: MetadataItem, value: [UInt8], rules: inout MatroskaWriteRules) throws
        -> [UInt8]
    {
        let plain = stored.first { $0.id == MatroskaID.tagLanguage }.map { EBML.string($0.payload[...]) }
        let bcp47 = stored.first { $0.id == MatroskaID.tagLanguageBCP47 }.map { EBML.string($0.payload[...]) }
        let oldLanguage = bcp47 ?? plain ?? "und"
        let newLanguage = item.language ?? oldLanguage
        let languageChanged = newLanguage != oldLanguage
        let languageBytes =
            languageChanged
            ? try rules.language(newLanguage, plain: MatroskaID.tagLanguage, bcp47: MatroskaID.tagLanguageBCP47, what: "tags") : []
        var data: [UInt8] = []
        var valueWritten = false
        var languageWritten = !languageChanged
        for field in stored {
            switch field.id {
            case MatroskaID.tagString, MatroskaID.tagBinary:
                guard !valueWritten else { continue }
                valueWritten = true
                data += value == EBML.element(field.id, field.payload) ? field.bytes : value
            case MatroskaID.tagLanguage, MatroskaID.tagLanguageBCP47:
                guard !languageWritten else {
                    if !languageChanged { data += field.bytes }
                    continue
                }
                languageWritten = true
                data += languageBytes
            default:
                data += field.bytes
                if field.id == MatroskaID.tagName, !languageWritten {
                    data += languageBytes
                    languageWritten = true
                }
            }
        }
        if !languageWritten { data += languageBytes }
        if !valueWritten { data += value }
        return data
    }
}
