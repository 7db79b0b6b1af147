#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// Fields of a WAV file's `iXML` chunk (the iXML specification, ixml.info):
    /// the text of the `BWFXML` root's `PROJECT`, `SCENE`, `TAKE`, `TAPE`,
    /// `CIRCLED` and `NOTE` elements, and `TRACK_LIST`: the `NAME` of each
    /// `TRACK_LIST/TRACK`, in order (read-only).
    public static let iXML = MetadataKeySpace(rawValue: "ixml")
    /// Values of a Broadcast Wave file that span or are computed from its
    /// other chunks: `iXML`, the whole iXML document as text, and
    /// `TimeReferenceSeconds`, the `bext` time reference over the sample rate
    /// (seconds since midnight, read-only). A save rebuilds them: an edited
    /// `ixml` field changes the document's text around it.
    public static let broadcastWAV = MetadataKeySpace(rawValue: "bwf")
}

/// The `iXML` chunk: UTF-8 XML text, often NUL-padded so that recorders can
/// rewrite it in place. Its items are ``MetadataKeySpace/iXML`` fields and
/// the whole document as ``MetadataKeySpace/broadcastWAV`` `iXML`.
///
/// The document is scanned, not rebuilt (``IXMLScanner``): an edited field
/// replaces only the text between its element's tags (`<NOTE/>` becomes
/// `<NOTE>…</NOTE>`; a missing element is added before `</BWFXML>`), so every
/// other byte of the document stays as it was, and the NUL padding after it
/// shrinks to absorb the growth where it can. A changed `iXML` document
/// item replaces the text as a whole (fields changed too are then applied to
/// it). A document that can't be scanned is read around with a warning; its
/// fields can't be edited (the whole document can).
enum IXML {
    /// Elements of the `BWFXML` root read as fields.
    static let elementKeys = ["PROJECT", "SCENE", "TAKE", "TAPE", "CIRCLED", "NOTE"]
    static let trackListKey = "TRACK_LIST"
    static let documentKey = "iXML"
    static let root = "BWFXML"
    /// The document a new chunk starts from.
    static let newDocument = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<BWFXML>\n<IXML_VERSION>2.10</IXML_VERSION>\n</BWFXML>\n"

    /// The document's text (before any NUL padding) and the bytes after it.
    static func split(_ payload: [UInt8]) -> (text: [UInt8], padding: [UInt8]) {
        let end = payload.firstIndex(of: 0) ?? payload.count
        return (Array(payload[..<end]), Array(payload[end...]))
    }

    /// The items of an `iXML` payload; a warning (at its file offset) when the XML can't be scanned whole.
    static func items(of payload: [UInt8], at offset: Int64) -> (items: [MetadataItem], warning: MediaWarning?) {
        let text = split(payload).text
        guard !text.isEmpty else { return ([], nil) }
        let document = IFFText.decode(text)
        var items = [MetadataItem(keySpace: .broadcastWAV, key: documentKey, value: .string(document.text), dataType: document.type)]
        let scan = IXMLScanner(text)
        items += fields(of: scan)
        let warning = scan.damage.map {
            MediaWarning(.malformed, "iXML: \($0.reason); the fields after it are not read", offset: offset + Int64($0.offset))
        }
        return (items, warning)
    }

    private static func fields(of scan: IXMLScanner) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for key in elementKeys {
            if let element = scan.elements.first(where: { $0.path == [root, key] }), let text = element.text, !text.isEmpty {
                items.append(MetadataItem(keySpace: .iXML, key: key, value: .string(text), dataType: .utf8))
            }
        }
        let names = scan.elements.filter { $0.path == [root, trackListKey, "TRACK", "NAME"] }.map { $0.text ?? "" }
        if names.contains(where: { !$0.isEmpty }) {
            items.append(MetadataItem(keySpace: .iXML, key: trackListKey, value: .strings(names), dataType: .utf8))
        }
        return items
    }

    /// The new payload for `items`; nil when nothing changed, an empty array
    /// when the chunk is to go (no document and no field left).
    static func payload(for items: [MetadataItem], old: [UInt8]?) throws -> [UInt8]? {
        let (oldText, padding) = split(old ?? [])
        let read = old.map { Self.items(of: $0, at: 0).items } ?? []
        let wanted = items.filter { $0.keySpace == .iXML || ($0.keySpace == .broadcastWAV && $0.key == documentKey) }
        if wanted == read { return nil }
        if wanted.isEmpty { return [] }
        if let unknown = wanted.first(where: { $0.keySpace == .iXML && !elementKeys.contains($0.key) && $0.key != trackListKey }) {
            throw MediaError(
                .invalidValue, "ixml has no field '\(unknown.key)' (its fields: \((elementKeys + [trackListKey]).joined(separator: ", ")))")
        }
        func value(_ list: [MetadataItem], _ space: MetadataKeySpace, _ key: String) -> MetadataItem? {
            list.last { $0.keySpace == space && $0.key == key }
        }
        if value(wanted, .iXML, trackListKey) != value(read, .iXML, trackListKey) {
            throw MediaError(.invalidValue, "ixml:TRACK_LIST is read-only; change the track names in the whole document, bwf:iXML")
        }
        let changedKeys = elementKeys.filter { value(wanted, .iXML, $0) != value(read, .iXML, $0) }
        let document = value(wanted, .broadcastWAV, documentKey)
        var text: [UInt8]
        if document != value(read, .broadcastWAV, documentKey) {
            guard let document else {
                throw MediaError(.invalidValue, "ixml fields need the iXML document: keep bwf:iXML or remove the fields too")
            }
            text = Array(try BroadcastRecord.text(of: document).utf8)
        } else if oldText.isEmpty {
            text = Array(Self.newDocument.utf8)
        } else {
            text = oldText
        }
        for key in changedKeys {
            let new = try value(wanted, .iXML, key).map { try BroadcastRecord.text(of: $0) }
            text = try setElement(key, to: new, in: text)
        }
        if text == oldText, old != nil { return nil }
        // NUL padding keeps the chunk's size where it can: it shrinks as the text grows and grows as it shrinks.
        var tail = padding
        let growth = text.count - oldText.count
        if growth > 0 {
            let zeros = tail.reversed().prefix { $0 == 0 }.count
            tail.removeLast(min(growth, zeros))
        } else if growth < 0, !tail.isEmpty {
            tail += [UInt8](repeating: 0, count: -growth)
        }
        return text + tail
    }

    /// `text` with the text of the root's child `key` replaced by `value` (nil: emptied).
    static func setElement(_ key: String, to value: String?, in text: [UInt8]) throws -> [UInt8] {
        let scan = IXMLScanner(text)
        if let damage = scan.damage {
            throw MediaError(.malformed, "the iXML document can't be edited field by field: \(damage.reason) at byte \(damage.offset)")
        }
        let escaped = Array(escape(value ?? "").utf8)
        if let element = scan.elements.first(where: { $0.path == [root, key] }) {
            if element.isSelfClosing {
                guard !escaped.isEmpty else { return text }
                var result = text
                result.replaceSubrange(element.range, with: Array("<\(key)>".utf8) + escaped + Array("</\(key)>".utf8))
                return result
            }
            guard element.text != nil else {
                throw MediaError(.invalidValue, "iXML element \(key) holds other elements, not text")
            }
            var result = text
            result.replaceSubrange(element.content, with: escaped)
            return result
        }
        guard !escaped.isEmpty else { return text }
        guard let rootElement = scan.elements.first(where: { $0.path == [root] }), !rootElement.isSelfClosing else {
            throw MediaError(.invalidValue, "the iXML document has no \(root) element to hold \(key)")
        }
        // Before `</BWFXML>`, on a line of its own when the end tag starts one.
        let insertAt = rootElement.content.upperBound
        let newline = insertAt > 0 && text[insertAt - 1] == 0x0A
        let element = Array("<\(key)>".utf8) + escaped + Array("</\(key)>".utf8)
        var result = text
        result.insert(contentsOf: newline ? element + [0x0A] : element, at: insertAt)
        return result
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
