import Foundation
import Testing

@testable import MetadataKit

/// Passthrough exports of ffmpeg-made files, checked with ffmpeg, ffprobe,
/// mutagen and exiftool.
@Suite(.enabled(if: AssetFixtures.hasFFmpeg)) struct AssetExportTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var source: String
        var output: String
        var faststart = false
        var testDescription: String { "\(source) → \(output)\(faststart ? " (faststart)" : "")" }
    }

    static let cases: [Case] = [
        Case(source: "h264.mp4", output: "out.mp4"),
        Case(source: "h264.mp4", output: "out.mp4", faststart: true),
        Case(source: "h264.mp4", output: "out.mov"),
        Case(source: "fast.mp4", output: "out.mp4"),
        Case(source: "pcm.mov", output: "out.mov"),
        Case(source: "alac.m4a", output: "out.m4a"),
        Case(source: "sub.mp4", output: "out.mp4", faststart: true),
    ]

    @Test(arguments: cases)
    func exportCopiesEveryPacket(_ test: Case) async throws {
        let source = try AssetFixtures.url(test.source)
        let original = try Data(contentsOf: source)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent(test.output)

        let asset = try await Asset.load(url: source)
        let session = ExportSession(asset: asset, preset: .passthrough)
        session.outputURL = out
        session.shouldOptimizeForNetworkUse = test.faststart
        session.metadata.title = "Exported ✓"
        session.metadata.artist = "MetadataKit"
        let fractions = FractionLog()
        session.progressHandler = { fractions.add($0) }
        try await session.export()

        #expect(try Data(contentsOf: source) == original, "the input must be untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [test.output])
        #expect(try AssetFixtures.probeErrors(out).isEmpty)
        let streams = try AssetFixtures.streamCount(source)
        #expect(try AssetFixtures.streamCount(out) == streams)
        for stream in 0..<streams {
            #expect(
                try AssetFixtures.streamHash(out, stream: stream) == AssetFixtures.streamHash(source, stream: stream), "stream \(stream)")
            // ffmpeg cuts PCM chunks into packets of up to 1024 frames, so PCM
            // packets follow the chunking; their bytes are compared by the hash.
            if try AssetFixtures.codecName(source, stream: stream).hasPrefix("pcm_") { continue }
            #expect(try AssetFixtures.packets(out, stream: stream) == AssetFixtures.packets(source, stream: stream), "stream \(stream)")
        }
        // It plays: every audio and video stream decodes without a complaint.
        let decoded = try AssetFixtures.standardError(
            "ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"])
        #expect(decoded.isEmpty)
        let exported = try await Asset.load(url: out)
        #expect(exported.isMovieHeaderFirst == test.faststart)
        #expect(exported.tracks.map(\.editList) == asset.tracks.map(\.editList))
        #expect(exported.tracks.map(\.references) == asset.tracks.map(\.references))
        #expect(exported.tracks.map(\.sampleDescriptions) == asset.tracks.map(\.sampleDescriptions))
        #expect(exported.tracks.map(\.language) == asset.tracks.map(\.language))
        #expect(exported.tracks.map(\.handlerName) == asset.tracks.map(\.handlerName))
        #expect(try await AssetFixtures.longestChunk(out) <= 1.0)
        #expect(try AssetFixtures.formatTag(out, "title") == "Exported ✓")
        #expect(try AssetFixtures.formatTag(out, "artist") == "MetadataKit")
        if MP4Tools.hasMutagen, test.output.hasSuffix(".mov") == false {
            let title = try MP4Tools.run(
                "python3", ["-c", "import mutagen,sys; print(mutagen.File(sys.argv[1]).tags['\\xa9nam'][0])", out.path])
            #expect(title.trimmingCharacters(in: .whitespacesAndNewlines) == "Exported ✓")
        }
        if MP4Tools.has("exiftool") {
            let title = try MP4Tools.run("exiftool", ["-s3", "-Title", out.path])
            #expect(title.trimmingCharacters(in: .whitespacesAndNewlines) == "Exported ✓")
        }
        let values = fractions.values
        #expect(values.last == 1)
        #expect(values == values.sorted())
    }

    /// A fast-start export plans the layout from the sample tables first and
    /// writes the file in one pass: half-way through, the only file is the
    /// output-to-be and `moov` already follows its `ftyp`. Offsets past the
    /// (lowered) 32-bit limit become `co64`, with a 64-bit `mdat` size; timed
    /// metadata samples (bytes from memory) are laid out like the copied ones.
    @Test func fastStartExportWritesInOnePass() async throws {
        let source = try AssetFixtures.url("h264.mp4")
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("fast.mp4")
        let session = ExportSession(asset: try await Asset.load(url: source))
        session.outputURL = out
        session.shouldOptimizeForNetworkUse = true
        session.sizeLimit = 1000
        let annotations = TestSupport.packageRoot.appendingPathComponent("Examples/annotations/annotations.json")
        let document = try TimedMetadataDocument(json: Data(contentsOf: annotations))
        session.timedMetadata = [document]
        let seen = TextLog()
        session.progressHandler = { fraction in
            guard fraction >= 0.5, fraction < 1, seen.values.isEmpty else { return }
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            var second = "-"
            if files.count == 1, let bytes = try? [UInt8](Data(contentsOf: directory.appendingPathComponent(files[0]))), bytes.count >= 8 {
                let size = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
                if bytes.count >= size + 8 { second = String(decoding: bytes[size + 4..<size + 8], as: UTF8.self) }
            }
            seen.add("\(files.count) file(s), second box \(second)")
        }
        try await session.export()

        #expect(seen.values == ["1 file(s), second box moov"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["fast.mp4"])
        let exported = try await Asset.load(url: out)
        #expect(exported.isMovieHeaderFirst)
        let bytes = try Data(contentsOf: out)
        #expect(bytes.range(of: Data("co64".utf8)) != nil)
        #expect(bytes.range(of: Data("stco".utf8)) == nil)
        #expect(try AssetFixtures.probeErrors(out).isEmpty)
        for stream in 0..<2 {
            #expect(
                try AssetFixtures.streamHash(out, stream: stream) == AssetFixtures.streamHash(source, stream: stream), "stream \(stream)")
            #expect(try AssetFixtures.packets(out, stream: stream) == AssetFixtures.packets(source, stream: stream), "stream \(stream)")
        }
        // The last group ends at the end of the 4-second movie: it comes back open-ended.
        var expected = document.groups
        expected[expected.count - 1].duration = nil
        #expect(exported.durationSeconds == 4)
        #expect(try await TimedMetadataTrack.document(of: exported).groups == expected)
        #expect(try await AssetFixtures.longestChunk(out) <= 1.0)
    }

    @Test func timeRangeStartsAtASyncSampleWithTheRightDuration() async throws {
        let source = try AssetFixtures.url("h264.mp4")
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("cut.mp4")
        let session = ExportSession(asset: try await Asset.load(url: source))
        session.outputURL = out
        session.timeRange = ExportTimeRange(start: 1.3, end: 2.5)
        try await session.export()

        #expect(try AssetFixtures.probeErrors(out).isEmpty)
        let frame = 1.0 / 25
        #expect(abs(try AssetFixtures.formatDuration(out) - 1.2) <= frame)
        let video = try AssetFixtures.packets(out, stream: 0)
        #expect(video.first?.split(separator: ",").last?.hasPrefix("K") == true, "\(video.first ?? "")")
        let decoded = try MP4Tools.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "0",
                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out.path,
            ])
        #expect(abs((Int(decoded.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 30) <= 1)
        // Every exported packet is a packet of the source.
        let sourceHashes = try packetHashes(source, stream: 0)
        #expect(try packetHashes(out, stream: 0).allSatisfy(sourceHashes.contains))

        // PCM and timecode in a QuickTime movie.
        let mov = directory.appendingPathComponent("cut.mov")
        let movSession = ExportSession(asset: try await Asset.load(url: try AssetFixtures.url("pcm.mov")))
        movSession.outputURL = mov
        movSession.timeRange = ExportTimeRange(start: 0.5, end: 2)
        try await movSession.export()
        #expect(try AssetFixtures.probeErrors(mov).isEmpty)
        #expect(abs(try AssetFixtures.formatDuration(mov) - 1.5) <= frame)
        #expect(try await Asset.load(url: mov).tracks.map(\.mediaType) == [.video, .audio, .timecode])
    }

    private func packetHashes(_ url: URL, stream: Int) throws -> Set<String> {
        let text = try MP4Tools.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:\(stream)", "-c", "copy", "-f", "framemd5", "-"])
        return Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) })
    }

    @Test func chosenTracksAndMetadataPolicies() async throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagged = directory.appendingPathComponent("tagged.mp4")
        try MP4Tools.run(
            "ffmpeg",
            [
                "-v", "error", "-i", try AssetFixtures.url("h264.mp4").path, "-c", "copy",
                "-metadata", "title=Source", "-metadata", "album=Kept", tagged.path,
            ])
        let asset = try await Asset.load(url: tagged)

        let merged = directory.appendingPathComponent("merged.m4a")
        let merge = ExportSession(asset: asset)
        merge.outputURL = merged // .m4a: the audio track by default
        merge.metadata.title = "New"
        merge.metadata.items = [MetadataItem(keySpace: .iTunes, key: "----:com.apple.iTunes:MOOD", value: .string("calm"), dataType: .utf8)]
        try await merge.export()
        let mergedAsset = try await Asset.load(url: merged)
        #expect(mergedAsset.tracks.map(\.mediaType) == [.audio])
        #expect(mergedAsset.brands.first == "M4A ")
        #expect(mergedAsset.metadata.title == "New")
        #expect(mergedAsset.metadata.album == "Kept")
        #expect(mergedAsset.metadataItems.contains { $0.key == "----:com.apple.iTunes:MOOD" && $0.value == .string("calm") })
        #expect(try AssetFixtures.streamHash(merged, stream: 0) == AssetFixtures.streamHash(tagged, stream: 1))

        let replaced = directory.appendingPathComponent("replaced.mp4")
        let replace = ExportSession(asset: asset)
        replace.outputURL = replaced
        replace.metadataPolicy = .replace
        replace.metadata.artist = "Only"
        try await replace.export()
        let replacedAsset = try await Asset.load(url: replaced)
        #expect(replacedAsset.metadata.artist == "Only")
        #expect(replacedAsset.metadata.title == nil && replacedAsset.metadata.album == nil)

        let added = directory.appendingPathComponent("added.mp4")
        let add = ExportSession(asset: asset)
        add.outputURL = added
        add.metadataPolicy = .add
        add.metadata.title = "Ignored"
        add.metadata.composer = "Added"
        try await add.export()
        let addedAsset = try await Asset.load(url: added)
        #expect(addedAsset.metadata.title == "Source")
        #expect(addedAsset.metadata.composer == "Added")
    }

    @Test func cancellationAndFailuresLeaveNoOutput() async throws {
        let source = try AssetFixtures.url("raw.mov")
        let asset = try await Asset.load(url: source)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("cancelled.mov")
        let session = ExportSession(asset: asset)
        session.outputURL = out
        session.shouldOptimizeForNetworkUse = true
        let fractions = FractionLog()
        session.progressHandler = { fraction in
            fractions.add(fraction)
            // The handler runs on the exporting task: cancel it a fifth of the way in.
            if fraction > 0.2 { withUnsafeCurrentTask { $0?.cancel() } }
        }
        let export = Task { [session] in try await session.export() }
        let cancelled = await #expect(throws: MediaError.self) { try await export.value }
        #expect(cancelled?.code == .cancelled)
        #expect(fractions.values.last.map { $0 > 0.2 && $0 < 1 } == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        // A folder that doesn't exist: an io error, nothing written.
        let nowhere = ExportSession(asset: asset)
        nowhere.outputURL = directory.appendingPathComponent("missing/out.mov")
        await #expect { try await nowhere.export() } throws: { ($0 as? MediaError)?.code == .io }

        // Fragmented input: refused.
        let fragmented = ExportSession(asset: try await Asset.load(url: try AssetFixtures.url("frag.mp4")))
        fragmented.outputURL = directory.appendingPathComponent("frag-out.mp4")
        await #expect { try await fragmented.export() } throws: { ($0 as? MediaError)?.code == .unsupportedFeature }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// The export of ~20 MB of uncompressed video peaks at most 12 MB above
    /// the export of a small movie. Measured in `mdkit export` processes of
    /// their own (their peak RSS, from `getrusage` of the children of a
    /// Python wrapper): the test process's peak counts every test running
    /// beside it in a parallel suite.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func largeExportKeepsMemoryFlat() throws {
        let executable = try #require(TestSupport.mdkitExecutable)
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func peakKiB(_ name: String) throws -> (kib: Int, out: URL) {
            let out = directory.appendingPathComponent("copy-" + name)
            let script =
                "import resource, subprocess, sys; status = subprocess.run(sys.argv[1:]).returncode; "
                + "print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
            let result = try TestSupport.run(
                "python3", ["-c", script, executable.path, "export", try AssetFixtures.url(name).path, out.path])
            // The wrapper's line comes last, after what mdkit printed.
            let last = result.text.split(separator: "\n").last ?? ""
            let fields = last.split(separator: " ").compactMap { Int($0) }
            #expect(result.status == 0 && fields.count == 2 && fields[0] == 0, "\(result.text) \(result.standardError)")
            return (fields.count == 2 ? fields[1] : Int.max / 2, out)
        }
        let small = try peakKiB("pcm.mov")
        let large = try peakKiB("raw.mov")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: try AssetFixtures.url("raw.mov").path)[.size] as? Int)
        print("export of \(size) bytes: peak RSS \(large.kib) KiB, of a small movie \(small.kib) KiB")
        #expect(size > 15_000_000)
        #expect(large.kib - small.kib < 12 * 1024)
        #expect(try AssetFixtures.streamHash(large.out, stream: 0) == AssetFixtures.streamHash(try AssetFixtures.url("raw.mov"), stream: 0))
    }

    // MARK: CLI

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func tracksCommandListsTracksAsJSON() throws {
        let path = try AssetFixtures.url("pcm.mov").path
        let output = try mdkit(["tracks", "--json", path])
        #expect(output.status == 0, "\(output.standardError)")
        let files = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        let tracks = try #require(files.first?["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["mediaType"] as? String } == ["video", "audio", "timecode"])
        #expect(tracks.map { $0["codec"] as? String } == ["mp4v", "sowt", "tmcd"])
        #expect(tracks[1]["sampleRate"] as? Int == 44100)
        #expect(tracks[0]["width"] as? Int == 160)
        let references = try #require(tracks[0]["references"] as? [[String: Any]])
        #expect(references.first?["type"] as? String == "tmcd")
        #expect((tracks[0]["editList"] as? [Any])?.count == 1)
        #expect((tracks[2]["sampleDescriptions"] as? [[String: Any]])?.first?["type"] as? String == "tmcd")
        let table = try mdkit(["tracks", path])
        #expect(table.status == 0 && table.text.contains("timecode"))
        #expect(try mdkit(["tracks", "--help"]).text.contains("sampleDescriptions"))
        #expect(try mdkit(["tracks", "/nonexistent.mp4"]).status == 1)
        #expect(try mdkit(["tracks"]).status == 2)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func exportCommandCutsAndTags() throws {
        let directory = try MP4Tools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try AssetFixtures.url("h264.mp4").path
        let out = directory.appendingPathComponent("cli.mp4").path
        let output = try mdkit([
            "export", source, out, "--tracks", "1", "--start", "1", "--end", "3", "--faststart",
            "--set", "title=CLI", "--set", "year=2026",
        ])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(!output.standardError.contains("["), "no progress bar when stderr is not a terminal")
        #expect(try AssetFixtures.formatTag(URL(fileURLWithPath: out), "title") == "CLI")
        #expect(try AssetFixtures.streamCount(URL(fileURLWithPath: out)) == 1)
        #expect(abs(try AssetFixtures.formatDuration(URL(fileURLWithPath: out)) - 2) <= 0.04)
        #expect(try mdkit(["export", source]).status == 2)
        #expect(try mdkit(["export", source, out, "--start", "x"]).status == 2)
        #expect(try mdkit(["export", source, directory.appendingPathComponent("x.avi").path]).status == 2)
        #expect(try mdkit(["export", "/nonexistent.mp4", out]).status == 1)
        #expect(try mdkit(["export", source, out, "--tracks", "9"]).status == 1)
        #expect(try mdkit(["export", source, source]).status == 1, "the input is never the output")
    }
}
