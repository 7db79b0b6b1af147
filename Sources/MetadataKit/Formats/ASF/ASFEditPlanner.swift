#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the attributes of an ASF file (ASF Specification §3.1, §3.4,
/// §3.10, §3.11, §4.6–§4.8): the Header Object is rebuilt, the Data Object
/// and everything after it (packets, index objects) stay untouched.
///
/// - An attribute nobody changed keeps its object, stream number, language
///   index, type and bytes. A changed one keeps the object of the attribute
///   of the same name it replaces where the value still fits there.
/// - New attributes go where mutagen puts them: to the Metadata Library when
///   the value is over 64 KiB, a GUID or has a language; `Title`, `Author`,
///   `Copyright`, `Description` and `Rating` text to the Content Description;
///   others to the Extended Content Description; a second attribute of a
///   name the object holds already, to the Metadata Library.
/// - A language not in the Language List Object is appended to it.
/// - Every other object (File and Stream Properties, codec lists, the
///   Header Extension's other objects, unknown objects) is copied byte for
///   byte, in its place; a metadata object whose attributes are all
///   unchanged is copied byte for byte too. The File Properties Object's
///   file size is updated when the header's size changes (when it was right).
/// - Padding Objects are merged into one at the end of the header. When the
///   new header fits in the old one's space (exactly, or leaving room for a
///   Padding Object), the save patches the header in place; otherwise the
///   file is rewritten with 2 KiB of padding (more up to whole file system
///   blocks on a large file, so the save can insert blocks).
/// - A header that could not be read whole, and a damaged metadata object
///   whose attributes changed, refuse the save (`malformed`) before anything
///   is written.
enum ASFEditPlanner {
    static let keySpaces: [MetadataKeySpace] = [.asf]

    /// Padding of a header that has to grow.
    static let growthPadding = 2048

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let header = try ASFHeader(parsing: source)
        guard header.isIntact else {
            throw MediaError(.malformed, "the ASF header could not be read to its end; it is not rewritten", offset: 0)
        }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        var wanted: [MetadataItem] = []
        for item in options.removesAllTags ? [] : items where item.keySpace == .asf {
            if case .strings(let values) = item.value {
                wanted += values.map {
                    MetadataItem(keySpace: .asf, key: item.key, value: .string($0), dataType: item.dataType, language: item.language)
                }
            } else {
                wanted.append(item)
            }
        }
        var languages = header.languages
        let attributes = try placed(wanted, header: header, languages: &languages, source: source, url: url)
        let body = try objects(attributes, header: header, languages: languages)

        // Padding: fill the old space when possible, else grow with some to spare.
        let oldSize = Int(header.size)
        let content = body.reduce(ASFHeader.fixedSize) { $0 + $1.count }
        var padding: Int?
        var inPlace = true
        if content == oldSize {
            padding = nil
        } else if oldSize - content >= ASFObject.headerSize {
            padding = oldSize - content
        } else {
            inPlace = false
            var size = growthPadding
            if let block = MP4EditPlanner.insertionBlock(for: source) {
                let shift = Int64(content + size - oldSize)
                size += Int((block - shift % block) % block)
            }
            padding = size
        }
        var all = body + (padding.map { [ASFHeaderWriter.padding(size: $0)] } ?? [])
        let newSize = all.reduce(ASFHeader.fixedSize) { $0 + $1.count }
        try updateFileSize(&all, header: header, fileSize: source.size, change: Int64(newSize - oldSize))
        let bytes = ASFHeaderWriter.header(all, reserved: header.reserved)
        if inPlace {
            return .inPlace(try FileEditPlan.changedPatch(of: bytes, at: 0, in: source).map { [$0] } ?? [])
        }
        return .rewrite([.bytes(bytes), .original(offset: header.size, length: source.size - header.size)])
    }

    /// The File Properties Object's file size (§3.2) moved by `change`, when
    /// it was the file's size.
    private static func updateFileSize(_ objects: inout [[UInt8]], header: ASFHeader, fileSize: Int64, change: Int64) throws {
        guard change != 0, let index = header.objects.firstIndex(where: { $0.guid == .fileProperties }) else { return }
        let old = header.objects[index].bytes
        guard old.count >= 48, let position = objects.firstIndex(of: old) else { return }
        var reader = ByteReader(Array(old[40..<48]))
        guard try reader.readUInt64(.little) == UInt64(fileSize) else { return }
        let new = UInt64(fileSize + change)
        for byte in 0..<8 { objects[position][40 + byte] = UInt8(truncatingIfNeeded: new >> (8 * UInt64(byte))) }
    }

    /// The attributes that store `items`, each in its object (see the type's documentation).
    static func placed(
        _ items: [MetadataItem], header: ASFHeader, languages: inout [String], source: FileSource, url: URL
    ) throws -> [ASFAttribute] {
        let old = header.attributes
        let oldItems = old.map { $0.item(languages: header.languages, source: source, url: url) }
        var byName: [String: [Int]] = [:]
        for (index, attribute) in old.enumerated() { byName[attribute.name, default: []].append(index) }
        var used = [Bool](repeating: false, count: old.count)
        var result = [ASFAttribute?](repeating: nil, count: items.count)
        // Names each object holds (the Metadata Object per stream).
        var taken: [ASFAttribute.Place: Set<String>] = [:]
        func key(_ attribute: ASFAttribute) -> String {
            attribute.place == .metadata ? "\(attribute.stream):\(attribute.name)" : attribute.name
        }
        // Unchanged attributes first, as they are.
        var firstUnused: [String: Int] = [:]
        for (position, item) in items.enumerated() {
            guard let candidates = byName[item.key] else { continue }
            var start = firstUnused[item.key] ?? 0
            while start < candidates.count, used[candidates[start]] { start += 1 }
            firstUnused[item.key] = start
            if let index = candidates[start...].first(where: { !used[$0] && oldItems[$0].isStoredLike(item) }) {
                used[index] = true
                result[position] = old[index]
                taken[old[index].place, default: []].insert(key(old[index]))
            }
        }
        // Changed and new attributes.
        for (position, item) in items.enumerated() where result[position] == nil {
            let (type, data) = try ASFAttribute.encoded(item)
            guard item.key.utf16.count < 0x7FFF else {
                throw MediaError(.invalidValue, "an ASF attribute name holds at most 32766 UTF-16 units")
            }
            var attribute = ASFAttribute(name: item.key, type: type, data: data[...], place: .extendedContentDescription)
            let replaced = byName[item.key]?.first { !used[$0] }
            if let replaced { used[replaced] = true }
            if let language = item.language {
                if let replaced, oldItems[replaced].language == language {
                    attribute.languageIndex = old[replaced].languageIndex
                } else if let index = languages.firstIndex(of: language), index > 0 {
                    attribute.languageIndex = UInt16(index)
                } else {
                    guard language.utf16.count <= 126, languages.count < 0xFFFF else {
                        throw MediaError(.invalidValue, "asf:\(item.key): the language '\(language)' can't be added to the Language List")
                    }
                    if languages.isEmpty { languages.append("en-us") }
                    languages.append(language)
                    attribute.languageIndex = UInt16(languages.count - 1)
                }
            }
            let preferred = replaced.map { old[$0].place }
            attribute.stream = replaced.map { old[$0].stream } ?? 0
            attribute.place = place(attribute, preferred: preferred, taken: taken)
            if attribute.place != .metadata && attribute.place != .metadataLibrary { attribute.stream = 0 }
            taken[attribute.place, default: []].insert(key(attribute))
            result[position] = attribute
        }
        return result.map { $0! }
    }

    /// The object `attribute` goes to (mutagen's rules; a `preferred` object,
    /// that of the attribute it replaces, where the value fits there).
    private static func place(
        _ attribute: ASFAttribute, preferred: ASFAttribute.Place?, taken: [ASFAttribute.Place: Set<String>]
    ) -> ASFAttribute.Place {
        if attribute.data.count > 0xFFFF || attribute.kind == .guid || attribute.languageIndex != 0 { return .metadataLibrary }
        func free(_ place: ASFAttribute.Place) -> Bool {
            let name = place == .metadata ? "\(attribute.stream):\(attribute.name)" : attribute.name
            return !(taken[place]?.contains(name) ?? false)
        }
        let fitsContentDescription =
            attribute.kind == .unicode && ASFAttribute.contentDescriptionNames.contains(attribute.name) && free(.contentDescription)
        switch preferred {
        case .contentDescription? where fitsContentDescription: return .contentDescription
        case .extendedContentDescription? where free(.extendedContentDescription): return .extendedContentDescription
        case .metadata? where free(.metadata): return .metadata
        case .metadataLibrary?: return .metadataLibrary
        default: break
        }
        if attribute.stream != 0 { return free(.metadata) ? .metadata : .metadataLibrary }
        if fitsContentDescription { return .contentDescription }
        if ASFAttribute.contentDescriptionNames.contains(attribute.name) { return .metadataLibrary }
        return free(.extendedContentDescription) ? .extendedContentDescription : .metadataLibrary
    }

    /// The header's objects (without padding) holding `attributes`.
    private static func objects(_ attributes: [ASFAttribute], header: ASFHeader, languages: [String]) throws -> [[UInt8]] {
        func of(_ place: ASFAttribute.Place) -> [ASFAttribute] { attributes.filter { $0.place == place } }
        func oldOf(_ place: ASFAttribute.Place) -> [ASFAttribute] { header.attributes.filter { $0.place == place } }
        /// The object for `place`: nil to drop it, the old one when nothing changed.
        func rebuilt(_ place: ASFAttribute.Place, _ guid: ASFGUID, in objects: [ASFObject], _ build: ([ASFAttribute]) -> [UInt8])
            throws -> [UInt8]?
        {
            let new = of(place)
            let olds = objects.filter { $0.guid == guid }
            if olds.count == 1, new == oldOf(place) { return olds[0].bytes }
            if let damaged = olds.first(where: { header.damagedObjects.contains($0.offset) }) {
                throw MediaError(
                    .malformed, "a damaged ASF metadata object can be kept as it is, not changed", offset: damaged.offset)
            }
            guard new.count <= 0xFFFF else { throw MediaError(.invalidValue, "an ASF metadata object holds at most 65535 attributes") }
            return new.isEmpty ? nil : build(new)
        }
        let description = try rebuilt(.contentDescription, .contentDescription, in: header.objects, ASFHeaderWriter.contentDescription)
        let extended = try rebuilt(
            .extendedContentDescription, .extendedContentDescription, in: header.objects, ASFHeaderWriter.extendedContentDescription)
        let metadata = try rebuilt(.metadata, .metadata, in: header.extensionObjects) { ASFHeaderWriter.metadata($0, library: false) }
        let library = try rebuilt(.metadataLibrary, .metadataLibrary, in: header.extensionObjects) {
            ASFHeaderWriter.metadata($0, library: true)
        }
        let languageList = languages == header.languages ? nil : ASFHeaderWriter.languageList(languages)

        // The Header Extension's objects: each replaced in its place, new ones at the end.
        var inner: [[UInt8]] = []
        var placedMetadata = false, placedLibrary = false, placedLanguages = false
        for object in header.extensionObjects {
            switch object.guid {
            case .metadata:
                if !placedMetadata, let metadata { inner.append(metadata) }
                placedMetadata = true
            case .metadataLibrary:
                if !placedLibrary, let library { inner.append(library) }
                placedLibrary = true
            case .languageList where languageList != nil:
                if !placedLanguages, let languageList { inner.append(languageList) }
                placedLanguages = true
            default:
                inner.append(object.bytes)
            }
        }
        if !placedLanguages, let languageList { inner.insert(languageList, at: 0) }
        if !placedMetadata, let metadata { inner.append(metadata) }
        if !placedLibrary, let library { inner.append(library) }
        let extensionChanged = inner != header.extensionObjects.map(\.bytes)
        if extensionChanged, header.extensionIndex != nil, !header.isExtensionIntact {
            throw MediaError(.malformed, "the ASF Header Extension could not be read to its end; it is not rewritten")
        }

        var result: [[UInt8]] = []
        var placedDescription = false, placedExtended = false, placedExtension = false
        for object in header.objects {
            switch object.guid {
            case .contentDescription:
                if !placedDescription, let description { result.append(description) }
                placedDescription = true
            case .extendedContentDescription:
                if !placedExtended, let extended { result.append(extended) }
                placedExtended = true
            case .headerExtension where !placedExtension:
                placedExtension = true
                result.append(
                    extensionChanged ? ASFHeaderWriter.headerExtension(inner, reserved: header.extensionReserved) : object.bytes)
            case .padding:
                break
            default:
                result.append(object.bytes)
            }
        }
        if !placedDescription, let description { result.append(description) }
        if !placedExtended, let extended { result.append(extended) }
        if !placedExtension, !inner.isEmpty { result.append(ASFHeaderWriter.headerExtension(inner, reserved: nil)) }
        return result
    }
}
