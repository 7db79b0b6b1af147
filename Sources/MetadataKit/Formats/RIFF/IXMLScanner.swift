#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A forgiving scan of an XML document's elements (XML 1.0 §2–§4, the parts
/// an iXML document uses): start, end and empty-element tags, text with the
/// predefined and numeric character references, CDATA sections; comments,
/// processing instructions and the DOCTYPE are skipped. No DTD, no
/// namespaces. Positions are byte offsets into the UTF-8 text, so an edit
/// can replace exactly an element's text.
///
/// Stops at the first error (an end tag that doesn't match, a tag left open,
/// nesting deeper than ``maximumDepth``), keeping the elements closed before it.
struct IXMLScanner {
    struct Element {
        /// Names from the root down to this element.
        var path: [String]
        /// The whole element, tags included.
        var range: Range<Int>
        /// Between the start and end tags (empty for `<NAME/>`).
        var content: Range<Int>
        var isSelfClosing: Bool
        /// The decoded text, nil when the content holds elements.
        var text: String?
    }

    static let maximumDepth = 64
    private(set) var elements: [Element] = []
    private(set) var damage: (offset: Int, reason: String)?

    init(_ bytes: [UInt8]) {
        var stack: [(name: String, start: Int, contentStart: Int, hasChildren: Bool)] = []
        var position = 0
        func find(_ pattern: String, from start: Int) -> Int? {
            let needle = Array(pattern.utf8)
            guard bytes.count >= needle.count else { return nil }
            var index = start
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle { return index }
                index += 1
            }
            return nil
        }
        func starts(_ pattern: String, at index: Int) -> Bool {
            let needle = Array(pattern.utf8)
            return index + needle.count <= bytes.count && Array(bytes[index..<index + needle.count]) == needle
        }
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else {
                position += 1
                continue
            }
            let start = position
            var skipTo: (String, String)?
            if starts("<?", at: start) {
                skipTo = ("?>", "processing instruction")
            } else if starts("<!--", at: start) {
                skipTo = ("-->", "comment")
            } else if starts("<![CDATA[", at: start) {
                skipTo = ("]]>", "CDATA section")
            } else if starts("<!", at: start) {
                skipTo = (">", "declaration")
            }
            if let (end, what) = skipTo {
                guard let close = find(end, from: start + 2) else {
                    damage = (start, "unterminated \(what)")
                    break
                }
                position = close + end.utf8.count
                continue
            }
            // A tag: find its '>' outside quoted attribute values.
            var index = start + 1
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                }
                index += 1
            }
            guard index < bytes.count else {
                damage = (start, "unterminated tag")
                break
            }
            let isEnd = bytes[start + 1] == UInt8(ascii: "/")
            let isEmpty = !isEnd && bytes[index - 1] == UInt8(ascii: "/")
            let nameStart = start + (isEnd ? 2 : 1)
            var nameEnd = nameStart
            while nameEnd < index, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">")].contains(bytes[nameEnd]) { nameEnd += 1 }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            position = index + 1
            guard !name.isEmpty else {
                damage = (start, "a tag without a name")
                break
            }
            if isEnd {
                guard let open = stack.last, open.name == name else {
                    damage = (start, "end tag </\(name)> does not match \(stack.last.map { "<\($0.name)>" } ?? "any open element")")
                    break
                }
                stack.removeLast()
                let content = open.contentStart..<start
                elements.append(
                    Element(
                        path: stack.map(\.name) + [name], range: open.start..<position, content: content, isSelfClosing: false,
                        text: open.hasChildren ? nil : Self.text(Array(bytes[content]))))
            } else {
                if !stack.isEmpty { stack[stack.count - 1].hasChildren = true }
                if isEmpty {
                    elements.append(
                        Element(
                            path: stack.map(\.name) + [name], range: start..<position, content: position..<position, isSelfClosing: true,
                            text: ""))
                } else {
                    guard stack.count < Self.maximumDepth else {
                        damage = (start, "elements nested deeper than \(Self.maximumDepth)")
                        break
                    }
                    stack.append((name, start, position, false))
                }
            }
        }
        if damage == nil, let open = stack.last {
            damage = (open.start, "element <\(open.name)> is not closed")
        }
    }

    /// Element content as text: CDATA sections taken as they are, character
    /// references decoded, other markup (comments) dropped.
    static func text(_ bytes: [UInt8]) -> String {
        var raw: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                let rest = bytes[index...]
                if rest.starts(with: Array("<![CDATA[".utf8)) {
                    let body = index + 9
                    var end = body
                    while end + 3 <= bytes.count, Array(bytes[end..<end + 3]) != Array("]]>".utf8) { end += 1 }
                    raw += bytes[body..<min(end, bytes.count)]
                    index = end + 3
                    continue
                }
                if rest.starts(with: Array("<!--".utf8)) {
                    var end = index + 4
                    while end + 3 <= bytes.count, Array(bytes[end..<end + 3]) != Array("-->".utf8) { end += 1 }
                    index = end + 3
                    continue
                }
            }
            if bytes[index] == UInt8(ascii: "&"), let semicolon = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) {
                let entity = String(decoding: bytes[index + 1..<semicolon], as: UTF8.self)
                if let decoded = reference(entity) {
                    raw += Array(decoded.utf8)
                    index = semicolon + 1
                    continue
                }
            }
            raw.append(bytes[index])
            index += 1
        }
        return IFFText.decode(raw.filter { $0 != 0 }).text
    }

    /// The character a reference names (`amp`, `#38`, `#x26`), nil for an unknown one.
    static func reference(_ name: String) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            var number: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                number = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                number = UInt32(name.dropFirst())
            }
            guard let number, number != 0, let scalar = Unicode.Scalar(number) else { return nil }
            return String(Character(scalar))
        }
    }
}
