import Foundation

/// Writes the ID3 tags of an MP3 file.
///
/// The new file is laid out as
///
///     [new ID3v2 tag] audio [APEv2] [Lyrics3v2] [TAG+] [ID3v1]
///
/// - The leading ID3v2 tag (with any further tags right after it, which the
///   reader skips) is replaced by one new tag of the target version
///   (``SaveOptions/id3v2Version``; `.keep` keeps 2.3/2.4 and turns 2.2 and
///   untagged files into 2.4). Its frames come from ``ID3v2TagWriter``. No
///   ID3v2 tag is written when no `.id3` item is left.
/// - An ID3v2 tag appended at the end (v2.4 with a footer, structure §5) is
///   merged into the leading tag — its items are part of the file's items —
///   and removed.
/// - Audio bytes (from the end of the leading tags, junk included), APEv2
///   tags, Lyrics3 blocks and an Enhanced TAG are copied untouched.
/// - ID3v1 follows ``SaveOptions/id3v1``, written by ``ID3v1Writer`` from the
///   normalized metadata of the final items. Removing ID3v1 removes an
///   Enhanced TAG in front of it too.
/// - When the new tag fits the old space (``ID3v2PaddingPolicy``) and no block
///   is added or removed, the save is a set of same-size in-place patches;
///   otherwise a rewrite.
///
/// Values the tags can't hold throw `invalidValue` here, before anything is written.
enum MP3Writer {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        try plan(source, items, options, padding: .standard)
    }

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions,
                     padding policy: ID3v2PaddingPolicy) throws -> FileEditPlan {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        // The layout, found as MP3Reader finds it.
        let leading = try ID3v2Header.read(from: source, at: 0)
        var audioStart = leading?.end ?? 0
        if leading != nil {
            for _ in 0..<8 {
                guard let next = try? ID3v2Header.read(from: source, at: audioStart) else { break }
                audioStart = next.end
            }
        }
        let trailer = try MP3Trailer.scan(source, floor: audioStart)
        let v1Range: Range<Int64>? = trailer.id3v1Items != nil ? source.size - Int64(ID3v1Reader.length)..<source.size : nil
        let enhanced = trailer.skippedRanges.first { range in
            v1Range.map { range.upperBound == $0.lowerBound && range.count == ID3v1Reader.enhancedLength } ?? false
        }

        // What goes where.
        var removed: [Range<Int64>] = []
        if let appended = trailer.appendedID3v2 { removed.append(appended.offset..<appended.end) }
        let keepsV1 = !options.removesAllTags && options.id3v1 != .remove
        let writesV1 = keepsV1 && (v1Range != nil || options.id3v1 == .add)
        if let v1Range { removed.append(v1Range) }
        if !keepsV1, let enhanced { removed.append(enhanced) }

        var frames: [UInt8] = []
        var version: UInt8 = 4
        if !options.removesAllTags {
            switch options.id3v2Version {
            case .v2_3: version = 3
            case .v2_4: version = 4
            case .keep: version = leading?.majorVersion == 3 ? 3 : 4
            }
            var records: [ID3v2FrameRecord] = []
            if let leading { records += try ID3v2TagReader(source: source, url: url, header: leading).frames() }
            if let appended = trailer.appendedID3v2 {
                records += try ID3v2TagReader(source: source, url: url, header: appended).frames()
            }
            frames = try ID3v2TagWriter(source: source, version: version, existing: records).frames(for: items)
        }
        let v1 = writesV1 ? ID3v1Writer.tag(for: Metadata(items: items)) : nil

        // The tag keeps the old space when it fits there (even when the file is
        // rewritten for another reason), else gets the standard padding.
        let leadingBody = audioStart - Int64(ID3v2Header.length)
        var tag: [UInt8] = []
        if !frames.isEmpty {
            let reuses = audioStart > 0 && policy.reuses(space: leadingBody, content: frames.count)
            let padding = reuses ? Int(leadingBody) - frames.count : policy.padding(audioBytes: trailer.audioEnd - audioStart)
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
            position = range.upperBound
        }
        segments.append(.original(offset: position, length: source.size - position))
        if let v1 { segments.append(.bytes(v1)) }
        return .rewrite(FileEditPlan.coalesced(segments))
    }
}
