#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The new APEv2 tag of an MP3 save, when the file's APE tag (the one read
/// as items, ``MP3Trailer/apeTag``) changes: its range and its new bytes
/// (empty: removed). Nil when the tag stays as it is.
///
/// An MP3 keeps an APE tag it has, as TagLib does, but gets none added:
/// `.ape` items on a file without one are refused (`unsupportedFeature`).
/// A damaged tag whose items change is refused too (its unread bytes would
/// be lost). ``SaveOptions/removesAllTags`` keeps it, as before.
struct MP3APETagUpdate {
    var range: Range<Int64>
    var bytes: [UInt8]

    static func make(_ source: FileSource, trailer: MP3Trailer, items: [MetadataItem], options: SaveOptions) throws -> MP3APETagUpdate? {
        let wanted = items.filter { $0.keySpace == .ape }
        guard let tag = trailer.apeTag else {
            if !wanted.isEmpty, !options.removesAllTags {
                throw MediaError(.unsupportedFeature, "MetadataKit writes APEv2 items to an MP3 file only when it has an APEv2 tag")
            }
            return nil
        }
        guard !options.removesAllTags else { return nil }
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        guard !wanted.isStoredLike(try tag.metadataItems(source: source, url: url)) else { return nil }
        if tag.isDamaged {
            throw MediaError(
                .unsupportedFeature, "the APE tag is damaged; a save would lose the bytes that could not be read", offset: tag.start)
        }
        guard let range = trailer.skippedRanges.first(where: { $0.upperBound == tag.end }) else { return nil }
        return MP3APETagUpdate(range: range, bytes: try APETagWriter.tag(for: wanted, old: tag, source: source))
    }
}
