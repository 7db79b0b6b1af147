import Foundation
import Testing

@testable import MetadataKit

/// Items read from `Data` (``MediaItem/init(data:filename:)``) read as the
/// same file read from disk does: the project's fixtures and every fuzz
/// seed (real files of every format, damaged and hostile ones included).
@Suite struct DataSourceTests {
    /// The files of Tests/Fixtures and Fuzz/corpus.
    static var corpus: [URL] {
        let root = TestSupport.packageRoot
        let folders =
            ["valid", "damaged", "hostile"].map { root.appendingPathComponent("Tests/Fixtures/\($0)") }
            + ((try? FileManager.default.contentsOfDirectory(
                at: root.appendingPathComponent("Fuzz/corpus"), includingPropertiesForKeys: nil))
                ?? [])
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []).filter {
                !$0.hasDirectoryPath
            }
        }.sorted { $0.path < $1.path }
    }

    /// A picture as what it is: its fields and its bytes.
    static func shown(_ item: MetadataItem) async throws -> String {
        guard let picture = item.value.picture else { return "\(item)" }
        return "\(item.keySpace):\(item.key) \(picture.mimeType) \(picture.pictureType) \(picture.description) "
            + "\(picture.width ?? 0)x\(picture.height ?? 0) \(try await picture.data().hashValue)"
    }

    @Test func dataReadsAsTheFileReads() async throws {
        let files = Self.corpus
        #expect(files.count >= 100, "the corpus: \(files.count) files")
        var compared = 0
        for url in files {
            var fromFile = MediaItem(url: url)
            var fromData = MediaItem(data: try Data(contentsOf: url), filename: url.path)
            let fileError = await Result.awaiting { try await fromFile.load() }.error
            let dataError = await Result.awaiting { try await fromData.load() }.error
            #expect(
                fileError?.code == dataError?.code,
                "\(url.lastPathComponent): \(String(describing: fileError)) vs \(String(describing: dataError))")
            guard fileError == nil, dataError == nil else { continue }
            compared += 1
            let name = url.lastPathComponent
            #expect(fromFile.fileType == fromData.fileType, "\(name)")
            #expect(fromFile.properties == fromData.properties, "\(name)")
            #expect(fromFile.warnings.map(\.description) == fromData.warnings.map(\.description), "\(name)")
            #expect(fromFile.chapterTables == fromData.chapterTables, "\(name)")
            let fromFileShown = try await fromFile.metadata.items.asyncMap(Self.shown)
            #expect(try await fromFileShown == fromData.metadata.items.asyncMap(Self.shown), "\(name)")
            for field in MetadataField.allCases where field != .artwork {
                #expect(fromFile.metadata[field] == fromData.metadata[field], "\(name) \(field)")
            }
            #expect(!fromData.isEditable)
        }
        #expect(compared >= 60, "files both reads loaded: \(compared)")
    }

    @Test func anItemReadFromMemoryIsNotSaved() async throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/valid/sample.mp3")
        var item = try await MediaItem(loading: try Data(contentsOf: url), filename: "sample.mp3")
        #expect(item.metadata.title == "Sine in A")
        item.metadata.title = "Other"
        do {
            try await item.save()
            Issue.record("an item read from memory was saved")
        } catch {
            #expect(error.code == .unsupportedFeature)
        }
    }

    @Test func savingReturnsTheSavedItemAndLeavesTheValue() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        let url = folder.appendingPathComponent("sample.flac")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/valid/sample.flac"), to: url)
        var item = try await MediaItem(contentsOf: url)
        let title = item.metadata.title
        item.metadata.title = "Saved"
        let saved = try await item.saving()
        #expect(saved.metadata.title == "Saved" && !saved.hasChanges)
        #expect(item.hasChanges && item.metadata.title == "Saved", "the value itself is as it was")
        #expect(try await MediaItem(contentsOf: url).metadata.title == "Saved" && title != "Saved")
    }
}

extension Result where Failure == any Error {
    /// The result of `body`.
    static func awaiting(_ body: () async throws -> Success) async -> Result {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// The error, as a ``MediaError``, when it failed.
    var error: MediaError? {
        if case .failure(let error) = self { return error as? MediaError ?? MediaError(.io, "\(error)") }
        return nil
    }
}
