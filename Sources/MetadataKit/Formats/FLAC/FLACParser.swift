#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads native FLAC files (RFC 9639 §6–§8): STREAMINFO properties, the
/// VORBIS_COMMENT fields and the PICTURE blocks, as ``MetadataKeySpace/vorbis``
/// items (see ``VorbisComment``). A leading ID3v2 tag is skipped, not read.
///
/// Picture items (key `METADATA_BLOCK_PICTURE`) come after the comment's
/// fields, in block order; their image bytes stay in the file until asked
/// for. Several VORBIS_COMMENT blocks (forbidden by §8.6) are all read.
/// The Broadcast Wave chunks of `riff` APPLICATION blocks follow
/// (``FLACForeignMetadata``).
///
/// Forgiving: damage inside a block is read around and reported in
/// ``ParsedFile/warnings`` (see ``FLACTags``). The file stays editable: a
/// save keeps damaged blocks byte for byte while their items are unchanged
/// and refuses, before writing, a change that would rebuild one (see
/// ``FLACEditPlanner``).
enum FLACParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let layout = try FLACLayout(parsing: source)
        var streamReader = try source.reader(at: layout.blocks[0].bodyOffset, count: 34)
        let info = try FLACStreamInfo(parsing: &streamReader)
        let tags = try FLACTags(parsing: source, layout: layout)
        var items = tags.comment?.items() ?? []
        for (_, picture, _) in tags.pictures {
            let artwork = picture.artwork(source: source, url: url)
            items.append(
                MetadataItem(
                    keySpace: .vorbis, key: VorbisComment.pictureKey, value: .picture(artwork),
                    dataType: FLACPicture.dataType(of: artwork)))
        }
        let foreign = try FLACForeignMetadata.items(layout: layout, source: source, sampleRate: info.sampleRate)
        items += foreign.items
        let properties = info.properties(audioBytes: source.size - layout.audioStart)
        return ParsedFile(
            fileType: .flac, items: items, properties: properties, isEditable: true,
            warnings: (tags.warnings + foreign.warnings).sorted { ($0.offset ?? 0) < ($1.offset ?? 0) },
            chapterTables: VorbisChapters.tables(from: items, duration: properties.duration))
    }

    /// Items of the same text key (from several comment blocks) joined into one.
    static func merged(_ items: [MetadataItem]) -> [MetadataItem] {
        var result: [MetadataItem] = []
        var positions: [String: Int] = [:]
        for item in items {
            if case .picture = item.value {
                result.append(item)
                continue
            }
            if let position = positions[item.key] {
                result[position].value = .strings(result[position].value.stringValues + item.value.stringValues)
            } else {
                positions[item.key] = result.count
                result.append(item)
            }
        }
        return result
    }
}
