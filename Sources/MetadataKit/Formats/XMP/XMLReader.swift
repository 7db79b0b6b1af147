#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One element of an XML document read by ``XMLReader``, with its names
/// resolved against the `xmlns` declarations in scope (Namespaces in XML 1.0 §6).
struct XMLElement: Sendable, Hashable {
    /// One attribute: namespace URI ("" when unprefixed), local name, value.
    struct Attribute: Sendable, Hashable {
        var namespace: String
        var name: String
        var value: String
    }

    /// The namespace URI of the element ("" when it has none).
    var namespace: String
    /// The local name (after the prefix).
    var name: String
    /// The attributes other than namespace declarations, in document order.
    var attributes: [Attribute] = []
    /// Child elements, in document order.
    var children: [XMLElement] = []
    /// The element's own text: character data and CDATA sections, entities
    /// decoded, concatenated (text inside children is theirs).
    var text = ""

    /// The value of the attribute `name` in `namespace`.
    func attribute(_ namespace: String, _ name: String) -> String? {
        attributes.first { $0.namespace == namespace && $0.name == name }?.value
    }

    /// Whether the element is `name` in `namespace`.
    func `is`(_ namespace: String, _ name: String) -> Bool {
        self.namespace == namespace && self.name == name
    }
}

/// A small, bounded, forgiving XML reader for XMP packets (no DTD, no
/// external entities, no validation).
///
/// It reads elements, attributes, character data, CDATA sections, the five
/// predefined entities and character references (XML 1.0 §2.4, §2.7, §4.1,
/// §4.6). Processing instructions (`<?xpacket …?>`), comments and a
/// `<!DOCTYPE …>` are skipped: entities a DOCTYPE declares are never
/// expanded, so an "entity bomb" expands to nothing. Damage is read around
/// and reported as warnings with the byte offset (plus ``baseOffset``):
/// an unterminated tag or comment ends the document there, an end tag
/// that matches no open element is ignored, an element deeper than
/// ``maximumDepth`` is skipped with its content, and reading stops after
/// ``maximumElements`` elements. Every limit is checked before anything is
/// allocated for it; the work is linear in the input.
struct XMLReader {
    /// Elements deeper than this are skipped (XMP nests a handful of levels).
    static let maximumDepth = 64
    /// Elements read at most; the rest of the document is skipped.
    static let maximumElements = 100_000
    /// Attributes read per element at most; the rest are skipped.
    static let maximumAttributes = 1024

    private let bytes: [UInt8]
    private var position = 0
    /// Added to every warning's offset: where the document starts in the file.
    let baseOffset: Int64
    /// What was read around, in document order.
    private(set) var warnings: [MediaWarning] = []
    private var elementCount = 0

    /// A reader of `bytes`, UTF-8 text (a leading byte order mark is skipped).
    init(_ bytes: [UInt8], baseOffset: Int64 = 0) {
        self.bytes = bytes
        self.baseOffset = baseOffset
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// Reads the whole document: the top-level elements, in order.
    static func read(_ bytes: [UInt8], baseOffset: Int64 = 0) -> (elements: [XMLElement], warnings: [MediaWarning]) {
        var reader = XMLReader(bytes, baseOffset: baseOffset)
        let root = reader.readDocument()
        return (root, reader.warnings)
    }

    // MARK: Tree

    /// An element being read, with its raw name and the prefixes it declares.
    private struct Open {
        var element: XMLElement
        var rawName: [UInt8]
        var prefixes: [String: String]
    }

    private mutating func readDocument() -> [XMLElement] {
        var stack: [Open] = []
        var top: [XMLElement] = []
        // Elements deeper than the limit: how many are open (their content is skipped).
        var skippedDepth = 0
        func close(_ stack: inout [Open], into top: inout [XMLElement]) {
            let done = stack.removeLast()
            if stack.isEmpty { top.append(done.element) } else { stack[stack.count - 1].element.children.append(done.element) }
        }
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else {
                let text = readText()
                if skippedDepth == 0, !stack.isEmpty { stack[stack.count - 1].element.text += text }
                continue
            }
            let start = position
            if matches("<?") {
                guard skip(past: "?>", what: "processing instruction", from: start) else { break }
            } else if matches("<!--") {
                guard skip(past: "-->", what: "comment", from: start) else { break }
            } else if matches("<![CDATA[") {
                position += 9
                let end = find("]]>") ?? bytes.count
                if end == bytes.count { warn(.truncated, "unterminated CDATA section", at: start) }
                if skippedDepth == 0, !stack.isEmpty {
                    stack[stack.count - 1].element.text += String(decoding: bytes[position..<end], as: UTF8.self)
                }
                position = min(bytes.count, end + 3)
            } else if matches("<!") {
                guard skipDeclaration(from: start) else { break }
            } else if matches("</") {
                position += 2
                let name = readName()
                skipSpaces()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
                    warn(.truncated, "unterminated end tag", at: start)
                    position = bytes.count
                    break
                }
                position += 1
                if skippedDepth > 0 {
                    skippedDepth -= 1
                } else if let index = stack.lastIndex(where: { $0.rawName[...] == name }) {
                    if index != stack.count - 1 { warn(.malformed, "elements left open before this end tag", at: start) }
                    while stack.count > index { close(&stack, into: &top) }
                } else {
                    warn(.malformed, "an end tag that matches no open element", at: start)
                }
            } else {
                guard let tag = readStartTag(from: start) else { break }
                if tag.name.isEmpty { continue }
                if skippedDepth > 0 || stack.count >= Self.maximumDepth {
                    if skippedDepth == 0 { warn(.tooDeep, "elements nested deeper than \(Self.maximumDepth): skipped", at: start) }
                    if !tag.isEmpty { skippedDepth += 1 }
                    continue
                }
                elementCount += 1
                guard elementCount <= Self.maximumElements else {
                    warn(.sizeOutOfRange, "more than \(Self.maximumElements) elements: the rest is not read", at: start)
                    position = bytes.count
                    break
                }
                var prefixes = stack.last?.prefixes ?? [:]
                for (name, value) in tag.attributes {
                    if name == Array("xmlns".utf8) {
                        prefixes[""] = value
                    } else if name.starts(with: Array("xmlns:".utf8)) {
                        prefixes[String(decoding: name.dropFirst(6), as: UTF8.self)] = value
                    }
                }
                var element = Self.resolve(tag.name, prefixes: prefixes, isAttribute: false)
                for (name, value) in tag.attributes where name != Array("xmlns".utf8) && !name.starts(with: Array("xmlns:".utf8)) {
                    let resolved = Self.resolve(name, prefixes: prefixes, isAttribute: true)
                    element.attributes.append(.init(namespace: resolved.namespace, name: resolved.name, value: value))
                }
                stack.append(Open(element: element, rawName: tag.name, prefixes: prefixes))
                if tag.isEmpty { close(&stack, into: &top) }
            }
        }
        if !stack.isEmpty { warn(.truncated, "the document ends with \(stack.count) elements open", at: bytes.count) }
        while !stack.isEmpty { close(&stack, into: &top) }
        return top
    }

    /// An element for a raw `prefix:name`; the prefix through `prefixes`
    /// (`xml` is predefined; an unprefixed attribute has no namespace).
    private static func resolve(_ raw: [UInt8], prefixes: [String: String], isAttribute: Bool) -> XMLElement {
        let text = String(decoding: raw, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else {
            return XMLElement(namespace: isAttribute ? "" : prefixes[""] ?? "", name: text)
        }
        let prefix = String(text[..<colon])
        let namespace = prefix == "xml" ? "http://www.w3.org/XML/1998/namespace" : prefixes[prefix] ?? prefix + ":"
        return XMLElement(namespace: namespace, name: String(text[text.index(after: colon)...]))
    }

    // MARK: Tokens

    private struct StartTag {
        var name: [UInt8]
        var attributes: [([UInt8], String)] = []
        var isEmpty = false
    }

    /// `<name attr="value" …>` or `…/>`; nil when the tag runs to the end (a warning).
    private mutating func readStartTag(from start: Int) -> StartTag? {
        position += 1
        var tag = StartTag(name: Array(readName()))
        if tag.name.isEmpty {
            warn(.malformed, "a '<' that starts no tag: read as text", at: start)
            return StartTag(name: [], isEmpty: true)
        }
        var skippedAttributes = false
        while true {
            skipSpaces()
            guard position < bytes.count else {
                warn(.truncated, "unterminated start tag", at: start)
                return nil
            }
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return tag
            case UInt8(ascii: "/"):
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: ">") {
                    position += 1
                    tag.isEmpty = true
                    return tag
                }
            default:
                let attributeStart = position
                let name = readName()
                skipSpaces()
                guard !name.isEmpty, position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                    warn(.malformed, "an attribute without a value", at: attributeStart)
                    if name.isEmpty { position += 1 }
                    continue
                }
                position += 1
                skipSpaces()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                    warn(.malformed, "an attribute value without quotes", at: attributeStart)
                    continue
                }
                let quote = bytes[position]
                position += 1
                let valueStart = position
                guard let end = bytes[position...].firstIndex(of: quote) else {
                    warn(.truncated, "unterminated attribute value", at: attributeStart)
                    position = bytes.count
                    return nil
                }
                position = end + 1
                if tag.attributes.count < Self.maximumAttributes {
                    tag.attributes.append((Array(name), decode(bytes[valueStart..<end], at: valueStart)))
                } else if !skippedAttributes {
                    skippedAttributes = true
                    warn(.sizeOutOfRange, "more than \(Self.maximumAttributes) attributes: the rest are skipped", at: attributeStart)
                }
            }
        }
    }

    /// Character data up to the next `<`, entities decoded.
    private mutating func readText() -> String {
        let start = position
        let end = bytes[position...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
        position = end
        return decode(bytes[start..<end], at: start)
    }

    /// A name: every byte up to a space, `=`, `/`, `>`, `<` or a quote.
    private mutating func readName() -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "="), UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "<"),
                UInt8(ascii: "\""), UInt8(ascii: "'"):
                return bytes[start..<position]
            default: position += 1
            }
        }
        return bytes[start..<position]
    }

    private mutating func skipSpaces() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private func matches(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { bytes[position...].starts(with: $0) }
    }

    /// The position of the next `text` from here; nil when there is none.
    private func find(_ text: StaticString) -> Int? {
        text.withUTF8Buffer { needle -> Int? in
            guard let first = needle.first else { return position }
            var index = position
            while let found = bytes[index...].firstIndex(of: first) {
                if bytes[found...].starts(with: needle) { return found }
                index = found + 1
            }
            return nil
        }
    }

    /// Skips past `end`; false (a warning, the rest skipped) when it never comes.
    private mutating func skip(past end: StaticString, what: String, from start: Int) -> Bool {
        guard let found = find(end) else {
            warn(.truncated, "unterminated \(what)", at: start)
            position = bytes.count
            return false
        }
        position = found + end.utf8CodeUnitCount
        return true
    }

    /// Skips a `<!…>` declaration (a DOCTYPE with its internal subset in
    /// brackets); its entities are not expanded.
    private mutating func skipDeclaration(from start: Int) -> Bool {
        var depth = 0
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                warn(.unsupportedFeature, "a DOCTYPE or other declaration: skipped, its entities are not expanded", at: start)
                return true
            }
        }
        warn(.truncated, "unterminated declaration", at: start)
        return false
    }

    /// Text with the predefined entities and character references decoded;
    /// any other reference is kept as written (a warning).
    private mutating func decode(_ raw: ArraySlice<UInt8>, at start: Int) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&"), let semicolon = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                output.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
            if let scalar = Self.reference(name) {
                output += Array(String(Character(scalar)).utf8)
            } else {
                warn(.malformed, "an unknown entity '&\(name);': kept as written", at: index)
                output += raw[index...semicolon]
            }
            index = semicolon + 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The character a predefined entity or character reference names.
    private static func reference(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.first == "x" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init)
        }
    }

    private mutating func warn(_ code: MediaError.Code, _ message: String, at offset: Int) {
        // A hostile document can repeat one fault endlessly: a few warnings say enough.
        guard warnings.count < 16 else { return }
        warnings.append(MediaWarning(code, "XMP: " + message, offset: baseOffset + Int64(offset)))
    }
}
