import Foundation
import Testing

@testable import MetadataKit

/// Sample tables on synthetic boxes; the reader and writer on ffmpeg-made files.
@Suite struct AssetTests {
    typealias B = MP4Builder

    /// Parses the `stbl` box in `bytes`, as if in a file of `fileSize` bytes (the box's own size by default).
    func table(_ bytes: [UInt8], fileSize: Int64? = nil) throws -> SampleTable {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("stbl.bin")
        try Data(bytes).write(to: url)
        let source = try FileSource(url: url)
        let header = try MP4BoxHeader(parsing: source, at: 0, containerEnd: source.size, isTopLevel: true)
        var builder = MP4TreeBuilder(source: source)
        return try SampleTable(parsing: try builder.build(header, depth: 0), in: source, fileSize: fileSize)
    }

    @Test func sampleTableWalksEveryTableKind() throws {
        let stbl = B.box(
            "stbl",
            children: [
                B.fullBox("stts", B.u32(2) + B.u32(3) + B.u32(100) + B.u32(2) + B.u32(50)),
                B.fullBox("ctts", version: 1, B.u32(3) + B.u32(1) + B.u32(200) + B.u32(1) + B.u32(-100) + B.u32(3) + B.u32(0)),
                B.fullBox("stss", B.u32(2) + B.u32(1) + B.u32(4)),
                B.fullBox("stsc", B.u32(2) + B.u32(1) + B.u32(2) + B.u32(1) + B.u32(2) + B.u32(1) + B.u32(2)),
                B.fullBox("stz2", B.u24(0) + [4] + B.u32(5) + [0x12, 0x34, 0x50]),
                B.fullBox("co64", B.u32(4) + B.u64(0x1_0000_0000) + B.u64(0x1_0000_0100) + B.u64(0x1_0000_0200) + B.u64(10)),
            ])
        let table = try table(stbl, fileSize: 0x2_0000_0000)
        #expect(table.warnings.isEmpty)
        #expect(table.sampleCount == 5)
        #expect(table.totalSampleBytes == 15)
        #expect(table.totalDuration == 400)
        var cursor = table.makeCursor()
        var samples: [SampleInfo] = []
        while let sample = cursor.next() { samples.append(sample) }
        #expect(samples.map(\.offset) == [0x1_0000_0000, 0x1_0000_0001, 0x1_0000_0100, 0x1_0000_0200, 10])
        #expect(samples.map(\.size) == [1, 2, 3, 4, 5])
        #expect(samples.map(\.decodeTime) == [0, 100, 200, 300, 350])
        #expect(samples.map(\.duration) == [100, 100, 100, 50, 50])
        #expect(samples.map(\.compositionOffset) == [200, -100, 0, 0, 0])
        #expect(samples.map(\.isSync) == [true, false, false, true, false])
        #expect(samples.map(\.sampleDescriptionIndex) == [1, 1, 2, 2, 2])
        #expect(samples.map(\.chunkIndex) == [0, 0, 1, 2, 3])
    }

    @Test func sampleTableRefusesCountsLargerThanTheirBoxes() throws {
        let chunks = [B.fullBox("stsc", B.u32(1) + B.u32(1) + B.u32(2) + B.u32(1)), B.fullBox("stco", B.u32(1) + B.u32(0))]
        let hostile = [
            B.box(
                "stbl",
                children: [
                    B.fullBox("stts", B.u32(0x1000_0000) + B.u32(1) + B.u32(1)),
                    B.fullBox("stsz", B.u32(4) + B.u32(2)),
                ] + chunks),
            B.box(
                "stbl",
                children: [
                    B.fullBox("stts", B.u32(1) + B.u32(2) + B.u32(1)),
                    B.fullBox("stsz", B.u32(0) + B.u32(0x4000_0000) + B.u32(1)),
                ] + chunks),
        ]
        for stbl in hostile {
            #expect { try table(stbl) } throws: { ($0 as? MediaError)?.code == .sizeOutOfRange }
        }
        // Chunks that can't hold the samples: the two they hold are kept, with a warning.
        let short = B.box(
            "stbl",
            children: [
                B.fullBox("stts", B.u32(1) + B.u32(10) + B.u32(1)), B.fullBox("stsz", B.u32(4) + B.u32(10)),
                B.fullBox("stsc", B.u32(1) + B.u32(1) + B.u32(2) + B.u32(1)), B.fullBox("stco", B.u32(1) + B.u32(0)),
            ])
        let kept = try table(short)
        #expect(kept.sampleCount == 2 && kept.totalSampleBytes == 8 && kept.totalDuration == 2)
        #expect(kept.warnings.map(\.code) == [.malformed])
    }

    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func tracksOfFFmpegFiles() async throws {
        let h264 = try await Asset.load(url: try AssetFixtures.url("h264.mp4"))
        #expect(h264.tracks.map(\.mediaType) == [.video, .audio])
        #expect(h264.tracks[1].codec == "mp4a")
        #expect(h264.tracks[1].sampleRate == 44100 && h264.tracks[1].channels == 1)
        #expect(h264.tracks[0].width == 160 && h264.tracks[0].height == 120)
        #expect(h264.tracks[0].editList.count == 1)
        #expect(!h264.isMovieHeaderFirst)
        #expect(try await Asset.load(url: try AssetFixtures.url("fast.mp4")).isMovieHeaderFirst)
        for (index, track) in h264.tracks.enumerated() {
            #expect(track.sampleCount == (try AssetFixtures.packets(try AssetFixtures.url("h264.mp4"), stream: index)).count)
        }
        let mov = try await Asset.load(url: try AssetFixtures.url("pcm.mov"))
        #expect(mov.tracks.map(\.mediaType) == [.video, .audio, .timecode])
        #expect(mov.tracks.map { $0.codec?.description } == ["mp4v", "sowt", "tmcd"])
        #expect(mov.tracks[0].references == [TrackReference(type: "tmcd", trackIDs: [3])])
        let alac = try await Asset.load(url: try AssetFixtures.url("alac.m4a"))
        #expect(alac.tracks.map { $0.codec?.description } == ["alac"])
        let sub = try await Asset.load(url: try AssetFixtures.url("sub.mp4"))
        #expect(sub.tracks.map(\.mediaType) == [.video, .subtitle])
        #expect(sub.tracks[1].codec == "tx3g")
    }

    /// Codec names and sample entry types come from the same track box
    /// parser as ``MediaItem``'s properties.
    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func codecNamesMatchTheFileProperties() async throws {
        for name in ["h264.mp4", "pcm.mov", "alac.m4a", "sub.mp4"] {
            let url = try AssetFixtures.url(name)
            let asset = try await Asset.load(url: url)
            for track in asset.tracks {
                #expect(track.sampleDescriptionTypes.first == track.codec, "\(name) track \(track.id)")
                #expect(track.sampleDescriptionTypes.count == track.sampleDescriptions.count)
                #expect((track.codecName != nil) == (track.mediaType == .audio || track.mediaType == .video), "\(name) track \(track.id)")
            }
            var item = MediaItem(url: url)
            try await item.load()
            let properties = item.properties
            let first = asset.tracks.first { $0.mediaType == .audio } ?? asset.tracks.first { $0.mediaType == .video }
            #expect(first?.codecName == properties.codec, "\(name)")
        }
        let h264 = try await Asset.load(url: try AssetFixtures.url("h264.mp4"))
        #expect(h264.tracks.map(\.codecName) == ["H.264", "AAC"])
        let alac = try await Asset.load(url: try AssetFixtures.url("alac.m4a"))
        #expect(alac.tracks.map(\.codecName) == ["ALAC"])
    }

    @Test func fileTypesListTheirExtensions() {
        #expect(AssetFileType.allCases.map { $0.pathExtensions[0] } == ["mp4", "mov", "m4a"])
        for type in AssetFileType.allCases {
            for name in type.pathExtensions { #expect(AssetFileType(pathExtension: name.uppercased()) == type) }
        }
        #expect(AssetFileType(pathExtension: "avi") == nil)
    }

    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func readerYieldsSamplesInDecodeOrderWithTheirBytes() async throws {
        let url = try AssetFixtures.url("h264.mp4")
        let asset = try await Asset.load(url: url)
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        var counts: [UInt32: Int] = [:]
        var bytes: [UInt32: Int64] = [:]
        var lastSeconds = -Double.infinity
        var keyFlags: [Bool] = []
        while let sample = try reader.nextSample() {
            #expect(sample.decodeTimeSeconds >= lastSeconds)
            lastSeconds = sample.decodeTimeSeconds
            counts[sample.trackID, default: 0] += 1
            bytes[sample.trackID, default: 0] += Int64(try await sample.data().count)
            if sample.trackID == 1 { keyFlags.append(sample.isSync) }
        }
        for track in asset.tracks {
            #expect(counts[track.id] == track.sampleCount)
            #expect(bytes[track.id] == track.totalSampleBytes)
        }
        // The same samples through the AsyncSequence interface.
        let sequence = try AssetReader(asset: asset)
        for track in asset.tracks { try sequence.addOutput(track: track) }
        var total = 0
        for try await _ in sequence { total += 1 }
        #expect(total == asset.tracks.reduce(0) { $0 + $1.sampleCount })
        let probed = try AssetFixtures.packets(url, stream: 0).map { $0.split(separator: ",").last?.hasPrefix("K") == true }
        #expect(probed == keyFlags)
    }

    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func readerReadsOnlyWhatIsAskedFor() async throws {
        let url = try AssetFixtures.url("raw.mov")
        let asset = try await Asset.load(url: url)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(size > 15_000_000)
        let reader = try AssetReader(asset: asset)
        let output = try reader.addOutput(track: asset.tracks[0])
        let first = try #require(try output.nextSample())
        _ = try await first.data()
        #expect(output.bytesRead <= Int64(max(first.size, SampleDataSource.readAhead)))
        var largest = first.size
        while let sample = try output.nextSample() {
            _ = try await sample.data()
            largest = max(largest, sample.size)
        }
        // Read-ahead may read a little past a sample, never the file twice.
        #expect(output.bytesRead <= asset.tracks[0].totalSampleBytes * 13 / 10)
        // The memory the reader keeps is its one buffer: the read-ahead, or the
        // largest sample when that is larger — not the file. (Measured so
        // rather than by the process's peak RSS, which the tests running
        // beside this one raise.)
        #expect(output.readBufferCapacity <= max(SampleDataSource.readAhead, largest))
        #expect(output.readBufferCapacity < size / 16, "a buffer of \(output.readBufferCapacity) bytes for a \(size) byte file")
        print("AssetReader over \(size) bytes: read \(output.bytesRead) bytes through a buffer of \(output.readBufferCapacity)")
    }

    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func writerTakesInputsFedFromSeparateTasks() async throws {
        let source = try AssetFixtures.url("h264.mp4")
        let asset = try await Asset.load(url: source)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("fed.mp4")
        let writer = AssetWriter(url: out, fileType: .mp4, chunkDuration: 0.25, movieTimescale: asset.movieTimescale)
        let inputs = asset.tracks.map { AssetWriterInput(copying: $0) }
        for input in inputs { try await writer.add(input) }
        try await writer.startWriting()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (track, input) in zip(asset.tracks, inputs) {
                group.addTask {
                    let reader = try AssetReader(asset: asset)
                    let output = try reader.addOutput(track: track)
                    while let sample = try output.nextSample() {
                        try await input.append(sample)
                        if sample.index! % 7 == 0 { await Task.yield() }
                    }
                    try await input.markAsFinished()
                }
            }
            try await group.waitForAll()
        }
        try await writer.finishWriting()
        #expect(await writer.status == .completed)
        for stream in 0..<2 {
            #expect(try AssetFixtures.streamHash(out, stream: stream) == AssetFixtures.streamHash(source, stream: stream))
            #expect(try AssetFixtures.packets(out, stream: stream) == AssetFixtures.packets(source, stream: stream))
        }
        #expect(try AssetFixtures.probeErrors(out).isEmpty)
        #expect(try await AssetFixtures.longestChunk(out) <= 0.3)
    }

    /// The three layouts: `moov` last; `moov` first through a temporary media
    /// file; `moov` first from a planned layout, in one pass.
    enum Layout: String, CaseIterable, Sendable { case moovLast, fastStart, plannedFastStart }

    /// Adds an input per track of `asset` to `writer`, starts it (then runs
    /// `started`), appends the samples in decode order (all but the last
    /// `dropping`) and finishes.
    func write(
        _ asset: Asset, to writer: AssetWriter, dropping: Int = 0,
        started: () throws -> Void = {}
    ) async throws {
        let reader = try AssetReader(asset: asset)
        var inputs: [UInt32: AssetWriterInput] = [:]
        for track in asset.tracks {
            try reader.addOutput(track: track)
            let input = AssetWriterInput(copying: track)
            inputs[track.id] = input
            try await writer.add(input)
        }
        try await writer.startWriting()
        try started()
        var samples = asset.tracks.reduce(0) { $0 + $1.sampleCount } - dropping
        while samples > 0, let sample = try reader.nextSample() {
            try await inputs[sample.trackID]!.append(sample)
            samples -= 1
        }
        try await writer.finishWriting()
    }

    /// The top-level boxes of the file at `url`: type and size (header only).
    func topLevelBoxes(_ url: URL) throws -> [(type: String, size: Int64)] {
        let bytes = [UInt8](try Data(contentsOf: url))
        var boxes: [(String, Int64)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            func number(_ at: Int, _ count: Int) -> Int64 { bytes[at..<at + count].reduce(0) { $0 << 8 | Int64($1) } }
            var size = number(offset, 4)
            if size == 1, offset + 16 <= bytes.count { size = number(offset + 8, 8) }
            boxes.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), size))
            guard size >= 8 else { break }
            offset += Int(size)
        }
        return boxes
    }

    /// 64-bit `mdat` sizes and `co64` offsets, with the 32-bit limit lowered
    /// so that a small file needs them, in every layout.
    @Test(.enabled(if: AssetFixtures.hasFFmpeg), arguments: Layout.allCases)
    func largeFileLayoutsProbeCleanly(_ layout: Layout) async throws {
        let source = try AssetFixtures.url("h264.mp4")
        let asset = try await Asset.load(url: source)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("large.mp4")
        let writer = AssetWriter(
            url: out, fileType: .mp4, shouldOptimizeForNetworkUse: layout != .moovLast,
            movieTimescale: asset.movieTimescale)
        await writer.setSizeLimit(1000)
        if layout == .plannedFastStart {
            let planner = AssetWriter(planningFor: writer)
            try await write(asset, to: planner)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "planning writes nothing")
            try await writer.usePlannedLayout(await planner.layout)
        }
        try await write(asset, to: writer) {
            // Planned: ftyp, moov and the mdat header are written at the start, nothing else.
            guard layout == .plannedFastStart else { return }
            let head = try topLevelBoxes(out)
            try #require(head.map(\.type) == ["ftyp", "moov", "mdat"])
            let headBytes = head[0].size + head[1].size + 16
            #expect(try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int64 == headBytes)
        }

        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["large.mp4"])
        let boxes = try topLevelBoxes(out)
        #expect(boxes.map(\.type) == (layout == .moovLast ? ["ftyp", "mdat", "moov"] : ["ftyp", "moov", "mdat"]))
        #expect(boxes.reduce(0) { $0 + $1.size } == (try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int64))
        let file = try FileSource(url: out)
        var offset: Int64 = 0
        var mdat: MP4BoxHeader?
        while offset < file.size {
            let header = try MP4BoxHeader(parsing: file, at: offset, containerEnd: file.size, isTopLevel: true)
            if header.type == "mdat" { mdat = header }
            offset = header.end
        }
        #expect(mdat?.headerSize == 16)
        let bytes = try Data(contentsOf: out)
        #expect(bytes.range(of: Data("co64".utf8)) != nil)
        #expect(bytes.range(of: Data("stco".utf8)) == nil)
        #expect(try AssetFixtures.probeErrors(out).isEmpty)
        for stream in 0..<2 {
            #expect(try AssetFixtures.packets(out, stream: stream) == AssetFixtures.packets(source, stream: stream))
            #expect(try AssetFixtures.streamHash(out, stream: stream) == AssetFixtures.streamHash(source, stream: stream))
        }
    }

    /// A writer whose samples don't match its planned layout fails at the
    /// end (its `moov`, written first, would be wrong) and removes the output.
    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func samplesThatDontMatchThePlanFail() async throws {
        let asset = try await Asset.load(url: try AssetFixtures.url("h264.mp4"))
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("planned.mp4")
        let writer = AssetWriter(url: out, fileType: .mp4, shouldOptimizeForNetworkUse: true, movieTimescale: asset.movieTimescale)
        let planner = AssetWriter(planningFor: writer)
        try await write(asset, to: planner)
        try await writer.usePlannedLayout(await planner.layout)
        await #expect { try await write(asset, to: writer, dropping: 1) } throws: { ($0 as? MediaError)?.code == .invalidValue }
        #expect(await writer.status == .failed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        // Only a fast-start writer, before it starts, takes a plan.
        let plain = AssetWriter(url: out, fileType: .mp4)
        await #expect(throws: MediaError.self) { try await plain.usePlannedLayout(await planner.layout) }
    }

    /// A write that fails (here: the file size limit, as a full disk would)
    /// removes the output; the CLI exits 1.
    @Test(.enabled(if: AssetFixtures.hasFFmpeg && TestSupport.hasTool("sh") && Capabilities.mdkit, "needs ffmpeg, sh and the mdkit binary"))
    func failedWritesRemoveTheOutput() throws {
        let executable = try #require(TestSupport.mdkitExecutable)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("full.mov").path
        // SIGXFSZ ignored: writes past the limit fail with EFBIG instead of killing mdkit.
        let script = "trap '' XFSZ; ulimit -f 2048; exec \"$0\" export \"$1\" \"$2\""
        let result = try TestSupport.run("sh", ["-c", script, executable.path, try AssetFixtures.url("raw.mov").path, out])
        #expect(result.status == 1)
        #expect(result.standardError.contains("io:"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(.enabled(if: AssetFixtures.hasFFmpeg))
    func fragmentedFilesAreListedButNotRead() async throws {
        let asset = try await Asset.load(url: try AssetFixtures.url("frag.mp4"))
        #expect(asset.isFragmented)
        #expect(throws: MediaError.self) { try AssetReader(asset: asset) }
        do { _ = try AssetReader(asset: asset) } catch { #expect(error.code == .unsupportedFeature) }
    }
}
