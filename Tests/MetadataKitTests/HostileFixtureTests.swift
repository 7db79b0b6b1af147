import Foundation
import Testing

@testable import MetadataKit

/// Every file in Tests/Fixtures/hostile (hand-made damage, and what the
/// fuzzers in Fuzz/ found) must fail cleanly — a MediaError that names the
/// file — or read with warnings; never crash, hang or read as if sound.
/// MP4-family files also go through ``Asset``: loading, every sample of
/// every track, and the timed metadata reader. Files named `asset-*` are
/// damage only the Asset path sees (sample tables), so their tags may read
/// without a warning.
@Suite struct HostileFixtureTests {
    static let directory = TestSupport.fixtures.appendingPathComponent("hostile")
    static let files: [String] = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []

    /// More samples than this in a small hostile file is a sample table
    /// that claims more than the file holds; the test stops there and fails.
    static let maximumSamples = 1 << 20

    @Test func thereAreHostileFixtures() {
        #expect(Self.files.count >= 10)
    }

    @Test(arguments: files)
    func failsCleanlyOrWarns(name: String) async throws {
        let url = Self.directory.appendingPathComponent(name)
        var item = MediaItem(url: url)
        do {
            try await item.load()
        } catch {
            #expect(error.path == url.path)
            #expect(item.isLoaded == false)
            return
        }
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
        if !name.hasPrefix("asset-") {
            #expect(!item.warnings.isEmpty, "\(name) read as if it were sound")
        }
        for warning in item.warnings {
            if let offset = warning.offset { #expect((0...Int64(size)).contains(offset), "\(warning)") }
        }
        if let duration = item.properties.duration { #expect(duration.isFinite && duration >= 0) }
    }

    /// The MP4-family fixtures, by their first bytes (a box type at 4..<8).
    static let mp4Files: [String] = files.filter { name in
        guard let handle = FileHandle(forReadingAtPath: directory.appendingPathComponent(name).path),
            let head = try? handle.read(upToCount: 8), head.count == 8
        else { return false }
        let type = FourCC(UInt32(head[4]) << 24 | UInt32(head[5]) << 16 | UInt32(head[6]) << 8 | UInt32(head[7]))
        return MP4Parser.topLevelTypes.contains(type)
    }

    @Test func someFixturesAreMP4() {
        #expect(Self.mp4Files.count >= 5, "\(Self.mp4Files)")
    }

    @Test(arguments: mp4Files)
    func assetReadsCleanlyOrFails(name: String) async throws {
        let url = Self.directory.appendingPathComponent(name)
        let asset: Asset
        do {
            asset = try await Asset.load(url: url)
        } catch {
            #expect(error.path == url.path)
            return
        }
        do {
            let reader = try AssetReader(asset: asset)
            for track in asset.tracks { try reader.addOutput(track: track) }
            var count = 0
            while let sample = try reader.nextSample() {
                count += 1
                guard count <= Self.maximumSamples else {
                    Issue.record("\(name): more than \(Self.maximumSamples) samples")
                    break
                }
                #expect(try await sample.data().count == sample.size)
            }
        } catch {
        }
        do {
            let document = try await TimedMetadataTrack.document(of: asset)
            _ = document.webVTT(movieDuration: asset.durationSeconds)
        } catch {
            // document(of:) throws only MediaError (typed throws).
        }
    }

    @Test func validSamplesLoad() async throws {
        for name in ["sample.mp3", "sample.m4a"] {
            var item = MediaItem(url: TestSupport.fixtures.appendingPathComponent("valid/\(name)"))
            try await item.load()
            #expect(item.metadata.title == "Sine in A")
        }
    }
}
