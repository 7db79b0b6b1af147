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

/// Writes an MP4/MOV/M4A file from samples, interleaved.
///
/// ```swift
/// let writer = AssetWriter(url: out, fileType: .mp4)
/// let video = AssetWriterInput(copying: sourceVideoTrack)
/// try await writer.add(video)
/// try await writer.startWriting()
/// try await video.append(sample)         // from any task, per input
/// try await video.markAsFinished()
/// try await writer.finishWriting()
/// ```
///
/// Samples are held per input until every unfinished input has reached the
/// end of the current interleaving period (``chunkDuration`` seconds of
/// decode time, 0.5 s by default): then each input's samples of the period
/// are written as one chunk, in input order. So chunks of different tracks
/// alternate about every `chunkDuration`, and the memory held is about one
/// period of media (more if one input lags far behind the others).
///
/// Layout: `ftyp`, `mdat`, `moov`; with ``shouldOptimizeForNetworkUse``,
/// `ftyp`, `moov`, `mdat`. `moov` holds the chunk offsets, so it can only
/// be written first when the layout is known before the media: an
/// ``ExportSession`` knows every sample in advance, plans the layout with a
/// first pass over the sample tables (a planning writer, which writes
/// nothing) and writes the file in one pass. Samples fed as they come can't
/// be planned: then the media data goes to a temporary file beside the
/// output, and at the end `moov` is written and the media copied after it
/// (a second pass over the media). `mdat` gets a 64-bit size and the
/// offsets become `co64` (§8.7.5) when they pass 4 GiB. On any error the
/// output is removed.
public actor AssetWriter {
    /// The file written (replaced if it exists).
    public nonisolated let url: URL
    /// The container written: its `ftyp` brands and conventions.
    public nonisolated let fileType: AssetFileType
    /// Interleaving period, in seconds of decode time.
    public nonisolated let chunkDuration: Double
    /// Write `moov` before `mdat` ("fast start").
    public nonisolated let shouldOptimizeForNetworkUse: Bool
    /// The `mvhd` timescale.
    public nonisolated let movieTimescale: UInt32
    /// Movie metadata items written to `moov/udta/meta/ilst` (iTunes),
    /// `moov/meta` (QuickTime `mdta`) and `moov/udta` (©-atoms).
    public private(set) var metadata: [MetadataItem] = []
    /// Chapters written as `moov/udta/chpl` (see ``setChapters(_:)``).
    public private(set) var chapters: [Chapter] = []

    /// Where the writer is in its life.
    public enum Status: Sendable {
        /// Not started: inputs and metadata may still be added.
        case unknown
        /// ``AssetWriter/startWriting()`` has run; samples are accepted.
        case writing
        /// ``AssetWriter/finishWriting()`` wrote the whole file.
        case completed
        /// An error stopped the writing; the output was removed.
        case failed
        /// ``AssetWriter/cancelWriting()`` stopped it; the output was removed.
        case cancelled
    }
    /// Where the writer is: ``Status/unknown`` until writing starts.
    public private(set) var status: Status = .unknown

    /// Where a pending sample's bytes are: in memory, or still in its source
    /// file (copied file to file when written, never through this process).
    private enum Payload {
        case bytes([UInt8])
        case file(SampleDataSource, offset: Int64, size: Int)

        var size: Int {
            switch self {
            case .bytes(let bytes): return bytes.count
            case .file(_, _, let size): return size
            }
        }
    }

    private struct Pending {
        var data: Payload
        var decodeTime: Int64
        var duration: Int64
        var compositionOffset: Int64
        var isSync: Bool
        var descriptionIndex: Int
    }

    private struct TrackState {
        var input: AssetWriterInput
        var id: UInt32
        var pending: [Pending] = []
        var pendingStart = 0
        var finished = false
        /// Sum of the durations appended, in the input's timescale.
        var appendedEnd: Int64 = 0
        var lastDecodeTime: Int64 = .min
        var tables = WrittenTrackTables()

        func seconds(_ time: Int64) -> Double { Double(time) / Double(max(1, input.timescale)) }
    }

    /// The chunk layout of a movie: each track's tables (chunk offsets from
    /// the start of the media data) and the size of the media data.
    struct Layout: Sendable {
        var tables: [WrittenTrackTables]
        var mediaBytes: Int64
    }

    /// A planning writer lays samples out exactly as a writer does but
    /// creates no file and writes nothing; ``layout`` is the result.
    private let isPlanning: Bool
    /// The planned layout, until `moov` is written from it at the start.
    private var plannedLayout: Layout?
    /// The `moov` written from the plan, and the media size it promises:
    /// checked at the end against what was written.
    private var promisedHead: (moov: [UInt8], mediaBytes: Int64)?

    private var tracks: [TrackState] = []
    private var output: OutputFile?
    private var mediaFile: OutputFile?
    private var mediaPath: String?
    private var ftypSize: Int64 = 0
    private var mdatHeaderOffset: Int64 = 0
    /// Bytes of media data written so far (the `mdat` payload).
    private var mediaBytes: Int64 = 0
    private var windowEnd: Double
    /// Largest `mdat` size and chunk offset written in 32 bits (lowered by tests
    /// to exercise the 64-bit layouts without writing 4 GiB).
    var sizeLimit = Int64(UInt32.max)

    /// Lowers the 32-bit limit; for tests.
    func setSizeLimit(_ limit: Int64) { sizeLimit = limit }

    /// A writer of `url` as `fileType`, interleaving every `chunkDuration`
    /// seconds, `moov` first when `shouldOptimizeForNetworkUse`, with
    /// `movieTimescale` ticks per second in `mvhd`. Nothing is written before
    /// ``startWriting()``.
    public init(
        url: URL, fileType: AssetFileType, chunkDuration: Double = 0.5,
        shouldOptimizeForNetworkUse: Bool = false, movieTimescale: UInt32 = 1000
    ) {
        self.init(
            url: url, fileType: fileType, chunkDuration: chunkDuration,
            shouldOptimizeForNetworkUse: shouldOptimizeForNetworkUse, movieTimescale: movieTimescale, planning: false)
    }

    /// A planning writer for `writer`: fed the same inputs and samples, its
    /// ``layout`` is the layout `writer` will write.
    init(planningFor writer: AssetWriter) {
        self.init(
            url: writer.url, fileType: writer.fileType, chunkDuration: writer.chunkDuration,
            shouldOptimizeForNetworkUse: writer.shouldOptimizeForNetworkUse, movieTimescale: writer.movieTimescale,
            planning: true)
    }

    private init(
        url: URL, fileType: AssetFileType, chunkDuration: Double,
        shouldOptimizeForNetworkUse: Bool, movieTimescale: UInt32, planning: Bool
    ) {
        self.url = url
        self.fileType = fileType
        self.chunkDuration = max(0.01, chunkDuration)
        self.shouldOptimizeForNetworkUse = shouldOptimizeForNetworkUse
        self.movieTimescale = max(1, movieTimescale)
        self.windowEnd = max(0.01, chunkDuration)
        self.isPlanning = planning
    }

    /// The layout laid out so far (complete after ``finishWriting()``); for planning writers.
    var layout: Layout { Layout(tables: tracks.map(\.tables), mediaBytes: mediaBytes) }

    /// Makes ``startWriting()`` write `moov` from `layout` (made by a planning
    /// writer fed the same inputs and samples) and the media right after it:
    /// one pass, no temporary file. ``finishWriting()`` fails (and removes
    /// the output) when the samples written don't match the plan.
    func usePlannedLayout(_ layout: Layout) throws {
        guard shouldOptimizeForNetworkUse, !isPlanning, status == .unknown else {
            throw MediaError(.invalidValue, "a planned layout is for a fast-start writer before writing starts")
        }
        plannedLayout = layout
    }

    /// Sets the movie metadata; call before ``finishWriting()`` (before
    /// ``startWriting()`` when `moov` is written first from a planned layout,
    /// as an ``ExportSession`` with fast start does).
    public func setMetadata(_ items: [MetadataItem]) { metadata = items }

    /// Chapters written as a Nero `moov/udta/chpl` list (at most 255; times
    /// on the output's timeline); set them like ``setMetadata(_:)``.
    public func setChapters(_ chapters: [Chapter]) { self.chapters = chapters }

    /// Adds an input; inputs must be added before ``startWriting()``.
    public func add(_ input: AssetWriterInput) throws {
        guard status == .unknown else { throw MediaError(.invalidValue, "inputs must be added before writing starts") }
        guard input.timescale > 0, !input.sampleDescriptions.isEmpty else {
            throw MediaError(.invalidValue, "an input needs a timescale and at least one sample description")
        }
        let taken = Set(tracks.map(\.id))
        var id = input.preferredTrackID ?? 0
        if id == 0 || taken.contains(id) { id = (taken.max() ?? 0) + 1 }
        try input.attach(to: self, id: id)
        tracks.append(TrackState(input: input, id: id))
    }

    /// Creates the output file (replacing one that exists) and writes its head.
    public func startWriting() throws {
        guard status == .unknown else { throw MediaError(.invalidValue, "writing already started") }
        guard !tracks.isEmpty else { throw MediaError(.invalidValue, "no inputs to write") }
        if isPlanning {
            status = .writing
            return
        }
        do {
            status = .writing
            let file = try OutputFile(path: url.path)
            output = file
            let ftyp = MP4MovieBuilder.fileTypeBox(fileType)
            try file.write(ftyp)
            ftypSize = Int64(ftyp.count)
            if let plan = plannedLayout {
                guard plan.tables.count == tracks.count else {
                    throw MediaError(
                        .invalidValue, "the planned layout has \(plan.tables.count) tracks; the writer has \(tracks.count) inputs")
                }
                let head = try movieHead(builder(tables: plan.tables), mediaBytes: plan.mediaBytes)
                try file.write(head.moov + head.mdatHeader)
                try file.flush()
                promisedHead = (head.moov, plan.mediaBytes)
                plannedLayout = nil
            } else if shouldOptimizeForNetworkUse {
                let path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).mdat-\(UUID().uuidString)")
                    .path
                mediaPath = path
                mediaFile = try OutputFile(path: path)
            } else {
                // A `free` box that becomes part of a 64-bit `mdat` header when needed.
                mdatHeaderOffset = file.position
                try file.write(MP4MovieBuilder.patchableMediaDataHeader(payloadSize: 0, sizeLimit: .max))
            }
        } catch {
            fail()
            throw error
        }
    }

    func append(_ samples: [Sample], to input: AssetWriterInput) throws {
        guard status == .writing else { throw MediaError(.invalidValue, "the writer is not writing (status \(status))") }
        guard let index = tracks.firstIndex(where: { $0.input === input }) else {
            throw MediaError(.invalidValue, "the input is not one of this writer's")
        }
        guard !tracks[index].finished else { throw MediaError(.invalidValue, "track \(tracks[index].id) was marked as finished") }
        for sample in samples {
            guard sample.decodeTime >= tracks[index].lastDecodeTime else {
                throw MediaError(.invalidValue, "track \(tracks[index].id): decode time \(sample.decodeTime) goes back")
            }
            guard (1...tracks[index].input.sampleDescriptions.count).contains(sample.sampleDescriptionIndex) else {
                throw MediaError(.invalidValue, "sample description index \(sample.sampleDescriptionIndex) out of range")
            }
            do {
                let data: Payload
                if let file = sample.fileRange {
                    data = .file(file.source, offset: file.offset, size: sample.size)
                } else {
                    data = .bytes(try sample.readBytes())
                }
                tracks[index].lastDecodeTime = sample.decodeTime
                tracks[index].pending.append(
                    Pending(
                        data: data, decodeTime: tracks[index].appendedEnd, duration: max(0, sample.duration),
                        compositionOffset: sample.presentationTime - sample.decodeTime, isSync: sample.isSync,
                        descriptionIndex: sample.sampleDescriptionIndex))
                tracks[index].appendedEnd += max(0, sample.duration)
            } catch {
                fail()
                throw error
            }
        }
        do { try flushReadyPeriods() } catch {
            fail()
            throw error
        }
    }

    func markAsFinished(_ input: AssetWriterInput) throws {
        guard let index = tracks.firstIndex(where: { $0.input === input }) else {
            throw MediaError(.invalidValue, "the input is not one of this writer's")
        }
        tracks[index].finished = true
        if status == .writing {
            do { try flushReadyPeriods() } catch {
                fail()
                throw error
            }
        }
    }

    /// Writes the remaining samples and `moov`, and closes the file. Inputs
    /// not marked as finished are finished now.
    public func finishWriting() throws {
        guard status == .writing else { throw MediaError(.invalidValue, "the writer is not writing (status \(status))") }
        do {
            for index in tracks.indices { tracks[index].finished = true }
            try flushReadyPeriods()
            if !isPlanning { try writeMovie() }
            status = .completed
        } catch {
            fail()
            throw error
        }
    }

    /// Stops writing and removes the output file.
    public func cancelWriting() {
        if status == .writing || status == .unknown { fail() }
        status = .cancelled
    }

    private func fail() {
        output?.closeAndRemove()
        mediaFile?.closeAndRemove()
        output = nil
        mediaFile = nil
        status = .failed
    }

    // MARK: Interleaving

    /// Writes every period that all inputs have reached.
    private func flushReadyPeriods() throws {
        while true {
            let hasPending = tracks.contains { $0.pendingStart < $0.pending.count }
            guard hasPending else { return }
            let ready = tracks.allSatisfy { $0.finished || $0.seconds($0.appendedEnd) >= windowEnd }
            guard ready else { return }
            var wrote = false
            for index in tracks.indices { wrote = try writeChunks(track: index, before: windowEnd) || wrote }
            if wrote {
                windowEnd += chunkDuration
            } else {
                // A gap: move the period to the earliest pending sample.
                let next =
                    tracks.compactMap { track in
                        track.pendingStart < track.pending.count ? track.seconds(track.pending[track.pendingStart].decodeTime) : nil
                    }.min() ?? windowEnd
                windowEnd = max(windowEnd + chunkDuration, (next / chunkDuration).rounded(.down) * chunkDuration + chunkDuration)
            }
        }
    }

    /// Writes the pending samples of `index` that start before `end` seconds as
    /// one chunk (one per run of the same sample description).
    private func writeChunks(track index: Int, before end: Double) throws -> Bool {
        var track = tracks[index]
        defer { tracks[index] = track }
        var wrote = false
        while track.pendingStart < track.pending.count, track.seconds(track.pending[track.pendingStart].decodeTime) < end {
            let description = track.pending[track.pendingStart].descriptionIndex
            let chunkOffset = mediaBytes
            var count = 0
            while track.pendingStart < track.pending.count,
                track.seconds(track.pending[track.pendingStart].decodeTime) < end,
                track.pending[track.pendingStart].descriptionIndex == description
            {
                let sample = track.pending[track.pendingStart]
                try writeMedia(sample.data)
                track.tables.appendSample(
                    size: sample.data.size, duration: sample.duration,
                    compositionOffset: sample.compositionOffset, isSync: sample.isSync)
                track.pending[track.pendingStart].data = .bytes([])
                track.pendingStart += 1
                count += 1
            }
            track.tables.appendChunk(offset: chunkOffset, samples: count, descriptionIndex: description)
            wrote = true
        }
        if track.pendingStart > 256, track.pendingStart * 2 > track.pending.count {
            track.pending.removeFirst(track.pendingStart)
            track.pendingStart = 0
        }
        return wrote
    }

    private func writeMedia(_ payload: Payload) throws {
        if isPlanning {
            mediaBytes += Int64(payload.size)
            return
        }
        guard let file = mediaFile ?? output else { throw MediaError(.invalidValue, "the writer is not writing") }
        switch payload {
        case .bytes(let bytes):
            try file.write(bytes)
        case .file(let source, let offset, let size):
            // Runs of samples that follow each other in the source become one copy.
            try file.copy(from: source, offset: offset, count: Int64(size))
        }
        mediaBytes += Int64(payload.size)
    }

    // MARK: Movie

    private func builder(tables: [WrittenTrackTables]) -> MP4MovieBuilder {
        var builder = MP4MovieBuilder(
            fileType: fileType, movieTimescale: movieTimescale,
            tracks: zip(tracks, tables).map { MP4MovieBuilder.Track(id: $0.id, input: $0.input, tables: $1) },
            metadata: metadata, offsetLimit: sizeLimit)
        builder.chapters = chapters
        return builder
    }

    /// `moov` and the `mdat` header of a fast-start file: they follow `ftyp`,
    /// and `mediaBytes` of media data follow them.
    private func movieHead(_ builder: MP4MovieBuilder, mediaBytes: Int64) throws -> (moov: [UInt8], mdatHeader: [UInt8]) {
        // The offsets depend on the size of moov, which depends on them (stco or co64): measure until stable.
        let header = MP4MovieBuilder.mediaDataHeader(payloadSize: mediaBytes, sizeLimit: sizeLimit)
        var moov = try builder.moov(base: ftypSize + Int64(header.count))
        for _ in 0..<3 {
            let next = try builder.moov(base: ftypSize + Int64(moov.count) + Int64(header.count))
            if next.count == moov.count {
                moov = next
                break
            }
            moov = next
        }
        return (moov, header)
    }

    private func writeMovie() throws {
        guard let output else { throw MediaError(.invalidValue, "the writer is not writing") }
        let builder = builder(tables: tracks.map(\.tables))
        if let promised = promisedHead {
            // Written at the start from the plan: it must be the moov of what was written.
            guard mediaBytes == promised.mediaBytes,
                try movieHead(builder, mediaBytes: mediaBytes).moov == promised.moov
            else {
                throw MediaError(
                    .invalidValue, "the samples or metadata written differ from the planned layout that moov was written from",
                    path: url.path)
            }
        } else if let mediaFile, let mediaPath {
            let head = try movieHead(builder, mediaBytes: mediaBytes)
            try output.write(head.moov + head.mdatHeader)
            try mediaFile.close()
            self.mediaFile = nil
            try output.append(contentsOfFile: mediaPath, count: mediaBytes)
            unlink(mediaPath)
        } else {
            let moov = try builder.moov(base: mdatHeaderOffset + 16)
            try output.write(moov)
            try output.write(
                MP4MovieBuilder.patchableMediaDataHeader(payloadSize: mediaBytes, sizeLimit: sizeLimit),
                at: mdatHeaderOffset)
        }
        try output.close()
        self.output = nil
    }
}
