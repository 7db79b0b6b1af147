#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// New chapters for a save of an MP4/QuickTime file, written as ffmpeg
/// writes them: a Nero `udta/chpl` list and a QuickTime text chapter track.
///
/// - Every text track that a `tref/chap` names is dropped with its reference
///   (its sample bytes stay in their `mdat`, unreferenced); other `chap`
///   references (a chapter picture track) are kept.
/// - The new chapter track (disabled, not in the movie, `mdhd` timescale
///   1000, a `text` handler and QuickTime `text` sample entry, one chunk) is
///   added after the last track; the first audio track (else video) names it
///   in `tref/chap`; `mvhd`'s next track ID moves past it. Its samples go in
///   a new `mdat` whose position the planner sets in ``dataOffset``.
/// - The track is written when the first chapter starts at 0 and each
///   starts no earlier than the one before (a text track is a gapless run of
///   samples), and the file has an audio or video track; else only `chpl`,
///   which then must hold every chapter (at most 255).
/// - An empty list removes `chpl`, the chapter tracks and their references.
/// - One flat table: nested chapters or several tables are refused.
struct MP4ChapterEdit {
    /// The `chpl` to write; nil removes it.
    let list: MP4ChapterList?
    /// Per chapter sample of the new track (nil: no track).
    let samples: [[UInt8]]?
    /// Each sample's duration in milliseconds.
    let durations: [UInt32]
    /// Text chapter tracks that are dropped.
    let removedTrackIDs: Set<UInt32>
    let newTrackID: UInt32
    /// The track that names the new chapter track.
    let referrerID: UInt32?
    let movieTimescale: UInt32
    /// File offset of the first sample (the new `mdat`'s payload).
    var dataOffset: Int64 = 0
    /// Whether the track's chunk offset is a `co64` (set before the first
    /// build, so the size of `moov` doesn't depend on ``dataOffset``).
    var usesLargeOffsets = false

    init(tables: [ChapterTable], moov: MP4Box, source: FileSource) throws {
        let nonEmpty = tables.filter { !$0.chapters.isEmpty }
        guard nonEmpty.count <= 1 else {
            throw MediaError(.unsupportedFeature, "an MP4 file holds one chapter list, not \(nonEmpty.count)")
        }
        let chapters = nonEmpty.first?.chapters ?? []
        guard chapters.allSatisfy({ $0.chapters.isEmpty }) else {
            throw MediaError(.unsupportedFeature, "MP4 chapters can't be nested")
        }
        guard chapters.allSatisfy({ $0.start.isFinite && $0.start >= 0 && ($0.end.map { $0.isFinite && $0 >= 0 } ?? true) })
        else {
            throw MediaError(.invalidValue, "chapter times must be finite and not negative")
        }
        var trackIDs: [UInt32] = []
        var handlers: [UInt32: FourCC] = [:]
        for trak in moov.children("trak") {
            let boxes = MP4TrackBoxes(trak: trak, source: source)
            guard let id = try boxes.trackHeader()?.trackID else { continue }
            trackIDs.append(id)
            handlers[id] = try boxes.handler()?.handlerType
        }
        let referenced = MP4ChapterTrack.referencedIDs(in: moov, source: source)
        var removed = Set<UInt32>()
        for trak in moov.children("trak") {
            let boxes = MP4TrackBoxes(trak: trak, source: source)
            guard let id = try boxes.trackHeader()?.trackID, referenced.contains(id),
                let entry = try boxes.sampleDescriptions()?.firstEntry(in: source, depth: MP4TrackBoxes.sampleEntryDepth),
                MP4ChapterTrack.textEntries.contains(entry.type)
            else { continue }
            removed.insert(id)
        }
        removedTrackIDs = removed
        let timing = MP4Chapters.movieTiming(moov, source: source)
        movieTimescale = timing?.timescale ?? 1000
        let kept = trackIDs.filter { !removed.contains($0) }
        referrerID = kept.first { handlers[$0] == "soun" } ?? kept.first { handlers[$0] == "vide" }
        var next: UInt32 = (kept.max() ?? 0) &+ 1
        if let mvhd = moov.child("mvhd"), let stored = try Self.nextTrackID(mvhd.header, source: source) { next = max(next, stored) }
        guard next != 0, next != .max else { throw MediaError(.unsupportedFeature, "no track ID is left for a chapter track") }
        newTrackID = next

        list = chapters.isEmpty ? nil : MP4ChapterList(chapters: chapters)
        let starts = chapters.map { Int64(($0.start * 1000).rounded()) }
        let movieEnd = timing?.seconds
        let gapless = starts.first == 0 && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 }
        if !chapters.isEmpty, gapless, referrerID != nil, chapters.count <= MP4ChapterTrack.maxChapters {
            var durations: [UInt32] = []
            for index in chapters.indices {
                let end =
                    index + 1 < chapters.count
                    ? starts[index + 1] : Int64(((chapters[index].end ?? movieEnd ?? chapters[index].start + 1) * 1000).rounded())
                durations.append(UInt32(clamping: max(index + 1 < chapters.count ? 0 : 1, end - starts[index])))
            }
            self.durations = durations
            samples = chapters.map { chapter in
                let title = Array(MP4ChapterList.cut(chapter.title ?? "", to: Int(UInt16.max)).utf8)
                var writer = ByteWriter(capacity: title.count + 14)
                writer.write(UInt16(title.count))
                writer.write(title)
                writer.write(MP4ChapterTrack.encodingAtom)
                return writer.bytes
            }
        } else {
            guard chapters.count <= 255 else {
                throw MediaError(
                    .unsupportedFeature,
                    "\(chapters.count) chapters need a chapter track (at most 255 fit in 'chpl'), "
                        + "which needs the first chapter at 0 and chapters in order")
            }
            durations = []
            samples = nil
        }
    }

    /// `mvhd`'s next_track_ID (§8.2.2: the last field; after 96 bytes of a v0
    /// payload, 108 of a v1).
    static func nextTrackID(_ mvhd: MP4BoxHeader, source: FileSource) throws -> UInt32? {
        var reader = try source.mp4Payload(of: mvhd, upTo: 112)
        let version = try reader.readUInt8()
        let position = version == 1 ? 108 : 96
        guard reader.remaining >= position + 4 - 1 else { return nil }
        try reader.skip(position - 1)
        return try reader.readUInt32()
    }

    /// `mvhd` with next_track_ID past the new track (copied otherwise).
    func movieHeader(_ mvhd: MP4BoxHeader, source: FileSource) throws -> MP4Node {
        guard samples != nil, let stored = try Self.nextTrackID(mvhd, source: source), stored <= newTrackID else {
            return .original(mvhd)
        }
        var bytes = try source.getBytes(at: mvhd.offset, count: Int(mvhd.size))
        let version = bytes[mvhd.headerSize]
        let position = mvhd.headerSize + (version == 1 ? 108 : 96)
        let value = newTrackID + 1
        for index in 0..<4 { bytes[position + index] = UInt8(value >> UInt32(24 - 8 * index) & 0xFF) }
        return .bytes(bytes)
    }

    /// The new `mdat` holding the samples; empty without a track.
    var mediaData: [UInt8] {
        guard let samples else { return [] }
        return MP4MetadataEncoder.box("mdat", samples.flatMap { $0 })
    }

    /// The total size of the samples (what a placeholder offset needs).
    var mediaDataSize: Int64 { Int64(mediaData.count) }
}
