import Foundation
import Testing

@testable import MetadataKit

/// check → repair → check over every hostile, damaged and valid fixture and
/// the fuzz corpus (copies): nothing crashes or hangs, and a repair never
/// leaves a file that reads worse — no finding code it didn't have, no
/// field fewer, the same duration.
@Suite struct CheckSweepTests {
    static let sources: [URL] = {
        let roots = ["Tests/Fixtures/hostile", "Tests/Fixtures/damaged", "Tests/Fixtures/valid", "Fuzz/corpus", "Fuzz/regressions"]
        var files: [URL] = []
        for root in roots {
            let folder = TestSupport.packageRoot.appendingPathComponent(root)
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }()

    @Test func thereAreFilesToSweep() {
        #expect(Self.sources.count > 100)
    }

    @Test func checkRepairCheckNeverReadsWorse() async throws {
        let folder = try TestSupport.makeTemporaryDirectory()
        var loaded = 0, repaired = 0
        for (index, source) in Self.sources.enumerated() {
            let url = folder.appendingPathComponent("\(index)-\(source.lastPathComponent)")
            try FileManager.default.copyItem(at: source, to: url)
            var item = MediaItem(url: url)
            guard (try? await item.load()) != nil else { continue }
            loaded += 1
            let before = try item.check()
            let fields = item.metadata.fieldValues.map(\.field)
            let duration = item.properties.duration
            let changes: [Repair]
            do {
                changes = try await item.repair()
            } catch let error as MediaError {
                // A refused save leaves the file as it was.
                #expect(try Data(contentsOf: url) == Data(contentsOf: source), "\(source.lastPathComponent): \(error)")
                continue
            }
            guard !changes.isEmpty else { continue }
            repaired += 1
            let reread = try await MediaItem.loaded(url)
            let after = try reread.check()
            let name = source.lastPathComponent
            let added = Set(after.map(\.code)).subtracting(before.map(\.code))
            #expect(added.isEmpty, "\(name): the repair added \(added)")
            #expect(after.count <= before.count, "\(name): \(before) → \(after)")
            let lost = Set(fields).subtracting(reread.metadata.fieldValues.map(\.field))
            #expect(lost.isEmpty, "\(name): the repair lost \(lost)")
            if let duration, let now = reread.properties.duration {
                #expect(abs(now - duration) < 0.001, "\(name): duration \(duration) → \(now)")
            }
        }
        #expect(loaded > 50)
        #expect(repaired > 0, "some fixture has a repairable finding")
    }
}
