import Foundation
import Testing

@testable import MetadataKit

/// Whole movies built by hand (``MovieBuilder``): version 1 headers, sample
/// tables whose counts disagree, chunk offsets past the end of the file or
/// near 2^63, and chunk tables that point at one block over and over.
@Suite struct AssetSampleTableTests {
    typealias B = MP4Builder

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments)
    }

    /// Video samples of 10 + index bytes, each byte its sample's index.
    func videoTrack(count: Int = 10, version: UInt8 = 0) -> MovieBuilder.Track {
        MovieBuilder.Track(
            id: 1, handler: "vide", entry: MovieBuilder.videoEntry(), timescale: 600,
            samples: (0..<count).map { [UInt8](repeating: UInt8($0), count: 10 + $0) },
            durations: Array(repeating: 40, count: count), samplesPerChunk: 3, version: version,
            width: 64, height: 48)
    }

    func samples(of asset: Asset, track: Int = 0) throws -> [Sample] {
        let reader = try AssetReader(asset: asset)
        try reader.addOutput(track: asset.tracks[track])
        var samples: [Sample] = []
        while let sample = try reader.nextSample() { samples.append(sample) }
        return samples
    }

    // MARK: Version 1 headers

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func version1HeadersLoadListAndExport() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var video = videoTrack(version: 1)
        video.editList = [(duration: 120, mediaTime: -1), (duration: 400, mediaTime: 80)]
        let bytes = MovieBuilder.movie([video], movieTimescale: 600, mvhdVersion: 1)
        // The tkhd is the 96-byte v1 payload (plus its 8-byte header).
        let tkhd = try #require(Data(bytes).range(of: Data("tkhd".utf8)))
        #expect(bytes[tkhd.lowerBound - 1] == 104 && bytes[tkhd.upperBound] == 1)
        let url = try MovieBuilder.write(bytes, to: directory, name: "v1.mov")

        let asset = try await Asset.load(url: url)
        #expect(asset.movieTimescale == 600 && asset.movieDuration == 520)
        let track = try #require(asset.tracks.first)
        #expect(track.id == 1 && track.width == 64 && track.height == 48)
        #expect(track.timescale == 600 && track.duration == 400 && track.sampleCount == 10)
        #expect(track.editList == [EditListEntry(segmentDuration: 120, mediaTime: -1), EditListEntry(segmentDuration: 400, mediaTime: 80)])
        #expect(asset.warnings.isEmpty)
        #expect(try await samples(of: asset).asyncMap { try await $0.data() } == video.samples)

        let exported = directory.appendingPathComponent("out.mov")
        let session = ExportSession(asset: asset)
        session.outputURL = exported
        try await session.export()
        #expect(try await samples(of: try await Asset.load(url: exported)).asyncMap { try await $0.data() } == video.samples)

        let tracks = try mdkit(["tracks", "--json", url.path])
        #expect(tracks.status == 0, "\(tracks.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: tracks.standardOutput) as? [[String: Any]])
        let first = try #require((json.first?["tracks"] as? [[String: Any]])?.first)
        #expect(first["id"] as? Int == 1 && first["sampleCount"] as? Int == 10)
        #expect(json.first?["warnings"] == nil)
    }

    // MARK: Counts that disagree

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func chunksThatHoldFewerSamplesKeepTheConsistentPrefix() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var video = videoTrack()
        // Two chunks of three: six of the ten samples 'stsz' lists.
        let ftypAndMdat = B.ftyp("qt  ", ["qt  ", "isom"]).count + 8
        video.replacing["stco"] = B.fullBox("stco", B.u32(2) + B.u32(ftypAndMdat) + B.u32(ftypAndMdat + 33))
        // 'stts' times only eight samples.
        video.replacing["stts"] = B.fullBox("stts", B.u32(1) + B.u32(8) + B.u32(40))
        let url = try MovieBuilder.write(MovieBuilder.movie([video], movieTimescale: 600), to: directory, name: "short.mov")
        let asset = try await Asset.load(url: url)
        let track = try #require(asset.tracks.first)
        #expect(track.sampleCount == 6)
        #expect(track.totalSampleBytes == Int64((10..<16).reduce(0, +)))
        #expect(track.sampleTable.totalDuration == 240)
        #expect(try await samples(of: asset).asyncMap { try await $0.data() } == Array(video.samples.prefix(6)))
        #expect(asset.warnings.count == 1)
        #expect(asset.warnings.first?.message.contains("hold 6 samples; 'stsz' lists 10") == true)
        #expect(asset.warnings.first?.offset.map { bytes(url)[Int($0) + 4..<Int($0) + 8] == Array("stsc".utf8)[...] } == true)

        let table = try mdkit(["tracks", url.path])
        #expect(table.status == 0)
        #expect(table.text.contains("  warning: track 1: 'stsc' and 'stco' hold 6 samples"), "\(table.text)")
        let json = try mdkit(["tracks", "--json", url.path])
        let object = try #require((try JSONSerialization.jsonObject(with: json.standardOutput) as? [[String: Any]])?.first)
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1 && (warnings[0]["offset"] as? Int).map { Int64($0) } == asset.warnings[0].offset)
        #expect((warnings[0]["message"] as? String)?.hasPrefix("track 1: 'stsc' and 'stco' hold 6 samples") == true)
    }

    @Test func sttsShorterThanStszKeepsTheLastDeltaWithAWarning() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var video = videoTrack()
        video.replacing["stts"] = B.fullBox("stts", B.u32(1) + B.u32(8) + B.u32(40))
        let url = try MovieBuilder.write(MovieBuilder.movie([video], movieTimescale: 600), to: directory, name: "stts.mov")
        let asset = try await Asset.load(url: url)
        #expect(asset.tracks[0].sampleCount == 10 && asset.tracks[0].sampleTable.totalDuration == 400)
        #expect(asset.warnings.map(\.message) == ["track 1: 'stts' times 8 samples; 'stsz' lists 10: the last delta is used for the rest"])
    }

    func bytes(_ url: URL) -> [UInt8] { (try? [UInt8](Data(contentsOf: url))) ?? [] }

    // MARK: Chunks outside the file

    @Test func samplesPastTheEndOfTheFileAreLeftOut() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var video = videoTrack(count: 6)
        let start = B.ftyp("qt  ", ["qt  ", "isom"]).count + 8
        let size = MovieBuilder.movie([video], movieTimescale: 600).count
        // The second chunk starts 20 bytes before the end: its first sample (13 bytes) fits, the second (14) doesn't.
        video.replacing["stco"] = B.fullBox("stco", B.u32(2) + B.u32(start) + B.u32(size - 20))
        let url = try MovieBuilder.write(MovieBuilder.movie([video], movieTimescale: 600), to: directory, name: "eof.mov")
        #expect(bytes(url).count == size)
        let asset = try await Asset.load(url: url)
        #expect(asset.tracks[0].sampleCount == 4)
        #expect(
            asset.warnings.count == 1
                && asset.warnings[0].message.contains("sample 5 (chunk 2 of 'stco'): its bytes run past the end of the file"))
        let read = try samples(of: asset)
        #expect(read.count == 4 && read.allSatisfy { $0.offset! + Int64($0.size) <= Int64(size) })
    }

    /// A `co64` offset near 2^63 used to trap on overflow in the cursor (SIGILL in `mdkit timed` and `export`).
    @Test(
        .enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"),
        arguments: [UInt64(0x7FFF_FFFF_FFFF_FFF0), 0xFFFF_FFFF_FFFF_FFF0, 0x8000_0000_0000_0000])
    func chunkOffsetsNear2To63AreLeftOut(offset: UInt64) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let groups = try (0..<6).map { try MovieBuilder.textGroup("note \($0)") }
        var meta = try MovieBuilder.metadataTrack(id: 2, groups: groups, timescale: 600, durations: Array(repeating: 40, count: 6))
        meta.samplesPerChunk = 3
        let video = videoTrack(count: 6)
        let plain = MovieBuilder.movie([video, meta], movieTimescale: 600)
        let firstMeta = Int(try await Asset.load(bytes: plain, in: directory).tracks[1].sampleTable.chunkOffset(0))
        meta.replacing["stco"] = B.fullBox("co64", B.u32(2) + B.u64(UInt64(firstMeta)) + B.u64(offset))
        let url = try MovieBuilder.write(MovieBuilder.movie([video, meta], movieTimescale: 600), to: directory, name: "co64.mov")

        let asset = try await Asset.load(url: url)
        #expect(asset.tracks[1].sampleCount == 3)
        #expect(
            asset.warnings.count == 1 && asset.warnings[0].message.contains("chunk 2 of 'co64' lies at \(offset), past the end of the file")
        )
        let document = try await TimedMetadataTrack.document(of: asset)
        #expect(document.groups.map(\.items) == groups.prefix(3).map(\.items))

        let timed = try mdkit(["timed", url.path])
        #expect(timed.status == 0, "\(timed.standardError)")
        #expect(try TimedMetadataDocument(json: timed.standardOutput).groups.count == 3)
        #expect(timed.standardError.contains("warning: track 2: chunk 2 of 'co64'"))
        let out = directory.appendingPathComponent("out.mov")
        let export = try mdkit(["export", url.path, out.path])
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try await Asset.load(url: out).tracks.map(\.sampleCount) == [6, 3])
    }

    /// Every chunk offset points at the same block: the sample count no longer multiplies
    /// (it used to reach tens of millions from a file of 100 KB, and `timed` grew past 20 GB).
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func chunksThatAllPointAtOneBlockAreBoundedByTheFileSize() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let group = try MovieBuilder.textGroup("x")
        let sample = try MetadataSampleFormat(groups: [group]).sample(for: group) // 9 bytes
        let perChunk = 1000, chunks = 20_000
        var meta = try MovieBuilder.metadataTrack(
            id: 2, groups: Array(repeating: group, count: perChunk), timescale: 600,
            durations: Array(repeating: 1, count: perChunk))
        meta.samplesPerChunk = perChunk
        let claimed = perChunk * chunks // 20 million samples
        meta.replacing["stsz"] = B.fullBox("stsz", B.u32(sample.count) + B.u32(claimed))
        meta.replacing["stts"] = B.fullBox("stts", B.u32(1) + B.u32(claimed) + B.u32(1))
        let video = videoTrack(count: 3)
        let plain = MovieBuilder.movie([video, meta], movieTimescale: 600)
        let block = try await Asset.load(bytes: plain, in: directory).tracks[1].sampleTable.chunkOffset(0)
        meta.replacing["stco"] = B.fullBox("stco", B.u32(chunks) + (0..<chunks).flatMap { _ in B.u32(Int(block)) })
        let url = try MovieBuilder.write(MovieBuilder.movie([video, meta], movieTimescale: 600), to: directory, name: "same-block.mov")
        let fileSize = bytes(url).count
        #expect(fileSize < 120_000)

        let asset = try await Asset.load(url: url)
        let track = asset.tracks[1]
        // Bounded by the file: the samples' bytes add up to at most its size.
        #expect(track.sampleCount <= fileSize / sample.count && track.sampleCount >= perChunk)
        #expect(track.totalSampleBytes <= Int64(fileSize))
        #expect(asset.warnings.count == 1 && asset.warnings[0].message.contains("hold more bytes than the file (chunks overlap)"))
        #expect(try samples(of: asset, track: 1).count == track.sampleCount)

        let timed = try mdkit(["timed", url.path])
        #expect(timed.status == 0, "\(timed.standardError)")
        #expect(try TimedMetadataDocument(json: timed.standardOutput).groups.count == track.sampleCount)
    }
}
