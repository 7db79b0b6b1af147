import Foundation
import Testing

@testable import MetadataKit

/// An ``Asset`` finds a file's format as ``MediaItem`` does (the registry),
/// and its tracks are the streams the item lists: one track type for both.
@Suite struct AssetRegistryTests {
    @Test func anAssetListsTheTracksTheItemLists() async throws {
        var opened = (movies: 0, described: 0, singleStream: 0)
        for url in DataSourceTests.corpus {
            let name = url.lastPathComponent
            guard let item = try? await MediaItem(contentsOf: url) else { continue }
            let asset = await Result.awaiting { try await Asset.load(url: url) }
            switch asset {
            case .success(let asset):
                #expect(asset.format?.identifier == item.format?.identifier, "\(name): the same detection")
                if asset.hasSampleTables {
                    opened.movies += 1
                    #expect(asset.format?.identifier == MediaFormat.mp4.identifier, "\(name)")
                    // The item lists the tracks that have a sample description, as the asset reads them.
                    for stream in item.properties.streams {
                        let track = try #require(asset.track(id: stream.id), "\(name): track \(stream.id)")
                        #expect(track.mediaType == stream.mediaType && track.codecName == stream.codecName, "\(name)")
                    }
                } else {
                    opened.described += 1
                    #expect(asset.tracks == item.properties.streams, "\(name)")
                    #expect(asset.fileType == item.fileType && asset.metadata.items == item.metadata.items, "\(name)")
                    #expect(throws: MediaError.self, "\(name): described tracks have no samples to read") {
                        try AssetReader(asset: asset)
                    }
                }
            case .failure(let error):
                let code = (error as? MediaError)?.code
                if item.properties.streams.isEmpty, item.format?.identifier != MediaFormat.mp4.identifier {
                    opened.singleStream += 1
                    #expect(code == .unsupportedFormat, "\(name): \(error)")
                } else {
                    #expect(code != nil && code != .unsupportedFormat, "\(name): \(error)")
                }
            }
        }
        #expect(opened.movies >= 10 && opened.described >= 3 && opened.singleStream >= 20, "\(opened)")
    }

    @Test func aMatroskaFileOpensAsAnAssetWithDescribedTracks() async throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Fuzz/corpus/matroska/ffmpeg-chapters-cover.mkv")
        let asset = try await Asset.load(url: url)
        #expect(asset.format?.identifier == MediaFormat.matroska.identifier && !asset.hasSampleTables)
        #expect(!asset.tracks.isEmpty && asset.tracks.allSatisfy { $0.id > 0 && $0.codecID != nil && $0.sampleCount == 0 })
        #expect(asset.durationSeconds > 0)
        let error = #expect(throws: MediaError.self) { try AssetReader(asset: asset) }
        #expect(error?.code == .unsupportedFeature)
    }
}
