import Foundation
import MetadataKit
import Observation
import Testing

/// What an app built on MetadataKit looks like in Swift 6 language mode with
/// complete concurrency checking: a `@MainActor @Observable` model holds an
/// item, edits it, inspects the save plan, saves, reads the artwork and
/// exports with progress — through the public API only (no `@testable`),
/// with no `@unchecked Sendable` anywhere in this target.
@MainActor @Observable
final class TrackEditorModel {
    private(set) var item: MediaItem?
    private(set) var plan: SavePlan?
    private(set) var coverByteCount = 0
    private(set) var exportStates: [ExportSession.Status] = []

    func open(_ url: URL) async throws {
        item = try await MediaItem(contentsOf: url)
    }

    func edit(title: String, artist: String, cover: Artwork) {
        item?.metadata.title = title
        item?.metadata.artist = artist
        item?.metadata.artwork = [cover]
    }

    func inspect() async throws {
        plan = try await item?.plan()
    }

    func save() async throws {
        guard let plan, let item else { return }
        self.item = try await item.saving(plan)
        self.plan = nil
    }

    func readCover() async throws {
        coverByteCount = try await item?.metadata.artwork.first?.data().count ?? 0
    }

    private(set) var sampleBytes = 0

    /// Reads every sample's bytes in a detached task (the reader crosses
    /// from the main actor: it is Sendable).
    func readSamples() async throws {
        guard let item else { return }
        let reader = try AssetReader(asset: try await Asset.load(url: item.url))
        for track in reader.asset.tracks { try reader.addOutput(track: track) }
        sampleBytes = try await Task.detached {
            var total = 0
            for try await sample in reader { total += try await sample.data().count }
            return total
        }.value
    }

    func export(to output: URL) async throws {
        guard let item else { return }
        let asset = try await Asset.load(url: item.url)
        let session = ExportSession(asset: asset)
        let states = session.states()
        let watcher = Task { @MainActor in
            for await state in states { exportStates.append(state) }
        }
        try await session.export(to: output, as: .m4a)
        await watcher.value
    }
}

@Suite struct AppModelTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/valid")

    @MainActor @Test func aMainActorModelOpensEditsPlansSavesAndExports() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("song.m4a")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("sample.m4a"), to: url)
        let png = try Data(contentsOf: Self.fixtures.appendingPathComponent("cover.png"))

        let model = TrackEditorModel()
        try await model.open(url)
        model.edit(title: "Überschrift", artist: "Somebody", cover: Artwork(data: png, mimeType: "image/png"))
        try await model.inspect()
        let plan = try #require(model.plan)
        #expect(Set(plan.fieldChanges.map(\.field)).isSuperset(of: [.title, .artist, .artwork]))

        try await model.save()
        let reread = try await MediaItem(contentsOf: url)
        #expect(reread.metadata.title == "Überschrift" && reread.metadata.artist == "Somebody")
        try await model.readCover()
        #expect(model.coverByteCount == png.count)

        try await model.readSamples()
        #expect(model.sampleBytes > 1000)

        let output = folder.appendingPathComponent("copy.m4a")
        try await model.export(to: output)
        #expect(model.exportStates.first == .exporting(progress: 0) || model.exportStates.first == .pending)
        #expect(model.exportStates.last == .completed)
        #expect(model.exportStates.contains(.exporting(progress: 1)))
        let exported = try await MediaItem(contentsOf: output)
        #expect(exported.metadata.title == "Überschrift")
    }
}
