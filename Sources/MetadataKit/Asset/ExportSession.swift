import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copies an asset's tracks, sample for sample, into a new MP4/MOV/M4A
/// file ("passthrough": nothing is decoded or re-encoded), optionally cut to
/// a time range and with new metadata.
///
/// ```swift
/// let session = ExportSession(asset: asset, preset: .passthrough)
/// session.timeRange = ExportTimeRange(start: 2, end: 5)
/// session.metadata.title = "Cut"
/// let watcher = Task {
///     for await state in session.states() { print(state) }
/// }
/// try await session.export(to: out, as: .m4a)
/// await watcher.value
/// ```
///
/// A session is `Sendable`: its settings and progress are behind a lock, so
/// a `@MainActor` model can hold one, export from a task and watch
/// ``states()`` from another.
///
/// - Time ranges: each track starts at its last sync sample at or before the
///   range start (so decoding works) and ends after the last sample whose
///   presentation starts before the range end; an edit list (ISO/IEC 14496-12
///   §8.6.6) makes playback start exactly at the range start. Sources whose
///   edit lists have more than one media segment or a rate other than 1 can
///   be exported whole but not cut (`unsupportedFeature`).
/// - Fragmented MP4 is refused (`unsupportedFeature`), as by ``AssetReader``.
/// - The file is written beside the output under a temporary name, synced,
///   and moved into place at the end, then its folder is synced (as a save:
///   `F_FULLFSYNC` on Darwin): on any error or cancellation (Task
///   cancellation) nothing is left at ``outputURL``, and the input is never
///   written to.
public final class ExportSession: Sendable {
    /// How samples are carried to the output.
    public enum Preset: Sendable {
        /// Samples are copied as they are, never decoded or re-encoded.
        case passthrough
    }

    /// How ``metadata`` combines with the source's metadata.
    public enum MetadataPolicy: Sendable {
        /// Source metadata, with the set fields of ``metadata`` replacing
        /// theirs and its raw items replacing items of the same key.
        case merge
        /// Only ``metadata``; the source's is dropped.
        case replace
        /// Source metadata; ``metadata`` only fills fields the source lacks
        /// and its raw items are added beside the source's.
        case add
    }

    /// The loaded source; it is only read.
    public let asset: Asset
    /// How samples are carried (``Preset/passthrough``).
    public let preset: Preset

    /// The settings and progress, behind one lock: a session is shared
    /// between the task that exports and those that watch it.
    private let state = Mutex(Settings())

    private struct Settings {
        var outputURL: URL?
        var outputFileType: AssetFileType?
        var trackIDs: [UInt32]?
        var timeRange: ExportTimeRange?
        var metadata = Metadata()
        var metadataPolicy: MetadataPolicy = .merge
        var timedMetadata: [TimedMetadataDocument] = []
        var shouldOptimizeForNetworkUse = false
        var chunkDuration = 0.5
        var progressHandler: (@Sendable (Double) -> Void)?
        var progress: Double = 0
        var status: Status = .pending
        var watchers: [Int: AsyncStream<Status>.Continuation] = [:]
        var nextWatcher = 0
        var sizeLimit: Int64?
    }

    /// The file to write; must be set before exporting.
    public var outputURL: URL? {
        get { state.withLock { $0.outputURL } }
        set { state.withLock { $0.outputURL = newValue } }
    }
    /// The container; by default from the output's extension (mp4 when unknown).
    public var outputFileType: AssetFileType? {
        get { state.withLock { $0.outputFileType } }
        set { state.withLock { $0.outputFileType = newValue } }
    }
    /// Track IDs to export; when nil, every track with samples (for `.m4a`:
    /// the audio tracks and the tracks they refer to, such as chapters).
    public var trackIDs: [UInt32]? {
        get { state.withLock { $0.trackIDs } }
        set { state.withLock { $0.trackIDs = newValue } }
    }
    /// The part of the movie to export; all of it when nil.
    public var timeRange: ExportTimeRange? {
        get { state.withLock { $0.timeRange } }
        set { state.withLock { $0.timeRange = newValue } }
    }
    /// Metadata to write: normalized fields and raw items.
    public var metadata: Metadata {
        get { state.withLock { $0.metadata } }
        set { state.withLock { $0.metadata = newValue } }
    }
    /// How ``metadata`` combines with the source's.
    public var metadataPolicy: MetadataPolicy {
        get { state.withLock { $0.metadataPolicy } }
        set { state.withLock { $0.metadataPolicy = newValue } }
    }
    /// Timed metadata tracks to add to the output, one per document; each
    /// describes the track its ``TimedMetadataDocument/describes`` names (when
    /// exported), else the first video track.
    public var timedMetadata: [TimedMetadataDocument] {
        get { state.withLock { $0.timedMetadata } }
        set { state.withLock { $0.timedMetadata = newValue } }
    }
    /// Write `moov` before `mdat` ("fast start"). The chunk layout is planned
    /// from the source's sample tables first (no media is read for that), so
    /// the file is still written in one pass, without a temporary media file.
    public var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock { $0.shouldOptimizeForNetworkUse } }
        set { state.withLock { $0.shouldOptimizeForNetworkUse = newValue } }
    }
    /// Interleaving period in seconds.
    public var chunkDuration: Double {
        get { state.withLock { $0.chunkDuration } }
        set { state.withLock { $0.chunkDuration = newValue } }
    }
    /// Called with the fraction done (0...1), from the exporting task.
    public var progressHandler: (@Sendable (Double) -> Void)? {
        get { state.withLock { $0.progressHandler } }
        set { state.withLock { $0.progressHandler = newValue } }
    }
    /// The fraction done.
    public var progress: Double { state.withLock { $0.progress } }
    /// Where the export stands.
    public var status: Status { state.withLock { $0.status } }
    /// Largest `mdat` size and chunk offset written in 32 bits; nil for 4 GiB
    /// (lowered by tests to exercise the 64-bit layouts without writing 4 GiB).
    var sizeLimit: Int64? {
        get { state.withLock { $0.sizeLimit } }
        set { state.withLock { $0.sizeLimit = newValue } }
    }

    /// Where an export stands, as ``states()`` reports it.
    public enum Status: Sendable, Hashable {
        /// Not started.
        case pending
        /// Writing; the fraction done (0...1).
        case exporting(progress: Double)
        /// The output is in place.
        case completed
        /// Stopped by an error or cancellation; nothing is at the output.
        case failed
    }

    /// A session exporting `asset` with `preset`; set ``outputURL`` before
    /// exporting.
    public init(asset: Asset, preset: Preset = .passthrough) {
        self.asset = asset
        self.preset = preset
    }

    /// The states of the export from now on: the current one, then each
    /// change of the percentage done, ending after it completes or fails.
    /// Each call gives a sequence of its own; iterate it in another task
    /// while ``export(to:as:)`` runs.
    public func states() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream<Status>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let finished = state.withLock { settings -> Bool in
            continuation.yield(settings.status)
            guard settings.status != .completed, settings.status != .failed else { return true }
            settings.watchers[settings.nextWatcher] = continuation
            settings.nextWatcher += 1
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    /// Exports to `url` as `fileType` (by default from the extension); the
    /// other settings as set. See ``export()``.
    public func export(to url: URL, as fileType: AssetFileType? = nil) async throws(MediaError) {
        state.withLock {
            $0.outputURL = url
            if let fileType { $0.outputFileType = fileType }
        }
        try await export()
    }

    /// Sets the status and tells the watchers; a final status ends their sequences.
    private func setStatus(_ status: Status) {
        let watchers = state.withLock { settings -> [AsyncStream<Status>.Continuation] in
            settings.status = status
            if case .exporting(let fraction) = status { settings.progress = fraction }
            let watchers = Array(settings.watchers.values)
            if status == .completed || status == .failed { settings.watchers = [:] }
            return watchers
        }
        for watcher in watchers {
            watcher.yield(status)
            if status == .completed || status == .failed { watcher.finish() }
        }
    }

    /// Exports; see the type's documentation for what is guaranteed.
    ///
    /// - Throws: ``MediaError`` (`invalidValue` for a bad configuration,
    ///   `unsupportedFeature`, `io` e.g. for a full disk, read errors of the
    ///   source), `cancelled` when the task was cancelled.
    public func export() async throws(MediaError) {
        setStatus(.exporting(progress: 0))
        do {
            try await performExport()
        } catch {
            setStatus(.failed)
            if error is CancellationError {
                throw MediaError(.cancelled, "the export was cancelled", path: outputURL?.path)
            }
            throw MediaError.from(error)
        }
        setStatus(.completed)
    }

    private func performExport() async throws {
        guard asset.isLoaded else { throw MediaError(.notLoaded, "load the asset before exporting it", path: asset.url.path) }
        guard let outputURL else { throw MediaError(.invalidValue, "no output URL") }
        guard !Platform.isSameFile(outputURL.path, asset.url.path) else {
            throw MediaError(.invalidValue, "the output must not be the input", path: outputURL.path)
        }
        let fileType = outputFileType ?? AssetFileType(pathExtension: outputURL.pathExtension) ?? .mp4
        _ = try AssetReader(asset: asset) // refuses what can't be read (fragmented files) up front
        let chosen = try chosenTracks()
        let timescale = asset.movieTimescale > 0 ? asset.movieTimescale : 1000
        let plans = try chosen.compactMap { try plan($0, movieTimescale: timescale) }
        guard !plans.isEmpty else { throw MediaError(.invalidValue, "no samples in the chosen tracks and time range") }
        let items = try resolvedMetadata()
        let outputDuration = (timeRange?.end ?? asset.durationSeconds) - (timeRange?.start ?? 0)
        let timed = try timedMetadata.map { document in
            (document, try TimedMetadataTrack.layout(for: document, movieDuration: outputDuration, movieTimescale: timescale))
        }

        let temporary = outputURL.deletingLastPathComponent()
            .appendingPathComponent(".\(outputURL.lastPathComponent).export-\(UUID().uuidString).\(outputURL.pathExtension)")
        let writer = AssetWriter(
            url: temporary, fileType: fileType, chunkDuration: chunkDuration,
            shouldOptimizeForNetworkUse: shouldOptimizeForNetworkUse, movieTimescale: timescale)
        if let sizeLimit { await writer.setSizeLimit(sizeLimit) }
        do {
            if shouldOptimizeForNetworkUse {
                // Every sample is known in advance: lay them out first (a pass over the
                // sample tables, nothing written), so that moov goes first and the media
                // is copied once, right after it.
                let planner = AssetWriter(planningFor: writer)
                try await write(plans, timed: timed, metadata: items, into: planner)
                try await writer.usePlannedLayout(await planner.layout)
            }
            try await write(plans, timed: timed, metadata: items, into: writer, reportingProgress: true)
            // Synced, renamed, folder synced: as a save's temporary file (F_FULLFSYNC on Darwin).
            try FileIO.replaceDurably(temporary.path, as: outputURL.path)
            report(1)
        } catch {
            await writer.cancelWriting()
            unlink(temporary.path)
            if var error = error as? MediaError {
                // Errors of the temporary files are errors of the output.
                let folder = temporary.deletingLastPathComponent().path + "/."
                if error.path == nil || error.path?.hasPrefix(folder) == true, error.path != asset.url.path {
                    error.path = outputURL.path
                }
                throw error
            }
            throw error
        }
    }

    /// Feeds the samples of `plans` (and the timed metadata) to `writer`,
    /// interleaved by decode time, from its start to its finish.
    private func write(
        _ plans: [TrackPlan], timed: [(TimedMetadataDocument, TimedLayout)], metadata items: [MetadataItem],
        into writer: AssetWriter, reportingProgress: Bool = false
    ) async throws {
        let reader = try AssetReader(asset: asset)
        let kept = Set(plans.map(\.track.id))
        var inputs: [AssetWriterInput] = []
        var outputs: [AssetReaderTrackOutput] = []
        for plan in plans {
            let references = plan.track.references.compactMap { reference -> TrackReference? in
                let ids = reference.trackIDs.filter(kept.contains)
                return ids.isEmpty ? nil : TrackReference(type: reference.type, trackIDs: ids)
            }
            let input = AssetWriterInput(copying: plan.track, editList: plan.editList, references: references)
            try await writer.add(input)
            inputs.append(input)
            let output = try reader.addOutput(track: plan.track)
            output.sampleRange = plan.samples
            outputs.append(output)
        }
        await writer.setMetadata(items)
        await writer.setChapters(exportedChapters())
        var timedInputs: [(AssetWriterInput, [Sample])] = []
        let firstVideo = plans.first { $0.track.mediaType == .video }?.track.id
        for (document, layout) in timed {
            let described = document.describes.map(UInt32.init).flatMap { kept.contains($0) ? $0 : nil } ?? firstVideo
            let input = TimedMetadataTrack.input(
                for: document.groups, describing: described, timescale: layout.timescale,
                editList: layout.editList)
            try await writer.add(input)
            timedInputs.append((input, layout.samples))
        }
        let total = Double(max(1, plans.reduce(0) { $0 + $1.samples.count }))

        try await writer.startWriting()
        for (input, samples) in timedInputs {
            if !samples.isEmpty { try await input.append(contentsOf: samples) }
            try await input.markAsFinished()
        }
        var next = try outputs.map { try $0.nextSample() }
        for (index, sample) in next.enumerated() where sample == nil { try await inputs[index].markAsFinished() }
        var done = 0
        var reported = -1
        while true {
            try Task.checkCancellation()
            var best: Int?
            for (index, sample) in next.enumerated() {
                guard let sample else { continue }
                if let current = best, let other = next[current], other.decodeTimeSeconds <= sample.decodeTimeSeconds { continue }
                best = index
            }
            guard let best, next[best] != nil else { break }
            // This track's samples up to the next sample of any other track, in one batch.
            let limit = next.indices.filter { $0 != best }.compactMap { next[$0]?.decodeTimeSeconds }.min() ?? .infinity
            let shift = plans[best].decodeShift
            var batch: [Sample] = []
            var batchBytes = 0
            while var sample = next[best], batch.isEmpty || (sample.decodeTimeSeconds < limit && batch.count < 1024 && batchBytes < 1 << 20)
            {
                batchBytes += sample.size
                sample.decodeTime -= shift
                sample.presentationTime -= shift
                batch.append(sample)
                next[best] = try outputs[best].nextSample()
            }
            try await inputs[best].append(contentsOf: batch)
            if next[best] == nil { try await inputs[best].markAsFinished() }
            done += batch.count
            let percent = Int(Double(done) / total * 100)
            if reportingProgress, percent != reported {
                reported = percent
                report(Double(done) / total)
            }
        }
        try Task.checkCancellation()
        try await writer.finishWriting()
    }

    private func report(_ fraction: Double) {
        setStatus(.exporting(progress: fraction))
        progressHandler?(fraction)
    }

    private func chosenTracks() throws -> [AssetTrack] {
        guard let trackIDs else {
            // Text chapter tracks are left out: the chapters are written as
            // `chpl`, cut to the time range (see exportedChapters()).
            let tracks = asset.tracks.filter { $0.sampleCount > 0 && !asset.chapterTrackIDs.contains($0.id) }
            guard (outputFileType ?? outputURL.flatMap { AssetFileType(pathExtension: $0.pathExtension) }) == .m4a else { return tracks }
            // An audio file: the audio tracks and the tracks they refer to (chapter pictures).
            let audio = tracks.filter { $0.mediaType == .audio }
            let referenced = Set(audio.flatMap { $0.references.flatMap(\.trackIDs) })
            return tracks.filter { $0.mediaType == .audio || referenced.contains($0.id) }
        }
        return try trackIDs.map { id in
            guard let track = asset.track(id: id) else {
                throw MediaError(.invalidValue, "no track \(id) in \(asset.url.lastPathComponent)")
            }
            return track
        }
    }

    /// The source's default chapters within ``timeRange``, cut to it and
    /// moved to the output's timeline (a chapter ends where the next starts
    /// when the source doesn't say).
    func exportedChapters() -> [Chapter] {
        let chapters = asset.chapterTables.defaultChapters
        let start = timeRange?.start ?? 0
        let end = timeRange?.end ?? asset.durationSeconds
        var result: [Chapter] = []
        for (index, chapter) in chapters.enumerated() {
            let chapterEnd = chapter.end ?? (index + 1 < chapters.count ? chapters[index + 1].start : end)
            guard chapterEnd > start, chapter.start < end else { continue }
            var moved = chapter
            moved.start = max(chapter.start, start) - start
            moved.end = min(chapterEnd, end) - start
            moved.chapters = []
            result.append(moved)
        }
        return result
    }

    /// The samples, edit list and timescale of a timed metadata track.
    typealias TimedLayout = (samples: [Sample], editList: [EditListEntry], timescale: UInt32)

    // MARK: Time ranges

    struct TrackPlan {
        var track: AssetTrack
        var samples: Range<Int>
        var editList: [EditListEntry]
        /// Subtracted from the decode and presentation times of every sample.
        var decodeShift: Int64
    }

    /// What to copy of `track`; nil when the time range misses the track.
    func plan(_ track: AssetTrack, movieTimescale: UInt32) throws -> TrackPlan? {
        guard let range = timeRange else {
            return TrackPlan(track: track, samples: 0..<track.sampleCount, editList: track.editList, decodeShift: 0)
        }
        let mts = Double(asset.movieTimescale > 0 ? asset.movieTimescale : movieTimescale)
        let ts = Double(max(1, track.timescale))
        // The track on the movie timeline: leading empty edits, then one media segment.
        var emptyDuration: Int64 = 0
        var mediaStart: Int64 = 0
        var segment: Int64?
        let limit: Int64 = 1 << 53 // edit times beyond this are not cut (nor added up)
        guard track.editList.allSatisfy({ (0..<limit).contains($0.segmentDuration) && (-1..<limit).contains($0.mediaTime) }) else {
            throw MediaError(.unsupportedFeature, "track \(track.id): cutting an edit list with times beyond 2^53 is not supported")
        }
        for entry in track.editList {
            if entry.isEmpty, segment == nil {
                emptyDuration = min(emptyDuration + entry.segmentDuration, limit)
            } else if segment == nil, entry.rate == 1 {
                mediaStart = entry.mediaTime
                segment = entry.segmentDuration
            } else {
                throw MediaError(
                    .unsupportedFeature,
                    "track \(track.id): cutting an edit list with several segments or a rate other than 1 is not supported")
            }
        }
        let trackStart = Double(emptyDuration) / mts
        let mediaLength = segment.map { Double($0) / mts } ?? Double(track.sampleTable.totalDuration - mediaStart) / ts
        let trackEnd = trackStart + (mediaLength > 0 ? mediaLength : Double(track.sampleTable.totalDuration) / ts)
        let end = min(range.end ?? .infinity, trackEnd)
        let start = max(range.start, trackStart)
        guard start < end else { return nil }
        // Media times within ±2^62 (the sample tables keep decode times below that).
        func mediaTime(_ seconds: Double) -> Int64 {
            mediaStart + Int64(max(-Double(limit), min(Double(SampleTable.decodeTimeLimit), ((seconds - trackStart) * ts).rounded())))
        }
        let mediaFrom = mediaTime(start)
        let mediaTo = mediaTime(end)

        var cursor = track.sampleTable.makeCursor()
        var first: SampleInfo?
        var last = -1
        while let sample = cursor.next() {
            if sample.presentationTime <= mediaFrom, sample.isSync || first == nil { first = sample }
            if sample.presentationTime < mediaTo { last = sample.index }
            // Past the end by a second of decode time: no later sample can present before the end
            // (composition offsets are far smaller).
            if first != nil, sample.decodeTime > mediaTo + Int64(ts) { break }
        }
        guard var first else { return nil }
        if !first.isSync || first.presentationTime > mediaFrom {
            // No sync sample at or before the start: begin at the first sample.
            var again = track.sampleTable.makeCursor()
            first = again.next() ?? first
        }
        guard last >= first.index else { return nil }
        func movieUnits(_ seconds: Double) -> Int64 { Int64(max(0, min(Double(SampleTable.decodeTimeLimit), (seconds * mts).rounded()))) }
        var edits: [EditListEntry] = []
        if start > range.start {
            edits.append(EditListEntry(segmentDuration: movieUnits(start - range.start), mediaTime: -1))
        }
        edits.append(EditListEntry(segmentDuration: movieUnits(end - start), mediaTime: mediaFrom - first.decodeTime))
        return TrackPlan(track: track, samples: first.index..<(last + 1), editList: edits, decodeShift: first.decodeTime)
    }

    // MARK: Metadata

    /// The key spaces an export writes: iTunes `ilst` items, QuickTime
    /// `mdta` keys and `udta` atoms. Raw items of other key spaces in the
    /// source are left out; in ``metadata`` they make ``export()`` throw
    /// `invalidValue` before anything is written.
    public static let writableKeySpaces: [MetadataKeySpace] = [.iTunes, .quickTimeMetadata, .quickTimeUserData]

    /// The raw items to write, from the source's metadata, ``metadata`` and ``metadataPolicy``.
    func resolvedMetadata() throws -> [MetadataItem] {
        let writable = Self.writableKeySpaces
        if let foreign = metadata.items.first(where: { !writable.contains($0.keySpace) }) {
            let spaces = writable.map(\.rawValue).joined(separator: ", ")
            throw MediaError(
                .invalidValue, "an exported movie can't hold '\(foreign.keySpace.rawValue):\(foreign.key)' items (only \(spaces))")
        }
        let source = asset.metadata
        var edited: Metadata
        let loaded: Metadata
        switch metadataPolicy {
        case .replace:
            loaded = Metadata()
            edited = metadata
        case .merge:
            loaded = source
            edited = source
            for field in MetadataField.allCases where metadata[field] != nil { edited[field] = metadata[field] }
            let replacedKeys = Set(metadata.items.map { "\($0.keySpace.rawValue):\($0.key)" })
            edited.items.removeAll { replacedKeys.contains("\($0.keySpace.rawValue):\($0.key)") }
            edited.items += metadata.items
        case .add:
            loaded = source
            edited = source
            for field in MetadataField.allCases where source[field] == nil && metadata[field] != nil { edited[field] = metadata[field] }
            edited.items += metadata.items
        }
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: writable)
        return items.filter { writable.contains($0.keySpace) }
    }
}
