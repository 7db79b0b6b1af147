#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The top-level properties of an XMP packet (ISO 16684-1, XMP Specification
/// Part 1 §7, "RDF serialization"), read by ``XMLReader``.
///
/// Every node element of every `rdf:RDF` (usually `rdf:Description`) is read:
/// its attributes other than `rdf:`/`xml:` ones are simple properties
/// (§7.9.2.2, the attribute form), and each property element holds a simple
/// value (its text, or `rdf:resource`), or an array (`rdf:Alt`, `rdf:Seq`,
/// `rdf:Bag`) of `rdf:li` items (§7.7). Of a language alternative, the
/// `x-default` item comes first. Structures (`rdf:parseType="Resource"`, a
/// nested `rdf:Description`, §7.5) and qualifiers are not read. When a
/// property is given twice, the first one counts.
struct XMPPacket: Sendable {
    /// A property's name: its namespace URI and local name.
    struct Name: Hashable, Sendable, CustomStringConvertible {
        var namespace: String
        var name: String
        init(_ namespace: String, _ name: String) {
            self.namespace = namespace
            self.name = name
        }
        var description: String { "\(XMPPacket.prefixes[namespace] ?? namespace):\(name)" }
    }

    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xml = "http://www.w3.org/XML/1998/namespace"
    /// Dublin Core (XMP Part 2 §8.3).
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    /// XMP basic (Part 2 §8.4).
    static let basic = "http://ns.adobe.com/xap/1.0/"
    /// XMP Dynamic Media (Adobe's XMP Specification Part 2, "Dynamic media namespace").
    static let dynamicMedia = "http://ns.adobe.com/xmp/1.0/DynamicMedia/"
    /// The usual prefixes of the namespaces above, for names shown to people.
    static let prefixes = [dublinCore: "dc", basic: "xmp", dynamicMedia: "xmpDM", rdf: "rdf"]

    /// The values of each top-level property: one for a simple value, the
    /// items of an array (`x-default` first in a language alternative).
    private(set) var properties: [Name: [String]] = [:]
    /// What the reader read around, with file offsets.
    private(set) var warnings: [MediaWarning] = []

    /// Reads a packet's bytes (UTF-8); `baseOffset` is where they start in the file.
    init(_ bytes: [UInt8], baseOffset: Int64 = 0) {
        let document = XMLReader.read(bytes, baseOffset: baseOffset)
        warnings = document.warnings
        var pending = document.elements[...]
        // Breadth-first through the tree for every rdf:RDF (the reader bounds its depth and size).
        var queue: [XMLElement] = Array(pending)
        pending = []
        var index = 0
        while index < queue.count {
            let element = queue[index]
            index += 1
            if element.is(Self.rdf, "RDF") {
                for node in element.children { read(node: node) }
            } else {
                queue += element.children
            }
        }
    }

    /// The values of `namespace`:`name`; empty when the packet lacks it.
    func values(_ namespace: String, _ name: String) -> [String] {
        properties[Name(namespace, name)] ?? []
    }

    /// A node element (§7.4): attribute properties, then property elements.
    private mutating func read(node: XMLElement) {
        for attribute in node.attributes where attribute.namespace != Self.rdf && attribute.namespace != Self.xml {
            add(Name(attribute.namespace, attribute.name), [attribute.value])
        }
        for property in node.children {
            if let values = Self.values(of: property) { add(Name(property.namespace, property.name), values) }
        }
    }

    private mutating func add(_ name: Name, _ values: [String]) {
        if properties[name] == nil { properties[name] = values }
    }

    /// A property element's values; nil for a structure or qualified value.
    private static func values(of property: XMLElement) -> [String]? {
        if let resource = property.attribute(rdf, "resource") { return [resource] }
        if property.attribute(rdf, "parseType") != nil { return nil }
        guard let container = property.children.first else {
            // Other attributes on an empty property element are a structure's fields (§7.9.2.5).
            let fields = property.attributes.filter { $0.namespace != rdf && $0.namespace != xml }
            return fields.isEmpty || !property.text.isEmpty ? [property.text] : nil
        }
        guard property.children.count == 1, container.namespace == rdf, ["Alt", "Seq", "Bag"].contains(container.name) else {
            return nil
        }
        var items: [(value: String, isDefault: Bool)] = []
        for item in container.children where item.is(rdf, "li") {
            let value: String?
            if let resource = item.attribute(rdf, "resource") {
                value = resource
            } else if item.children.isEmpty, item.attribute(rdf, "parseType") == nil {
                value = item.text
            } else {
                // A qualified item: its rdf:value (§7.8), if it has one.
                value = item.children.first { $0.is(rdf, "value") && $0.children.isEmpty }?.text
            }
            if let value { items.append((value, item.attribute(xml, "lang") == "x-default")) }
        }
        if container.name == "Alt", let first = items.firstIndex(where: \.isDefault) {
            items.insert(items.remove(at: first), at: 0)
        }
        return items.map(\.value)
    }
}
