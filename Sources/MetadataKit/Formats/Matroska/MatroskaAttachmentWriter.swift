#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the Attachments element of a save (RFC 9559 §5.1.6) from the
/// `Attachment/<FileName>` items, for ``MatroskaEditPlanner``.
///
/// - An attached file whose item is unchanged is copied byte for byte
///   (fonts and other files MetadataKit only lists, covers nobody touched),
///   and so is every child of the Attachments element that isn't a file
///   read (a damaged AttachedFile, a Void). A CRC-32 is recomputed.
/// - An attachment whose item is gone is removed; a non-picture item that
///   isn't one read from the file is refused (only pictures can be written).
/// - A new picture becomes an AttachedFile named by the cover-art convention
///   (RFC 9559 §22.7: `cover`, `small_cover`, `cover_land`,
///   `small_cover_land`): the item's name, with the extension of its type
///   (`.jpg` for JPEG, `.png` for PNG; other types are refused), or the next
///   free name when another picture has it. It gets FileDescription (when
///   the picture has one), FileName, FileMediaType, FileData and a FileUID:
///   the one of the attachment of the same name it replaces (Tags that
///   target it keep doing so), else a number derived from the picture.
enum MatroskaAttachmentWriter {
    /// An Attachments element larger than this is not rewritten.
    static let maximumSize: Int64 = 256 << 20

    /// The Attachments element's new data (empty: no attachments); nil when
    /// the items are the attachments read.
    static func data(
        _ items: [MetadataItem], old: [MatroskaAttachment], element: EBMLElement?, source: FileSource, url: URL
    ) throws -> [UInt8]? {
        let oldItems = old.map { $0.item(source: source, url: url) }
        if items.isStoredLike(oldItems) { return nil }
        var kept = Set<Int>()
        var pictures: [(name: String, artwork: Artwork)] = []
        for item in items {
            if let index = old.indices.first(where: { !kept.contains($0) && oldItems[$0].isStoredLike(item) }) {
                kept.insert(index)
                continue
            }
            let name = String(item.key.dropFirst("Attachment/".count))
            guard let artwork = item.value.picture else {
                throw MediaError(
                    .unsupportedFeature, "the attachment '\(name)' can only be kept or removed (only pictures are written as attachments)")
            }
            pictures.append((name, artwork))
        }
        var data: [UInt8] = []
        var hasCRC = false
        if let element {
            guard let end = element.end, end <= source.size, let size = element.dataSize, size <= maximumSize else {
                throw MediaError(
                    .unsupportedFeature, "the Attachments element is too large or runs past the file; it can't be rewritten",
                    offset: element.offset)
            }
            let starts = Dictionary(old.enumerated().map { ($1.elementOffset, $0) }, uniquingKeysWith: { first, _ in first })
            var position = element.dataOffset
            while position < end {
                guard let child = try? EBMLElement(parsing: source, at: position, limit: end), let childEnd = child.end, childEnd <= end
                else {
                    throw MediaError(.unsupportedFeature, "the Attachments element is damaged; it can't be rewritten", offset: position)
                }
                defer { position = childEnd }
                if child.id == MatroskaID.crc32 {
                    hasCRC = true
                    continue
                }
                if child.id == MatroskaID.attachedFile, let index = starts[child.offset], !kept.contains(index) { continue }
                data += try source.getBytes(at: child.offset, count: Int(childEnd - child.offset))
            }
        }
        let keptOld = kept.map { old[$0] }
        var usedNames = Set(keptOld.map { baseName($0.name) })
        var usedUIDs = Set(keptOld.compactMap(\.uid))
        for (name, artwork) in pictures {
            let chosen = try fileName(name, artwork: artwork, used: &usedNames)
            let replaced = old.indices.first { !kept.contains($0) && old[$0].name.lowercased() == chosen.lowercased() }
            let uid = uniqueUID(replaced.flatMap { old[$0].uid }, name: chosen, artwork: artwork, used: &usedUIDs)
            var file: [UInt8] = []
            if !artwork.description.isEmpty { file += EBML.element(MatroskaID.fileDescription, string: artwork.description) }
            file += EBML.element(MatroskaID.fileName, string: chosen)
            file += EBML.element(MatroskaID.fileMediaType, string: artwork.mimeType)
            file += EBML.element(MatroskaID.fileData, [UInt8](try artwork.readBytes()))
            file += EBML.element(MatroskaID.fileUID, unsigned: uid)
            data += EBML.element(MatroskaID.attachedFile, file)
        }
        guard !data.isEmpty else { return [] }
        return hasCRC ? EBMLCRC32.prefixed(data) : data
    }

    /// The name without its extension, lowercased.
    static func baseName(_ name: String) -> String {
        let lower = name.lowercased()
        return lower.lastIndex(of: ".").map { String(lower[..<$0]) } ?? lower
    }

    /// The file name a picture gets: a free cover-art name with its type's extension.
    static func fileName(_ name: String, artwork: Artwork, used: inout Set<String>) throws -> String {
        let ext: String
        switch artwork.mimeType {
        case "image/jpeg": ext = "jpg"
        case "image/png": ext = "png"
        default: throw MediaError(.invalidValue, "Matroska cover art must be JPEG or PNG, not \(artwork.mimeType)")
        }
        let base = baseName(name)
        guard MatroskaAttachment.coverNames.contains(base) else {
            throw MediaError(
                .invalidValue, "a picture attachment must be named cover, small_cover, cover_land or small_cover_land, not '\(name)'")
        }
        for candidate in [base, "cover", "small_cover", "cover_land", "small_cover_land"] where used.insert(candidate).inserted {
            return "\(candidate).\(ext)"
        }
        throw MediaError(.invalidValue, "a Matroska file holds at most four pictures (the four cover-art names)")
    }

    /// `wanted` when free, else a non-zero UID derived from the picture (FNV-1a).
    static func uniqueUID(_ wanted: UInt64?, name: String, artwork: Artwork, used: inout Set<UInt64>) -> UInt64 {
        if let wanted, wanted != 0, used.insert(wanted).inserted { return wanted }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in "\(name)/\(artwork.byteCount)/\(artwork.mimeType)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        while hash == 0 || !used.insert(hash).inserted { hash = (hash ^ 0x9E37_79B9_7F4A_7C15) &* 0x100_0000_01B3 }
        return hash
    }
}
