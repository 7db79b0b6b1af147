#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writing and reading timed metadata tracks: a `meta` handler track whose
/// `mebx` sample entry declares the keys, one sample per group, and a `cdsc`
/// track reference to the track it describes (QTFF "Timed Metadata Media";
/// what AVFoundation's metadata adaptor writes).
public enum TimedMetadataTrack {
    /// The default timescale of written tracks: milliseconds.
    public static let timescale: UInt32 = 1000

    /// A writer input for `groups`, describing the track `describedTrackID`
    /// of the output.
    public static func input(
        for groups: [TimedMetadataGroup], describing describedTrackID: UInt32?,
        timescale: UInt32 = timescale, editList: [EditListEntry] = []
    ) -> AssetWriterInput {
        let format = MetadataSampleFormat(groups: groups)
        return AssetWriterInput(
            mediaType: .metadata, sampleDescriptions: [format.sampleEntry()], timescale: timescale,
            handlerType: "meta", handlerName: "Core Media Metadata", editList: editList,
            references: describedTrackID.map { [TrackReference(type: "cdsc", trackIDs: [$0])] } ?? [])
    }

    /// The timescale `document` is written in: its own, else the first of
    /// 1000, 600 and 90000 in which every time is a whole number of ticks
    /// (1000 when none is).
    public static func timescale(for document: TimedMetadataDocument) -> UInt32 {
        if let timescale = document.timescale { return timescale }
        var times: [Double] = []
        for group in document.groups {
            times += [group.start, group.duration ?? 0, group.mediaStart ?? 0]
        }
        let candidates: [UInt32] = [1000, 600, 90000]
        return candidates.first { scale in
            times.allSatisfy { time in
                let ticks = time * Double(scale)
                return abs(ticks - ticks.rounded()) < 1e-6
            }
        } ?? timescale
    }

    /// The samples of `groups`: one per group in start order, an empty group
    /// (the 8-byte empty sample) for every gap, the last open-ended group lasting
    /// until `movieDuration` seconds. Times are in `timescale` ticks. Throws
    /// `invalidValue` for groups out of order, with equal start times,
    /// overlapping, or starting (or ending) after the end of the movie.
    public static func samples(
        for groups: [TimedMetadataGroup], movieDuration: Double, timescale: UInt32 = timescale,
        trackID: UInt32 = 0
    ) throws -> [Sample] {
        try layout(for: groups, movieDuration: movieDuration, timescale: timescale, movieTimescale: timescale, trackID: trackID).samples
    }

    /// The samples and the edit list of `document` in a movie of
    /// `movieDuration` seconds and `movieTimescale`: groups whose
    /// ``TimedMetadataGroup/mediaStart`` differs from their start make an
    /// edit list that shows them at their start (the offset must be the same
    /// for every group).
    static func layout(
        for document: TimedMetadataDocument, movieDuration: Double, movieTimescale: UInt32,
        trackID: UInt32 = 0
    ) throws -> (samples: [Sample], editList: [EditListEntry], timescale: UInt32) {
        let timescale = timescale(for: document)
        let (samples, editList) = try layout(
            for: document.groups, movieDuration: movieDuration, timescale: timescale,
            movieTimescale: movieTimescale, trackID: trackID)
        return (samples, editList, timescale)
    }

    private static func layout(
        for groups: [TimedMetadataGroup], movieDuration: Double, timescale: UInt32,
        movieTimescale: UInt32, trackID: UInt32
    ) throws -> (samples: [Sample], editList: [EditListEntry]) {
        let format = MetadataSampleFormat(groups: groups)
        let scale = Double(timescale)
        func ticks(_ seconds: Double) throws -> Int64 {
            guard let value = Int64(exactly: (seconds * scale).rounded()), value.magnitude < 1 << 62 else {
                throw MediaError(.invalidValue, "\(seconds) s is out of range")
            }
            return value
        }
        // The movie's end: an open-ended last group ends there (not after: no stretching).
        guard movieDuration.isFinite, movieDuration >= 0 else { throw MediaError(.invalidValue, "the movie has no duration") }
        let movieEnd = try ticks(((movieDuration * scale + 1e-6).rounded(.down)) / scale)
        // Movie time minus media time, from the groups that give their media start.
        var offset: Int64 = 0
        var offsetGroup: Int?
        for (index, group) in groups.enumerated() {
            guard let mediaStart = group.mediaStart else { continue }
            let groupOffset = try ticks(group.start) - ticks(mediaStart)
            if let first = offsetGroup, groupOffset != offset {
                throw MediaError(.invalidValue, "groups \(first) and \(index) put \"mediaStart\" at different distances from \"start\"")
            }
            (offset, offsetGroup) = (groupOffset, offsetGroup ?? index)
        }
        var samples: [Sample] = []
        var time: Int64 = 0 // media time
        func append(_ bytes: [UInt8], until end: Int64) {
            samples.append(
                Sample(
                    trackID: trackID, data: bytes, decodeTime: time, presentationTime: time,
                    duration: end - time, timescale: timescale))
            time = end
        }
        let empty = try format.sample(for: TimedMetadataGroup(items: [], start: 0))
        var firstShown: Int64?
        for (index, group) in groups.enumerated() {
            let start = try ticks(group.start)
            guard start < movieEnd else {
                throw MediaError(
                    .invalidValue, "group \(index) starts at \(group.start) s, at or after the end of the movie (\(movieDuration) s)")
            }
            let mediaStart = start - offset
            guard mediaStart >= 0 else {
                throw MediaError(.invalidValue, "group \(index) starts at \(group.start) s, before its media start")
            }
            guard mediaStart >= time else {
                throw MediaError(
                    .invalidValue,
                    "group \(index) starts at \(group.start) s, before the previous group ends; groups must be in order with distinct start times"
                )
            }
            if firstShown == nil { firstShown = min(mediaStart, max(0, -offset)) }
            if mediaStart > time { append(empty, until: mediaStart) }
            let nextStart = index + 1 < groups.count ? try ticks(groups[index + 1].start) : nil
            if let nextStart, nextStart <= start {
                throw MediaError(
                    .invalidValue,
                    "groups \(index) and \(index + 1) start at \(group.start) and \(groups[index + 1].start) s; groups must be in order with distinct start times"
                )
            }
            var end = try group.duration.map { try start + ticks($0) } ?? nextStart ?? movieEnd
            if let nextStart, end > nextStart {
                guard group.duration == nil else {
                    throw MediaError(.invalidValue, "group \(index) lasts past the start of group \(index + 1)")
                }
                end = nextStart
            }
            guard end <= max(movieEnd, try ticks(movieDuration)) else {
                throw MediaError(
                    .invalidValue,
                    "group \(index) ends at \(group.start + (group.duration ?? 0)) s, after the end of the movie (\(movieDuration) s)")
            }
            guard end > start else { throw MediaError(.invalidValue, "group \(index) has no duration") }
            append(try format.sample(for: group), until: end - offset)
        }
        guard offset != 0, let firstShown else { return (samples, []) }
        // An edit list showing media time `firstShown` at movie time `firstShown + offset`.
        func movieUnits(_ ticks: Int64) -> Int64 { TimedMetadataTimeline.clamped(Double(ticks) * Double(movieTimescale) / scale) }
        var edits: [EditListEntry] = []
        if firstShown + offset > 0 { edits.append(EditListEntry(segmentDuration: movieUnits(firstShown + offset), mediaTime: -1)) }
        edits.append(EditListEntry(segmentDuration: movieUnits(time - firstShown), mediaTime: firstShown))
        return (samples, edits)
    }

    /// The groups of a timed metadata track (a `meta` track with a `mebx`
    /// entry), in seconds on the movie timeline (the track's edit list
    /// applied, see ``TimedMetadataGroup/mediaStart``). Empty groups (gaps)
    /// are left out; every group has its duration except a last one that
    /// lasts until the end of the movie (open-ended, as it is written).
    ///
    /// The samples are read on a thread outside Swift's cooperative pool.
    public static func groups(of track: AssetTrack, in asset: Asset) async throws(MediaError) -> [TimedMetadataGroup] {
        try await BlockingWork.loads.run { () throws(MediaError) in
            try MediaError.catching(path: asset.url.path) { try read(track, in: asset).groups }
        }
    }

    private static func read(_ track: AssetTrack, in asset: Asset) throws -> (groups: [TimedMetadataGroup], timescale: UInt32) {
        guard track.mediaType == .metadata, track.sampleDescriptionTypes.first == "mebx",
            let entry = track.sampleDescriptions.first
        else {
            throw MediaError(
                .unsupportedFeature, "track \(track.id) is not a timed metadata track with a 'mebx' sample entry", path: asset.url.path)
        }
        let format = try MetadataSampleFormat(sampleEntry: entry)
        let timeline = TimedMetadataTimeline(track: track, movieTimescale: asset.movieTimescale)
        let reader = try AssetReader(asset: asset)
        _ = try reader.addOutput(track: track)
        var groups: [TimedMetadataGroup] = []
        var lastEnd: Int64 = 0
        while let sample = try reader.nextSample() {
            guard let placed = timeline.place(time: sample.presentationTime, duration: sample.duration) else { continue }
            let items = try format.items(inSample: try sample.readBytes())
            guard !items.isEmpty else { continue }
            groups.append(
                TimedMetadataGroup(
                    items: items, start: timeline.seconds(placed.start), duration: timeline.seconds(placed.end - placed.start),
                    mediaStart: timeline.offset == 0 ? nil : timeline.seconds(placed.mediaStart)))
            lastEnd = placed.end
        }
        // A last group that lasts until the end of the movie (to the tick) is open-ended.
        let exact =
            asset.movieTimescale > 0 && timeline.timescale % Int64(asset.movieTimescale) == 0
            ? asset.movieDuration.multipliedReportingOverflow(by: timeline.timescale / Int64(asset.movieTimescale)) : nil
        let movieEnd =
            exact.flatMap { $0.overflow || asset.movieDuration <= 0 ? nil : $0.partialValue }
            ?? TimedMetadataTimeline.clamped(asset.durationSeconds * Double(timeline.timescale))
        if !groups.isEmpty, lastEnd >= movieEnd - 1 { groups[groups.count - 1].duration = nil }
        return (groups, UInt32(timeline.timescale))
    }

    /// The document of the first timed metadata track of `asset` (or of
    /// `trackID`): its groups, the track it describes, and the timescale its
    /// times are exact in. The samples are read on a thread outside Swift's
    /// cooperative pool.
    ///
    /// - Throws: ``MediaError`` — `unsupportedFeature` when there is no such
    ///   track, `notLoaded`, `malformed`, `truncated` or `io` from reading it.
    public static func document(of asset: Asset, trackID: UInt32? = nil) async throws(MediaError) -> TimedMetadataDocument {
        let candidates = asset.tracks.filter { $0.mediaType == .metadata && (trackID == nil || $0.id == trackID) }
        guard let track = candidates.first(where: { $0.sampleDescriptionTypes.first == "mebx" }) else {
            throw MediaError(.unsupportedFeature, "no timed metadata track\(trackID.map { " \($0)" } ?? "")", path: asset.url.path)
        }
        let describes = track.references.first { $0.type == "cdsc" }?.trackIDs.first
        let (groups, timescale) = try await BlockingWork.loads.run { () throws(MediaError) in
            try MediaError.catching(path: asset.url.path) { try read(track, in: asset) }
        }
        return TimedMetadataDocument(describes: describes.map(Int.init), groups: groups, timescale: timescale)
    }
}
