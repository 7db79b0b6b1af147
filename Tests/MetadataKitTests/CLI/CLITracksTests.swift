import Foundation
import Testing

@testable import MetadataKit

/// `mdkit tracks` opens every file as an ``Asset``: MP4 tracks with their
/// sample tables, other formats' tracks as described, single-stream files
/// refused.
@Suite(.enabled(if: Capabilities.mdkit, "needs the mdkit binary"))
struct CLITracksTests {
    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        return try TestSupport.run(executable.path, arguments)
    }

    @Test func everyFormatGoesThroughTheAsset() async throws {
        let root = TestSupport.packageRoot
        let mkv = root.appendingPathComponent("Fuzz/corpus/matroska/ffmpeg-chapters-cover.mkv")
        let m4a = root.appendingPathComponent("Tests/Fixtures/valid/sample.m4a")
        let mp3 = root.appendingPathComponent("Tests/Fixtures/valid/sample.mp3")
        let output = try mdkit(["tracks", "--json", mkv.path, m4a.path, mp3.path])
        #expect(output.status == 1, "the MP3 has no tracks to list")
        let objects = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        #expect(objects.count == 3)

        let asset = try await Asset.load(url: mkv)
        #expect(objects[0]["format"] as? String == asset.fileType?.identifier && objects[0]["brands"] == nil)
        let tracks = try #require(objects[0]["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["id"] as? Int } == asset.tracks.map { Int($0.id) })
        #expect(tracks.map { $0["codecID"] as? String } == asset.tracks.map(\.codecID))
        #expect(tracks.map { $0["mediaType"] as? String } == asset.tracks.map(\.mediaType.rawValue))

        let movie = try await Asset.load(url: m4a)
        #expect(objects[1]["brands"] as? [String] == movie.brands.map(\.description))
        let movieTracks = try #require(objects[1]["tracks"] as? [[String: Any]])
        #expect(movieTracks.map { $0["sampleCount"] as? Int } == movie.tracks.map(\.sampleCount))
        #expect(movie.tracks.allSatisfy { $0.sampleCount > 0 })

        let error = try #require(objects[2]["error"] as? String)
        #expect(error.contains("one stream"), "\(error)")
    }
}
