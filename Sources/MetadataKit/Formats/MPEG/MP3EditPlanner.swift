#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the ID3 tags of an MP3 file.
///
/// The new file is laid out as
///
///     [new ID3v2 tag] audio [APEv2] [Lyrics3v2] [TAG+] [ID3v1]
///
/// - The leading ID3v2 tag, with the tags stacked after it (``MP3Layout``),
///   is replaced by one new tag of the target version
///   (``SaveOptions/id3v2Version``; `.keep` keeps 2.3/2.4 and turns 2.2 and
///   untagged files into 2.4) holding the merged frames. Its frames come from
///   ``ID3v2TagWriter``, which keeps every frame it can't re-encode byte for
///   byte or refuses the save. No ID3v2 tag is written when no `.id3` item
///   is left.
/// - An ID3v2 tag appended at the end (v2.4 with a footer, structure §5,
///   or a v2.3/v2.4 tag without one ending right before ID3v1 or the end,
///   see ``MP3Trailer``) is merged into the leading tag — its items are part of the file's items —
///   and removed.
/// - Audio bytes (from the end of the leading tags, junk included), APEv2
///   tags, Lyrics3 blocks and an Enhanced TAG are copied untouched, except
///   the APEv2 tag read as items: rebuilt when they change (TagLib updates an
///   APE tag an MP3 has; none is added).
/// - ID3v1 follows ``SaveOptions/id3v1``; ``ID3v1Writer`` updates only the
///   fields whose value changes. Removing ID3v1 removes an Enhanced TAG in
///   front of it too.
/// - When the new tag fits the old space (``ID3v2PaddingPolicy``) and no block
///   is added or removed, the save is a set of same-size in-place patches;
///   otherwise a rewrite.
///
/// Values the tags can't hold throw `invalidValue`, and tags that can't be
/// kept (a tag cut by the end of the file, frames that can only be copied
/// into a tag of their version) `unsupportedFeature` or `truncated`, here,
/// before anything is written.
enum MP3EditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        try plan(source, items, options, padding: .standard)
    }

    /// The plan from the load's layout (``MP3Parser`` gives it as the edit
    /// basis) when there is one, else from a new parse of `source`.
    static func plan(
        _ source: FileSource, basis: (any Sendable)?, _ items: [MetadataItem], _ options: SaveOptions
    ) throws -> FileEditPlan {
        try plan(source, items, options, padding: .standard, layout: basis as? MP3Layout)
    }

    /// The ID3v1 fields a save of `items` changes, with what they can hold;
    /// nil when the save writes no ID3v1 tag.
    static func id3v1Update(
        _ source: FileSource, _ layout: MP3Layout, _ items: [MetadataItem],
        _ options: SaveOptions
    ) throws -> ID3v1Writer.Update? {
        let hasV1 = layout.trailer.id3v1Items != nil
        guard !options.removesAllTags, options.id3v1 != .remove, hasV1 || options.id3v1 == .add else { return nil }
        let existing = hasV1 ? try source.getBytes(at: source.size - Int64(ID3v1Parser.length), count: ID3v1Parser.length) : nil
        let loaded = layout.frames.items + (layout.trailer.id3v1Items ?? [])
        return ID3v1Writer.update(existing, loaded: loaded, items: items)
    }

    static func plan(
        _ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions,
        padding policy: ID3v2PaddingPolicy, layout known: MP3Layout? = nil
    ) throws -> FileEditPlan {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let layout = try known ?? MP3Layout(parsing: source, url: url)
        if let truncated = layout.tags.first(where: \.isTruncated) {
            throw MediaError(
                .truncated, "the ID3v2 tag runs past the end of the file: the file is cut, and a save could not keep the tag",
                offset: truncated.header.offset + 6)
        }
        let audioStart = layout.audioStart
        let trailer = layout.trailer
        let v1Range: Range<Int64>? = trailer.id3v1Items != nil ? source.size - Int64(ID3v1Parser.length)..<source.size : nil
        let enhanced = trailer.skippedRanges.first { range in
            v1Range.map { range.upperBound == $0.lowerBound && range.count == ID3v1Parser.enhancedLength } ?? false
        }

        // What goes where.
        var removed: [Range<Int64>] = []
        if let appended = trailer.appendedID3v2 { removed.append(appended.offset..<appended.end) }
        let keepsV1 = !options.removesAllTags && options.id3v1 != .remove
        if let v1Range { removed.append(v1Range) }
        if !keepsV1, let enhanced { removed.append(enhanced) }

        // An APEv2 tag the file has is rebuilt when its items change (see ``MP3APETagUpdate``).
        let apeUpdate = try MP3APETagUpdate.make(source, trailer: trailer, items: items, options: options)
        if let apeUpdate { removed.append(apeUpdate.range) }

        var frames: [UInt8] = []
        let version = layout.version(for: options.id3v2Version)
        if !options.removesAllTags {
            if let problem = layout.tagObstacle() { throw problem }
            frames = try layout.tagWriter(source, version: version).frames(for: items)
        }
        let v1 = try id3v1Update(source, layout, items, options)?.bytes

        // The tag keeps the old space when it fits there (even when the file is
        // rewritten for another reason), else gets the standard padding.
        let leadingBody = audioStart - Int64(ID3v2Header.length)
        var tag: [UInt8] = []
        if !frames.isEmpty {
            let reuses = audioStart > 0 && policy.reuses(space: leadingBody, content: frames.count)
            var padding = reuses ? Int(leadingBody) - frames.count : policy.padding(audioBytes: trailer.audioEnd - audioStart)
            // Bytes that could not be read end the tag, with no padding after them:
            // a frame size there that ran past the old end runs past the new one too,
            // so they read back as they did (and are kept again by the next save).
            if !options.removesAllTags, layout.leading.first?.unparsed != nil {
                padding = 0
            }
            // A large file whose tag grows: padding up to whole file system
            // blocks, so the save can insert blocks instead of moving the audio.
            else if !reuses, let block = MP4EditPlanner.insertionBlock(for: source) {
                let size = Int64(ID3v2Header.length + frames.count + padding)
                padding += Int((block - (size - audioStart) % block) % block)
            }
            tag = try ID3v2TagWriter.tag(frames: frames, version: version, padding: padding)
        }

        // Same size: patch the tag in its old space and the ID3v1 tag in place.
        let layoutKept = removed == (v1Range.map { [$0] } ?? []) && (v1 != nil) == (v1Range != nil)
        if layoutKept, Int64(tag.count) == audioStart {
            var patches: [(offset: Int64, bytes: [UInt8])] = []
            if let patch = try FileEditPlan.changedPatch(of: tag, at: 0, in: source) { patches.append(patch) }
            if let v1, let v1Range, let patch = try FileEditPlan.changedPatch(of: v1, at: v1Range.lowerBound, in: source) {
                patches.append(patch)
            }
            return .inPlace(patches)
        }

        // New layout.
        var segments: [FileEditPlan.Segment] = tag.isEmpty ? [] : [.bytes(tag)]
        var position = audioStart
        for range in removed.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            segments.append(.original(offset: position, length: range.lowerBound - position))
            if let apeUpdate, range == apeUpdate.range, !apeUpdate.bytes.isEmpty { segments.append(.bytes(apeUpdate.bytes)) }
            position = range.upperBound
        }
        segments.append(.original(offset: position, length: source.size - position))
        if let v1 { segments.append(.bytes(v1)) }
        return .rewrite(FileEditPlan.coalesced(segments))
    }
}
