import Foundation
import Testing

@testable import MetadataKit

/// Saves wait for the disk and for file locks on threads of their
/// own (`BlockingWork`), never on the few threads of Swift's cooperative
/// pool: however many of them wait, other tasks keep running.
@Suite(.serialized) struct BlockingWorkTests {
    /// More saves than cores, each waiting for a lock another descriptor
    /// holds: the pool must still run a new task. The locks are released
    /// from a thread outside the pool, so the test ends either way.
    @Test(arguments: [false, true])
    func savesWaitingForALockLeaveTheCooperativePoolFree(batch: Bool) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        var items: [MediaItem] = []
        var original: [Data] = []
        for index in 0..<count {
            let url = directory.appendingPathComponent("song\(index).mp3")
            try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
            var item = try await MediaItem(contentsOf: url)
            item.metadata.title = "Title \(index)"
            items.append(item)
            original.append(try Data(contentsOf: url))
        }
        let holders = items.map { open($0.url.path, O_RDONLY) }
        for holder in holders { #expect(flock(holder, LOCK_EX) == 0) }

        let toSave = items
        let saves = Task {
            if batch {
                // One batch of two files per task: as many blocked batches as saves above, halved.
                await withTaskGroup(of: Void.self) { group in
                    for pair in stride(from: 0, to: toSave.count, by: 2) {
                        group.addTask {
                            var two = Array(toSave[pair..<min(pair + 2, toSave.count)])
                            _ = await MediaItem.save(&two)
                        }
                    }
                }
            } else {
                await withTaskGroup(of: Void.self) { group in
                    for item in toSave {
                        group.addTask {
                            var item = item
                            try? await item.save()
                        }
                    }
                }
            }
        }
        let (saved, before) = (items, original)
        let (progressed, stillOld) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.5) // the saves reach the lock
                let ran = DispatchSemaphore(value: 0)
                Task.detached { ran.signal() }
                // Blocked saves would hold the pool for ever; a busy suite only delays the probe.
                let progressed = ran.wait(timeout: .now() + 120) == .success
                let stillOld = zip(saved, before).allSatisfy { (try? Data(contentsOf: $0.url)) == $1 }
                for holder in holders { close(holder) }
                continuation.resume(returning: (progressed, stillOld))
            }
        }
        await saves.value
        #expect(stillOld, "the saves waited for the locks")
        #expect(progressed, "a new task ran while \(count) saves waited for file locks")
        for (index, item) in items.enumerated() {
            #expect(try await MediaItem(contentsOf: item.url).metadata.title == "Title \(index)")
        }
    }

    @Test func concurrentPerformRunsEveryIndexOnce() {
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: 1000)
        hits.initialize(repeating: 0)
        defer { hits.deallocate() }
        BlockingWork.concurrentPerform(iterations: 1000, width: 8) { hits[$0] += 1 }
        #expect(hits.allSatisfy { $0 == 1 })
        #expect(Parallel.map(100) { $0 * 2 } == (0..<100).map { $0 * 2 })
    }
}
