#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Header Object of an ASF file (ASF Specification §3.1–§3.4, §4.7,
/// §4.8) as far as metadata goes: its objects in order, the Header
/// Extension Object's objects, and every attribute of the Content
/// Description, Extended Content Description, Metadata and Metadata Library
/// objects, in that order (as mutagen lists them).
///
/// Forgiving: an object whose size runs past its container ends the walk
/// there (a warning; the header is then ``isIntact`` false and can't be
/// rebuilt); damage inside a metadata object keeps the attributes before it
/// (a warning; that object is in ``damagedObjects``).
struct ASFHeader: Sendable {
    /// The Header Object's declared size (§3.1): where the Data Object starts.
    let size: Int64
    /// The Header Object's declared count of objects.
    let declaredCount: UInt32
    /// Reserved1 and Reserved2 (0x01, 0x02), kept as they are.
    let reserved: [UInt8]
    /// The objects of the header, in order.
    let objects: [ASFObject]
    /// Index in ``objects`` of the (first) Header Extension Object.
    let extensionIndex: Int?
    /// The Header Extension's objects, and its 18 reserved bytes.
    let extensionObjects: [ASFObject]
    let extensionReserved: [UInt8]
    /// Whether the header and its extension were read to their ends.
    let isIntact: Bool
    let isExtensionIntact: Bool
    /// The attributes, Content Description first, then Extended Content
    /// Description, Metadata, Metadata Library.
    let attributes: [ASFAttribute]
    /// The Language List Object's entries (§4.6).
    let languages: [String]
    /// Offsets of metadata objects read only in part.
    let damagedObjects: Set<Int64>
    let warnings: [MediaWarning]

    /// Bytes of the Header Object's own fields before its first object.
    static let fixedSize = 30

    /// Reads the header of `source`. With `readingImages` false, the images
    /// of `WM/Picture` values of 4 KiB or more (``ASFImageRanges``) are not
    /// read: their bytes are zeros in the objects' bytes and attributes'
    /// data, and everything else is as with true. For a read whose pictures
    /// stay in the file; a header to be rewritten is read whole.
    init(parsing source: FileSource, readingImages: Bool = true) throws {
        try source.require(0, Int64(Self.fixedSize), "ASF Header Object")
        var head = try source.reader(at: 0, count: Self.fixedSize)
        guard ASFGUID(bytes: try head.readBytes(16)) == .header else {
            throw MediaError(.unsupportedFormat, "not an ASF file", offset: 0)
        }
        let declared = try head.readUInt64(.little)
        declaredCount = try head.readUInt32(.little)
        reserved = try head.readBytes(2)
        guard declared >= UInt64(Self.fixedSize) else {
            throw MediaError(.malformed, "the ASF Header Object declares \(declared) bytes", offset: 16)
        }
        var warnings: [MediaWarning] = []
        var intact = true
        var available = min(declared, UInt64(source.size))
        if declared > UInt64(source.size) {
            warnings.append(
                MediaWarning(.truncated, "the ASF header declares \(declared) bytes; the file ends at \(source.size)", offset: 16))
            intact = false
            // Read the objects up to the Data Object only, not the whole file.
            available = UInt64(Self.fixedSize)
            while available + UInt64(ASFObject.headerSize) <= UInt64(source.size) {
                var object = try source.reader(at: Int64(available), count: ASFObject.headerSize)
                guard ASFGUID(bytes: try object.readBytes(16)) != .data else { break }
                let size = try object.readUInt64(.little)
                guard size >= UInt64(ASFObject.headerSize), size <= UInt64(source.size) - available else { break }
                available += size
            }
        }
        size = Int64(available)
        let fixedSize = Int64(Self.fixedSize)
        let holes =
            readingImages || available < UInt64(ASFImageRanges.minimumCount)
            ? [] : ASFImageRanges.find(in: source, from: fixedSize, to: size)
        var reader = ByteReader(
            try source.getBytes(at: fixedSize, count: Int(available) - Self.fixedSize, zeroing: holes), fileOffset: fixedSize)
        let walk = ASFObject.objects(in: &reader, what: "ASF header")
        objects = walk.objects
        if let damage = walk.damage {
            warnings.append(damage)
            intact = false
        }
        if intact, objects.count != Int(declaredCount) {
            warnings.append(
                MediaWarning(.malformed, "the ASF header declares \(declaredCount) objects and holds \(objects.count)", offset: 24))
        }

        // The Header Extension Object (§3.4).
        extensionIndex = objects.firstIndex { $0.guid == .headerExtension }
        var extensionObjects: [ASFObject] = []
        var extensionReserved: [UInt8] = []
        var extensionIntact = true
        if let extensionIndex {
            var data = objects[extensionIndex].dataReader
            do {
                extensionReserved = try data.readBytes(18)
                let count = try data.readUInt32(.little)
                guard UInt64(count) <= UInt64(data.remaining) else {
                    throw data.error(.sizeOutOfRange, "the Header Extension declares \(count) bytes; \(data.remaining) are left")
                }
                var inner = try data.readReader(count: Int(count))
                let walk = ASFObject.objects(in: &inner, what: "ASF Header Extension")
                extensionObjects = walk.objects
                if let damage = walk.damage {
                    warnings.append(damage)
                    extensionIntact = false
                }
            } catch {
                warnings.append(ASFObject.warning(error))
                extensionIntact = false
            }
        }
        self.extensionObjects = extensionObjects
        self.extensionReserved = extensionReserved
        isIntact = intact
        isExtensionIntact = extensionIntact

        // Languages, then the attributes in mutagen's order.
        var languages: [String] = []
        if let list = extensionObjects.first(where: { $0.guid == .languageList }) {
            var data = list.dataReader
            do {
                let count = try data.readUInt16(.little)
                for _ in 0..<count {
                    let length = Int(try data.readUInt8())
                    languages.append(ASFAttribute.text(try data.readSlice(length)))
                }
            } catch {
                warnings.append(ASFObject.warning(error))
            }
        }
        self.languages = languages
        var attributes: [ASFAttribute] = []
        var damaged = Set<Int64>()
        let sources: [(ASFGUID, [ASFObject])] = [
            (.contentDescription, objects), (.extendedContentDescription, objects), (.metadata, extensionObjects),
            (.metadataLibrary, extensionObjects),
        ]
        for (guid, container) in sources {
            for object in container where object.guid == guid {
                var data = object.dataReader
                do {
                    try Self.readAttributes(guid, &data, into: &attributes)
                } catch {
                    warnings.append(ASFObject.warning(error))
                    damaged.insert(object.offset)
                }
            }
        }
        self.attributes = attributes
        damagedObjects = damaged
        self.warnings = warnings
    }

    /// Appends the attributes of a metadata object of type `guid`; throws at
    /// damage, leaving the ones before it appended.
    private static func readAttributes(_ guid: ASFGUID, _ data: inout ByteReader, into attributes: inout [ASFAttribute]) throws {
        switch guid {
        case .contentDescription:
            // §3.10: five 16-bit byte lengths, then the five strings.
            var lengths: [Int] = []
            for _ in 0..<5 { lengths.append(Int(try data.readUInt16(.little))) }
            for (name, length) in zip(ASFAttribute.contentDescriptionNames, lengths) {
                let offset = data.offset
                let bytes = try data.readSlice(length)
                if length > 0 {
                    attributes.append(ASFAttribute(name: name, type: 0, data: bytes, place: .contentDescription, valueOffset: offset))
                }
            }
        case .extendedContentDescription:
            // §3.11: count, then name length, name, type, value length, value.
            let count = try data.readUInt16(.little)
            for _ in 0..<count {
                let name = ASFAttribute.text(try data.readSlice(Int(try data.readUInt16(.little))))
                let type = try data.readUInt16(.little)
                let length = Int(try data.readUInt16(.little))
                let offset = data.offset
                attributes.append(
                    ASFAttribute(
                        name: name, type: type, data: try data.readSlice(length), place: .extendedContentDescription, valueOffset: offset))
            }
        default:
            // §4.7, §4.8: count, then language index (reserved in Metadata), stream,
            // name length, type, 32-bit value length, name, value.
            let isLibrary = guid == .metadataLibrary
            let count = try data.readUInt16(.little)
            for _ in 0..<count {
                let language = try data.readUInt16(.little)
                let stream = try data.readUInt16(.little)
                let nameLength = Int(try data.readUInt16(.little))
                let type = try data.readUInt16(.little)
                let length = try data.readUInt32(.little)
                let name = ASFAttribute.text(try data.readSlice(nameLength))
                try data.require(Int(length), "attribute value")
                let offset = data.offset
                attributes.append(
                    ASFAttribute(
                        name: name, type: type, data: try data.readSlice(Int(length)), place: isLibrary ? .metadataLibrary : .metadata,
                        stream: stream, languageIndex: isLibrary ? language : 0, valueOffset: offset))
            }
        }
    }
}
