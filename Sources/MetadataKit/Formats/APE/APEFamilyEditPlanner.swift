#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of a file of the APEv2 family (see ``APEFileLayout``):
///
///     [ID3v2 tags] audio [new APEv2 tag] [Lyrics3 v2] [ID3v1]
///
/// - The APE tag is replaced by a new APEv2 tag with a header and a footer
///   (``APETagWriter``), in its old place; a file without one gets it right
///   after the audio, before any Lyrics3 block and ID3v1 tag. No tag is
///   written when no `.ape` item is left (or ``SaveOptions/removesAllTags``).
/// - Leading ID3v2 tags, the audio and a Lyrics3 block are kept byte for byte
///   (TrueAudio's ID3v2 tag is written by ``APEFamilyID3EditPlanner``).
/// - ID3v1 follows ``SaveOptions/id3v1`` as for MP3: an existing tag gets the
///   changed fields (``ID3v1Writer``), `.add` adds one, `.remove` removes it.
/// - Only the file's tail changes: a same-size tail is patched in place,
///   else the tail is replaced.
///
/// A damaged APE tag (bytes that could not be read as items) is not rebuilt:
/// the save is refused (`unsupportedFeature`) before anything is written. So
/// is a save of a stream cut short (``APEStreamCut``, `truncated`): its tag
/// would be decoded as the rest of the cut audio.
enum APEFamilyEditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let tail = try self.tail(source, items, options)
        if Int64(tail.bytes.count) == source.size - tail.offset {
            return .inPlace(try FileEditPlan.changedPatch(of: tail.bytes, at: tail.offset, in: source).map { [$0] } ?? [])
        }
        return .tail(offset: tail.offset, bytes: tail.bytes)
    }

    /// The file's new tail (from the end of the audio: the APE tag, a
    /// Lyrics3 block and ID3v1) and where it starts. `loaded` are items the
    /// file holds besides its APE and ID3v1 tags (a TrueAudio file's ID3v2
    /// frames), for ID3v1's changed fields.
    static func tail(
        _ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions, loaded other: [MetadataItem] = []
    ) throws -> (offset: Int64, bytes: [UInt8], layout: APEFileLayout) {
        let layout = try APEFileLayout(parsing: source)
        if let cut = try? APEStreamCut.check(source, layout.audioStart, layout.audioEnd) { throw APEStreamCut.refusal(cut) }
        if let tag = layout.tag, tag.isDamaged {
            throw MediaError(
                .unsupportedFeature, "the APE tag is damaged; a save would lose the bytes that could not be read", offset: tag.start)
        }
        let newTag = options.removesAllTags ? [] : try APETagWriter.tag(for: items, old: layout.tag, source: source)

        var v1: [UInt8]?
        let v1Range = layout.id3v1Range(fileSize: source.size)
        if !options.removesAllTags, options.id3v1 != .remove, v1Range != nil || options.id3v1 == .add {
            let existing = try v1Range.map { try source.getBytes(at: $0.lowerBound, count: ID3v1Parser.length) }
            let url = URL(fileURLWithPath: source.path, isDirectory: false)
            let loaded = try other + (layout.tag?.metadataItems(source: source, url: url) ?? []) + (layout.id3v1Items ?? [])
            v1 = ID3v1Writer.update(existing, loaded: loaded, items: items).bytes
        }

        // The new tail, from the first trailing byte.
        let tailStart = layout.audioEnd
        let trailingEnd = v1Range?.lowerBound ?? source.size
        var tail: [UInt8] = []
        if let old = layout.tag {
            tail += try source.getBytes(at: tailStart, count: Int(old.start - tailStart))
            tail += newTag
            tail += try source.getBytes(at: old.end, count: Int(trailingEnd - old.end))
        } else {
            tail += newTag
            tail += try source.getBytes(at: tailStart, count: Int(trailingEnd - tailStart))
        }
        if let v1 { tail += v1 }
        return (tailStart, tail, layout)
    }
}
