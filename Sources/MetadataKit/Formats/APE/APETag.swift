#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An APE tag (APEv1 or APEv2) found at the end of a file: its place, its
/// footer and its items.
///
/// The items are read from the footer's tag size; an item count that lies is
/// read around (the bytes decide, the count is reported), and an item that
/// does not fit ends the reading with a warning and marks the tag
/// ``isDamaged`` (a save then refuses to rebuild it rather than lose bytes).
struct APETag: Sendable {
    /// First byte of the tag (its header, when it has one).
    var start: Int64
    /// The byte after the footer.
    var end: Int64
    var footer: APETagFooter
    /// Whether a header precedes the items.
    var hasHeader: Bool
    var items: [APETagItem]
    /// Bytes inside the tag that could not be read as items.
    var isDamaged = false
    var warnings: [MediaWarning] = []

    /// First byte of the items.
    var itemsStart: Int64 { start + (hasHeader ? Int64(APETagFooter.length) : 0) }
    /// The bytes after the footer's start that the items may use.
    var itemsEnd: Int64 { end - Int64(APETagFooter.length) }
}

extension APETag {
    /// Reads the tag whose footer ends at `end`, never looking below `floor`.
    /// Nil when there is no `APETAGEX` footer there; a footer whose size
    /// does not fit is reported in `warnings` and gives nil (its bytes are
    /// then taken as audio).
    static func find(in source: FileSource, endingAt end: Int64, floor: Int64, warnings: inout [MediaWarning]) throws -> APETag? {
        let footerLength = Int64(APETagFooter.length)
        guard end - floor >= footerLength else { return nil }
        let footerOffset = end - footerLength
        guard let footer = APETagFooter(parsing: try source.getBytes(at: footerOffset, count: APETagFooter.length)) else {
            return nil
        }
        let size = Int64(footer.size)
        guard size >= footerLength, size <= end - floor else {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange, "an APE tag footer declares \(size) bytes, which don't fit the file; it is read as audio",
                    offset: footerOffset + 12))
            return nil
        }
        var start = end - size
        var hasHeader = false
        if footer.hasHeader {
            if start - floor >= footerLength,
                APETagFooter.hasPreamble(try source.getBytes(at: start - footerLength, count: 8))
            {
                start -= footerLength
                hasHeader = true
            } else {
                warnings.append(
                    MediaWarning(.malformed, "an APE tag footer announces a header that is not there", offset: footerOffset + 20))
            }
        }
        var tag = APETag(start: start, end: end, footer: footer, hasHeader: hasHeader, items: [])
        try tag.readItems(source)
        warnings += tag.warnings
        return tag
    }

    /// Reads the items between the header and the footer.
    private mutating func readItems(_ source: FileSource) throws {
        var position = itemsStart
        let limit = itemsEnd
        while position < limit {
            do {
                let item = try APETagItem(parsing: source, at: position, end: limit)
                items.append(item)
                position = item.end
            } catch let error as MediaError {
                // Zero bytes after the items are padding some writers leave.
                let rest = try source.getBytes(at: position, count: Int(min(limit - position, 4096)))
                if limit - position <= 4096, rest.allSatisfy({ $0 == 0 }) { break }
                isDamaged = true
                warnings.append(MediaWarning(error))
                break
            }
        }
        if items.count != Int(footer.itemCount), !isDamaged {
            warnings.append(
                MediaWarning(
                    .malformed, "the APE tag footer counts \(footer.itemCount) items; the tag holds \(items.count)",
                    offset: itemsEnd + 16))
        }
        for item in items where !APETagItem.isValidKey(item.keyBytes) {
            warnings.append(
                MediaWarning(.malformed, "the APE tag item key '\(item.key)' is not a valid APEv2 key", offset: item.offset + 8))
        }
    }
}
