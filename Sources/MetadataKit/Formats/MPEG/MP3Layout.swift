#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the tags of an MP3 file lie, found the same way for reading and
/// for writing:
///
///     [ID3v2] [ID3v2 …] [junk] audio frames [ID3v2 with footer] [APEv2] [Lyrics3v2] [TAG+] [ID3v1]
///
/// **Stacked tags.** Some taggers leave further complete ID3v2 tags right
/// after the first one (each with its own "ID3" header). They are all read
/// and merged into one view: the first tag wins per frame — a frame of a
/// later tag (or of a tag appended at the end) is taken only when no earlier
/// tag has a frame with the same key: the frame ID with its description,
/// owner or e-mail where the frame has one (`TXXX:MOOD`, `COMM:iTunNORM`,
/// `PRIV:owner`), `APIC` with its description, v2.2 IDs counted as their
/// v2.3 names. Within one tag every frame is kept. A save writes one tag
/// holding the merged frames, and the audio starts after all of them. The
/// frames a later tag loses are reported as a warning.
struct MP3Layout {
    /// The ID3v2 tags at the start of the file: the first, then those stacked after it.
    var leading: [ID3v2Tag] = []
    /// Where the audio starts: after the last leading tag (at most the end of the file).
    var audioStart: Int64 = 0
    /// The tags at the end.
    var trailer: MP3Trailer
    /// An ID3v2 tag appended at the end (ID3v2.4.0 structure §5).
    var appended: ID3v2Tag?
    /// The frames of every ID3v2 tag, merged (see above), in file order.
    var frames: [ID3v2FrameRecord] = []
    /// Local damage read around, in file order.
    var warnings: [MediaWarning] = []

    /// Leading ID3v2 tags read after the first.
    static let maximumLeadingTags = ID3v2Header.maximumLeadingTags

    /// Every tag read: the leading ones, then the appended one.
    var tags: [ID3v2Tag] { leading + (appended.map { [$0] } ?? []) }

    /// Fills ``frames`` and ``warnings`` from the tags.
    private mutating func merge() {
        let tags = self.tags
        if tags.count == 1 {
            frames = tags[0].frames
            warnings = tags[0].warnings
            return
        }
        var seen: Set<String> = []
        for (index, tag) in tags.enumerated() {
            warnings += tag.warnings
            var keys: Set<String> = []
            var shadowed = 0
            for frame in tag.frames {
                let key = Self.mergeKey(frame)
                if index > 0, seen.contains(key) {
                    shadowed += 1
                    continue
                }
                keys.insert(key)
                frames.append(frame)
            }
            seen.formUnion(keys)
            let isAppended = appended != nil && index == tags.count - 1
            if index > 0 {
                let what = isAppended ? "ID3v2 tag appended at the end" : "ID3v2 tag \(index + 1) stacked after the first"
                warnings.append(
                    MediaWarning(
                        .malformed,
                        "\(what): \(tag.frames.count - shadowed) of its \(tag.frames.count) frames read"
                            + (shadowed > 0 ? ", \(shadowed) shadowed by an earlier tag (a save drops them)" : "")
                            + "; a save merges it into one tag", offset: tag.header.offset))
            }
        }
    }

    /// The key under which frames of different tags replace each other.
    static func mergeKey(_ frame: ID3v2FrameRecord) -> String {
        guard let item = frame.item else { return frame.id }
        let split = ID3v2FrameEncoder.split(item.key)
        var id = split.id
        if id.utf8.count == 3, let upgraded = ID3v2FrameMapping.upgradedIDs[id] { id = upgraded }
        if let picture = item.value.picture { return "\(id):\(picture.description)" }
        return split.description.map { "\(id):\($0)" } ?? id
    }

    /// The ID3v2 version a save with `option` writes: 2.3 and 2.4 stay as the
    /// first tag has them; 2.2 and untagged files get 2.4.
    func version(for option: SaveOptions.ID3v2Version) -> UInt8 {
        switch option {
        case .v2_3: return 3
        case .v2_4: return 4
        case .keep: return leading.first?.header.majorVersion == 3 ? 3 : 4
        }
    }

    /// The writer for the merged frames (with the first tag's unparsed bytes).
    func tagWriter(_ source: FileSource, version: UInt8) -> ID3v2TagWriter {
        var writer = ID3v2TagWriter(source: source, version: version, existing: frames)
        if let first = leading.first, let unparsed = first.unparsed {
            writer.unparsed = (unparsed, first.header.majorVersion, first.isCopyable)
        }
        return writer
    }

    /// Why a save can't keep the tags as read, whatever the frames: a tag
    /// cut by the end of the file, a tag of a version that is not read, or
    /// bytes of a further tag that could not be read. Nil when there is none.
    func tagObstacle() -> MediaError? {
        for tag in tags {
            if tag.isTruncated {
                return MediaError(
                    .truncated, "the ID3v2 tag runs past the end of the file: the file is cut, and a save could not keep the tag",
                    offset: tag.header.offset + 6)
            }
            if tag.isUnreadable {
                return MediaError(
                    .unsupportedFeature, "the ID3v2.\(tag.header.majorVersion) tag is not read, and a save could not keep it",
                    offset: tag.header.offset)
            }
            if let unparsed = tag.unparsed, tag.header.offset != leading.first?.header.offset {
                return MediaError(
                    .unsupportedFeature, "bytes of a further ID3v2 tag could not be read as frames, and a merged tag could not keep them",
                    offset: unparsed.lowerBound)
            }
        }
        return nil
    }

    /// Why a save writing ID3v2 `version` with every frame as read can't keep
    /// them all; nil when it can (the file is then editable).
    func obstacle(version: UInt8, source: FileSource) -> MediaError? {
        tagObstacle() ?? tagWriter(source, version: version).obstacleKeepingEveryFrame()
    }
}

extension MP3Layout {
    init(parsing source: FileSource, url: URL) throws {
        var leading: [ID3v2Tag] = []
        var audioStart: Int64 = 0
        while leading.count <= Self.maximumLeadingTags, audioStart < source.size {
            // A later tag whose header is broken is no tag: the audio (or junk) starts there.
            let header =
                leading.isEmpty
                ? try ID3v2Header.parse(from: source, at: audioStart)
                : (try? ID3v2Header.parse(from: source, at: audioStart)) ?? nil
            guard let header else { break }
            let tag = try ID3v2TagParser(source: source, url: url, header: header).tag()
            leading.append(tag)
            audioStart = min(header.end, source.size)
            if tag.isTruncated { break }
        }
        let trailer = try MP3Trailer(parsing: source, floor: audioStart)
        var layout = MP3Layout(leading: leading, audioStart: audioStart, trailer: trailer)
        if let header = trailer.appendedID3v2 {
            layout.appended = try ID3v2TagParser(source: source, url: url, header: header).tag()
        }
        layout.merge()
        self = layout
    }
}
