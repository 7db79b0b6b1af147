import Foundation
import Synchronization
import Testing

@testable import MetadataKit
@testable import MetadataKitCatalog

/// Cancelling a scan's task stops it within a file per reader: the walk
/// hands out no further file, and the scan throws `cancelled`.
@Suite struct CatalogCancellationTests {
    @Test func aCancelledScanStopsWithinAFilePerReader() async throws {
        let root = try CatalogTestSupport.makeLibrary(count: 400)
        defer { try? FileManager.default.removeItem(at: root) }
        let catalog = try TestCatalog(.sqlite)
        let workers = 2
        let reads = Atomic<Int>(0)
        let readsAtCancel = Atomic<Int>(-1)
        let handle = Mutex<Task<ScanSummary, any Error>?>(nil)
        // Cancel from within the scan's events once it has read five files
        // (or the first read after the task's handle is known).
        let scan = Task {
            try await CatalogTestSupport.scan([root], into: catalog, workers: workers) { event in
                guard case .read = event else { return }
                let count = reads.add(1, ordering: .sequentiallyConsistent).newValue
                guard count >= 5, readsAtCancel.load(ordering: .sequentiallyConsistent) == -1 else { return }
                handle.withLock { task in
                    guard let task, readsAtCancel.compareExchange(expected: -1, desired: count, ordering: .sequentiallyConsistent).exchanged
                    else { return }
                    task.cancel()
                }
            }
        }
        handle.withLock { $0 = scan }
        let result = await scan.result
        guard case .failure(let failure) = result else {
            Issue.record("the scan finished: \(result)")
            return
        }
        let error = try #require(failure as? CatalogError, "the scan ended with \(failure)")
        #expect(error.code == .cancelled)
        let total = reads.load(ordering: .sequentiallyConsistent)
        let atCancel = readsAtCancel.load(ordering: .sequentiallyConsistent)
        #expect(atCancel >= 5)
        // Each reader finishes the file it was reading when the task was cancelled.
        #expect(total <= atCancel + workers, "read \(total) files of 400 after cancelling at \(atCancel)")
    }
}
