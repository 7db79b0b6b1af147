import Foundation
import Testing

@testable import MetadataKit

/// Items read through a ``ByteSource`` (``MediaItem/init(source:filename:)``)
/// read as the same file read from disk does, over the corpus of
/// ``DataSourceTests`` (the fixtures and every fuzz seed).
@Suite struct ByteSourceTests {
    /// A source of the test's own: a file read with `FileHandle`, noting
    /// every range asked for.
    final class HandleSource: ByteSource, @unchecked Sendable {
        let size: Int64
        private let handle: FileHandle
        private let lock = NSLock()
        private var asked: [(offset: Int64, count: Int)] = []

        init(_ url: URL) throws {
            handle = try FileHandle(forReadingFrom: url)
            size = Int64(try handle.seekToEnd())
        }

        deinit { try? handle.close() }

        func read(at offset: Int64, count: Int) throws -> Data {
            lock.lock()
            defer { lock.unlock() }
            asked.append((offset, count))
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: count) ?? Data()
        }

        /// The ranges asked for that are empty or outside `0..<size`.
        var outOfBounds: [(offset: Int64, count: Int)] {
            lock.lock()
            defer { lock.unlock() }
            return asked.filter { $0.offset < 0 || $0.count <= 0 || $0.offset + Int64($0.count) > size }
        }
    }

    /// A source whose reads fail with an error of its own.
    struct FailingSource: ByteSource {
        struct Unreachable: Error {}
        var size: Int64 { 4096 }
        func read(at offset: Int64, count: Int) throws -> Data { throw Unreachable() }
    }

    /// Whether `other` read as `fromFile` did.
    static func expectSame(_ fromFile: MediaItem, _ other: MediaItem, _ name: String) async throws {
        #expect(fromFile.fileType == other.fileType, "\(name)")
        #expect(fromFile.properties == other.properties, "\(name)")
        #expect(fromFile.warnings.map(\.description) == other.warnings.map(\.description), "\(name)")
        #expect(fromFile.chapterTables == other.chapterTables, "\(name)")
        let fromFileShown = try await fromFile.metadata.items.asyncMap(DataSourceTests.shown)
        #expect(try await fromFileShown == other.metadata.items.asyncMap(DataSourceTests.shown), "\(name)")
        for field in MetadataField.allCases where field != .artwork {
            #expect(fromFile.metadata[field] == other.metadata[field], "\(name) \(field)")
        }
        #expect(!other.isEditable, "\(name)")
    }

    @Test func aCustomSourceAndTheFileSourceReadAsTheFileReads() async throws {
        let files = DataSourceTests.corpus
        #expect(files.count >= 100, "the corpus: \(files.count) files")
        var compared = 0
        for url in files {
            let name = url.lastPathComponent
            let custom = try HandleSource(url)
            var fromFile = MediaItem(url: url)
            var fromCustom = MediaItem(source: custom, filename: url.path)
            var fromFileSource = MediaItem(source: try FileByteSource(url: url), filename: url.path)
            let fileError = await Result.awaiting { try await fromFile.load() }.error
            let customError = await Result.awaiting { try await fromCustom.load() }.error
            let fileSourceError = await Result.awaiting { try await fromFileSource.load() }.error
            #expect(fileError?.code == customError?.code, "\(name): \(String(describing: fileError)) vs \(String(describing: customError))")
            #expect(fileError?.code == fileSourceError?.code, "\(name): \(String(describing: fileSourceError))")
            #expect(custom.outOfBounds.isEmpty, "\(name): reads outside the file: \(custom.outOfBounds.prefix(3))")
            guard fileError == nil, customError == nil, fileSourceError == nil else { continue }
            compared += 1
            try await Self.expectSame(fromFile, fromCustom, name)
            try await Self.expectSame(fromFile, fromFileSource, name)
        }
        #expect(compared >= 60, "files every read loaded: \(compared)")
    }

    @Test func aSourcesOwnErrorIsAnIOErrorNamingTheFile() async throws {
        var item = MediaItem(source: FailingSource(), filename: "/music/song.mp3")
        do {
            try await item.load()
            Issue.record("a source whose reads fail was loaded")
        } catch {
            #expect(error.code == .io)
            #expect(error.path == "/music/song.mp3")
            #expect("\(error)".contains("Unreachable"), "\(error)")
        }
    }

    @Test func anItemReadFromASourceIsNotSaved() async throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/valid/sample.mp3")
        var item = try await MediaItem(loading: try FileByteSource(url: url), filename: "sample.mp3")
        #expect(item.metadata.title == "Sine in A")
        item.metadata.title = "Other"
        do {
            try await item.save()
            Issue.record("an item read from a ByteSource was saved")
        } catch {
            #expect(error.code == .unsupportedFeature)
            #expect(error.reason.contains("a ByteSource"), "\(error)")
        }
        #expect(try await MediaItem(contentsOf: url).metadata.title == "Sine in A", "the file is unchanged")
    }

    @Test func dataByteSourceReadsRangesAndRefusesPastTheEnd() throws {
        let source = DataByteSource(Data([1, 2, 3, 4, 5]).dropFirst())
        #expect(source.size == 4)
        #expect(try source.read(at: 1, count: 2) == Data([3, 4]))
        #expect(throws: MediaError.self) { try source.read(at: 3, count: 2) }
    }
}
