import Foundation
import Testing

@testable import MetadataKit

/// The accessors that read bytes — `Artwork.data()`, `Sample.data()`,
/// `TimedMetadataTrack.document(of:)` — are async and throw only `MediaError`.
@Suite struct AsyncAccessorTests {
    typealias B = ID3Builder

    @Test func aPictureIsReadFromItsFileAndAVanishedFileIsAnIOErrorNamingIt() async throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("APIC", B.picture(B.tinyPNG, mime: "image/png", description: "", encoding: 3))]
        let url = try B.file(tag.bytes())
        defer { try? FileManager.default.removeItem(at: url) }
        let artwork = try #require(try await MediaItem(contentsOf: url).metadata.artwork.first)
        #expect(try await artwork.data() == Data(B.tinyPNG))

        try FileManager.default.removeItem(at: url)
        do {
            _ = try await artwork.data()
            Issue.record("a picture of a removed file was read")
        } catch {
            // Typed: `error` is a MediaError without a cast.
            #expect(error.code == .io)
            #expect(error.path == url.path)
        }
    }

    @Test func aSamplesDataIsTheBytesAtItsOffset() async throws {
        let url = TestSupport.fixtures.appendingPathComponent("valid/sample.m4a")
        let file = try Data(contentsOf: url)
        let asset = try await Asset.load(url: url)
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        var count = 0
        while let sample = try reader.nextSample() {
            let offset = Int(try #require(sample.offset))
            #expect(try await sample.data() == [UInt8](file[offset..<offset + sample.size]))
            count += 1
        }
        #expect(count > 10)
        let made = Sample(trackID: 1, data: [1, 2, 3], decodeTime: 0, presentationTime: 0, duration: 1, timescale: 1)
        #expect(try await made.data() == [1, 2, 3])
    }

    @Test func aMovieWithoutTimedMetadataIsUnsupported() async throws {
        let asset = try await Asset.load(url: TestSupport.fixtures.appendingPathComponent("valid/sample.m4a"))
        do {
            _ = try await TimedMetadataTrack.document(of: asset)
            Issue.record("a document was read from a movie without a timed metadata track")
        } catch {
            #expect(error.code == .unsupportedFeature)
        }
    }
}
