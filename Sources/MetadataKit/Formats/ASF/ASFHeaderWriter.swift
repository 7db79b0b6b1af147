#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the metadata objects of an ASF header from attributes (ASF
/// Specification §3.10, §3.11, §4.6–§4.8) and the Header Object around them
/// (§3.1, §3.4).
enum ASFHeaderWriter {
    /// The Content Description Object of `attributes` (at most one per name
    /// of ``ASFAttribute/contentDescriptionNames``, each at most 64 KiB).
    static func contentDescription(_ attributes: [ASFAttribute]) -> [UInt8] {
        let values = ASFAttribute.contentDescriptionNames.map { name in attributes.first { $0.name == name }?.data ?? [] }
        var writer = ByteWriter()
        for value in values { writer.write(UInt16(value.count), .little) }
        for value in values { writer.write(value) }
        return ASFObject.serialized(.contentDescription, writer.bytes)
    }

    /// The Extended Content Description Object of `attributes`.
    static func extendedContentDescription(_ attributes: [ASFAttribute]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt16(attributes.count), .little)
        for attribute in attributes {
            let name = ASFAttribute.encodedText(attribute.name)
            let value = attribute.dataForPlace
            writer.write(UInt16(name.count), .little)
            writer.write(name)
            writer.write(attribute.type, .little)
            writer.write(UInt16(value.count), .little)
            writer.write(value)
        }
        return ASFObject.serialized(.extendedContentDescription, writer.bytes)
    }

    /// The Metadata Object (`library` false) or Metadata Library Object of `attributes`.
    static func metadata(_ attributes: [ASFAttribute], library: Bool) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt16(attributes.count), .little)
        for attribute in attributes {
            let name = ASFAttribute.encodedText(attribute.name)
            let value = attribute.dataForPlace
            writer.write(library ? attribute.languageIndex : 0, .little)
            writer.write(attribute.stream, .little)
            writer.write(UInt16(name.count), .little)
            writer.write(attribute.type, .little)
            writer.write(UInt32(value.count), .little)
            writer.write(name)
            writer.write(value)
        }
        return ASFObject.serialized(library ? .metadataLibrary : .metadata, writer.bytes)
    }

    /// The Language List Object of `languages` (each at most 126 UTF-16 units).
    static func languageList(_ languages: [String]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt16(languages.count), .little)
        for language in languages {
            let bytes = ASFAttribute.encodedText(language)
            writer.write(UInt8(bytes.count))
            writer.write(bytes)
        }
        return ASFObject.serialized(.languageList, writer.bytes)
    }

    /// A Header Extension Object holding `objects` (each a whole object);
    /// `reserved` is its 18 reserved bytes (a new one gets §3.4's values).
    static func headerExtension(_ objects: [[UInt8]], reserved: [UInt8]?) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(reserved ?? ASFGUID.headerExtensionReserved.bytes + [6, 0])
        writer.write(UInt32(objects.reduce(0) { $0 + $1.count }), .little)
        for object in objects { writer.write(object) }
        return ASFObject.serialized(.headerExtension, writer.bytes)
    }

    /// A Padding Object `size` bytes long in all (at least 24).
    static func padding(size: Int) -> [UInt8] {
        ASFObject.serialized(.padding, [UInt8](repeating: 0, count: size - ASFObject.headerSize))
    }

    /// The Header Object holding `objects`.
    static func header(_ objects: [[UInt8]], reserved: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: objects.reduce(ASFHeader.fixedSize) { $0 + $1.count })
        writer.write(ASFGUID.header.bytes)
        writer.write(UInt64(objects.reduce(ASFHeader.fixedSize) { $0 + $1.count }), .little)
        writer.write(UInt32(objects.count), .little)
        writer.write(reserved)
        for object in objects { writer.write(object) }
        return writer.bytes
    }
}
