#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds an APEv2 tag: a header, the items, a footer (APEv2 specification;
/// header and footer as TagLib and mutagen write them: version 2000, the
/// header flagged "has header" and "is header", the footer "has header").
///
/// An item that reads back from the old tag exactly as it is asked for is
/// copied byte for byte (flags, key spelling and all). A new or changed
/// item keeps the spelling and the read-only and reserved flag bits of the
/// old item of the same key. Values are written as:
/// - `.string`/`.strings` (and numbers, as text): UTF-8, several values
///   separated by zero bytes; kind "external locator" for data type
///   ``MetadataDataType/apeLocator``, else text;
/// - `.picture`: binary, the description (a file name), a zero byte, the
///   image; under a `COVER ART (…)` key the key follows the picture's type;
/// - `.data`: binary.
///
/// Keys must be valid APEv2 keys and unique (case-insensitively); else the
/// save is refused with `invalidValue` before anything is written.
enum APETagWriter {
    /// The new tag's bytes; empty when `items` holds no `.ape` item.
    static func tag(for items: [MetadataItem], old: APETag?, source: FileSource) throws -> [UInt8] {
        let items = items.filter { $0.keySpace == .ape }
        guard !items.isEmpty else { return [] }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let oldItems = old?.items ?? []
        let oldModel = try old?.metadataItems(source: source, url: url) ?? []
        var used = Set<Int>()
        var keys: [String: Bool] = [:] // uppercased key → copied unchanged
        var body: [UInt8] = []
        for item in items {
            if let index = oldModel.indices.first(where: { !used.contains($0) && oldModel[$0].isStoredLike(item) }) {
                used.insert(index)
                let raw = oldItems[index]
                body += try source.getBytes(at: raw.offset, count: raw.length)
                let upper = item.key.uppercased()
                if keys[upper] == false {
                    throw MediaError(.invalidValue, "APEv2 tags hold one item per key; 'ape:\(item.key)' is given twice")
                }
                keys[upper] = true
                continue
            }
            var key = item.key
            if let picture = item.value.picture, APEPictureKeys.pictureType(ofKey: key.uppercased()) != nil {
                key = APEPictureKeys.key(for: picture.pictureType)
            }
            let upper = key.uppercased()
            guard keys[upper] == nil else {
                throw MediaError(.invalidValue, "APEv2 tags hold one item per key; 'ape:\(key)' is given twice")
            }
            keys[upper] = false
            let previous = oldItems.first { $0.key.uppercased() == upper }
            let keyBytes = previous?.keyBytes ?? Array(key.utf8)
            guard APETagItem.isValidKey(keyBytes) else {
                throw MediaError(
                    .invalidValue, "'\(key)' is not an APEv2 key (2–255 ASCII characters, not ID3, TAG, OggS or MP+)")
            }
            let (kind, value) = try encoded(item)
            let flags = (previous?.flags ?? 0) & ~UInt32(6) | kind.rawValue << 1
            var writer = ByteWriter(capacity: 9 + keyBytes.count + value.count)
            writer.write(UInt32(value.count), .little)
            writer.write(flags, .little)
            writer.write(keyBytes)
            writer.write(UInt8(0))
            writer.write(value)
            body += writer.bytes
        }
        let size = body.count + APETagFooter.length
        guard size <= Int(UInt32.max) else {
            throw MediaError(.invalidValue, "the APEv2 tag would be \(size) bytes; it holds at most 4 GiB")
        }
        var footer = APETagFooter(version: 2000, size: UInt32(size), itemCount: UInt32(items.count), flags: APETagFooter.hasHeaderFlag)
        var header = footer
        header.flags |= APETagFooter.isHeaderFlag
        footer.flags &= ~APETagFooter.isHeaderFlag
        return header.bytes + body + footer.bytes
    }

    /// The kind and value bytes of a new or changed item.
    private static func encoded(_ item: MetadataItem) throws -> (APETagItem.Kind, [UInt8]) {
        switch item.value {
        case .picture(let artwork):
            guard !artwork.description.utf8.contains(0) else {
                throw MediaError(.invalidValue, "an APEv2 picture's file name can't hold a zero character")
            }
            return (.binary, Array(artwork.description.utf8) + [0] + [UInt8](try artwork.readBytes()))
        case .data(let data):
            return (.binary, [UInt8](data))
        case .strings(let values):
            return (item.dataType == .apeLocator ? .locator : .text, Array(values.joined(separator: "\u{0}").utf8))
        default:
            let text = item.value.stringValue ?? ""
            return (item.dataType == .apeLocator ? .locator : .text, Array(text.utf8))
        }
    }
}
