#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The checks of an MP3's ID3 tags: stacked tags (whether merging them
/// keeps every frame), v2.4 frames in a v2.3 tag, and an ID3v1 tag out of
/// step with ID3v2.
enum ID3Checks {
    /// Frames ID3v2.4 defines that ID3v2.3 does not (ID3v2.4.0 changes, §4).
    static let v24OnlyFrames: Set<String> = [
        "ASPI", "EQU2", "RVA2", "SEEK", "SIGN", "TDEN", "TDOR", "TDRC", "TDRL", "TDTG", "TIPL", "TMCL", "TMOO", "TPRO",
        "TSOA", "TSOP", "TSOT", "TSST",
    ]
    /// The v2.4 frames a save into a v2.3 tag converts (TDRC → TYER/TDAT/TIME, TDOR → TORY).
    static let convertedFrames: Set<String> = ["TDRC", "TDOR"]

    /// Whether merging the stacked tags into one would drop a frame whose
    /// value differs from the frame that shadows it; the reason when it would.
    static func stackedLoss(_ layout: MP3Layout, source: FileSource) -> String? {
        if let obstacle = layout.tagObstacle() { return obstacle.reason }
        let tags = layout.tags
        guard tags.count > 1 else { return nil }
        var kept: [String: [ID3v2FrameRecord]] = [:]
        for frame in tags[0].frames { kept[MP3Layout.mergeKey(frame), default: []].append(frame) }
        var lost: [String] = []
        for tag in tags.dropFirst() {
            var keys: [String: [ID3v2FrameRecord]] = [:]
            for frame in tag.frames {
                let key = MP3Layout.mergeKey(frame)
                guard let earlier = kept[key] else {
                    keys[key, default: []].append(frame)
                    continue
                }
                if !earlier.contains(where: { same($0, frame, source: source) }) { lost.append(frame.id) }
            }
            kept.merge(keys) { old, _ in old }
        }
        guard !lost.isEmpty else { return nil }
        return "merging would drop the later tag's \(lost.joined(separator: ", ")), which differ from the first tag's; "
            + "merge them by hand (mdkit write) first"
    }

    /// Whether two frames hold the same value (pictures: the same bytes).
    private static func same(_ a: ID3v2FrameRecord, _ b: ID3v2FrameRecord, source: FileSource) -> Bool {
        if let left = a.item, let right = b.item {
            guard let first = left.value.picture, let second = right.value.picture else { return left == right }
            guard first.mimeType == second.mimeType, first.pictureType == second.pictureType,
                first.description == second.description, first.byteCount == second.byteCount
            else { return false }
            return (try? first.readBytes() == second.readBytes()) ?? false
        }
        guard a.range.count == b.range.count, a.range.count <= 1 << 24 else { return false }
        // Undecoded frames: the same bytes after the header.
        let header = ID3v2Header.length
        let left = try? source.getBytes(at: a.range.lowerBound + Int64(header), count: Int(a.range.count) - header)
        let right = try? source.getBytes(at: b.range.lowerBound + Int64(header), count: Int(b.range.count) - header)
        return left != nil && left == right
    }

    /// v2.4-only frames in v2.3 tags: one finding per tag that has them.
    static func v24FramesInV23(_ layout: MP3Layout, isEditable: Bool) -> [Finding] {
        var findings: [Finding] = []
        for tag in layout.tags where tag.header.majorVersion == 3 {
            let frames = tag.frames.filter { v24OnlyFrames.contains($0.id) }
            guard let first = frames.first else { continue }
            let ids = Array(Set(frames.map(\.id))).sorted()
            var note: String?
            if let other = ids.first(where: { !convertedFrames.contains($0) }) {
                note = "\(other) has no ID3v2.3 form a repair could convert it to; save as ID3v2.4 (mdkit write --id3v2.4)"
            } else if let disagreement = dateDisagreement(tag) {
                note = disagreement
            }
            findings.append(
                Finding(
                    .id3V23HoldsV24Frame, .warning,
                    "the ID3v2.3 tag holds the ID3v2.4 frame\(ids.count > 1 ? "s" : "") \(ids.joined(separator: ", ")), "
                        + "which v2.3 readers don't know", byteOffset: first.range.lowerBound,
                    isFixable: isEditable && note == nil, fixNote: note ?? "a save converts TDRC to TYER/TDAT/TIME and TDOR to TORY"))
        }
        return findings
    }

    /// The year of an ID3 date text: the timestamp's year, else the text.
    static func year(_ text: String) -> String {
        ID3v2FrameMapping.Timestamp(text)?.year ?? text
    }

    /// `TYER` and `TDRC` of the merged tags naming different years (taggers
    /// that add the v2.3 frame to a v2.4 tag, or update one of them only).
    static func datesDisagree(_ items: [MetadataItem]) -> (tyer: String, tdrc: String)? {
        func text(_ key: String) -> String? { items.first { $0.keySpace == .id3 && $0.key == key }?.value.stringValue }
        guard let tyer = text("TYER"), let tdrc = text("TDRC"), year(tyer) != year(tdrc) else { return nil }
        return (tyer, tdrc)
    }

    /// Why converting the tag's TDRC would lose a date: a TYER that names another year.
    private static func dateDisagreement(_ tag: ID3v2Tag) -> String? {
        func text(_ id: String) -> String? { tag.frames.first { $0.id == id }?.item?.value.stringValue }
        guard let recorded = text("TDRC"), let year = text("TYER") else { return nil }
        guard Self.year(recorded) != Self.year(year) else { return nil }
        return "TDRC (\(recorded)) and TYER (\(year)) disagree; a repair would keep only TDRC's year — set the year by hand"
    }

    /// The ID3v1 fields (title, artist, album, year) that hold something
    /// else than the ID3v2 tag, with the item a repair sets for each.
    struct V1Disagreement {
        var field: String
        var v1: String
        var v2: String
        /// The `id3v1` item holding the ID3v2 value as ID3v1 holds it.
        var item: MetadataItem
    }

    static let v1Fields: [(key: String, field: MetadataField)] = [
        ("title", .title), ("artist", .artist), ("album", .album), ("year", .date),
    ]

    /// Compares the fields as ID3v1 can hold them (cut to 30 bytes, Latin-1,
    /// a four-digit year): a value the tag only cut or transliterated agrees.
    /// Fields empty in either tag are left alone.
    static func v1Disagreements(_ items: [MetadataItem], v1Bytes: [UInt8]) -> [V1Disagreement] {
        let v2 = Metadata(items: items.filter { $0.keySpace == .id3 })
        let v1Items = items.filter { $0.keySpace == .id3v1 }
        var result: [V1Disagreement] = []
        for (key, field) in v1Fields {
            guard let current = v1Items.first(where: { $0.key == key })?.value.stringValue, !current.isEmpty,
                let wanted = v2[field]?.text, !wanted.isEmpty
            else { continue }
            let item = MetadataItem(keySpace: .id3v1, key: key, value: .string(wanted), dataType: .latin1)
            var edited = items.filter { !($0.keySpace == .id3v1 && $0.key == key) }
            edited.append(item)
            let update = ID3v1Writer.update(v1Bytes, loaded: items, items: edited)
            guard let written = update.fields.first(where: { $0.field == key })?.written, written != current else { continue }
            // The item holds what ID3v1 will: a repair's description shows that.
            let stored = MetadataItem(keySpace: .id3v1, key: key, value: .string(written), dataType: .latin1)
            result.append(V1Disagreement(field: key, v1: current, v2: wanted, item: stored))
        }
        return result
    }
}
