import Foundation
import Testing

@testable import MetadataKitCatalog

/// The queues between a scan's stages: a batch taker waits for its whole
/// batch (or its time), a putter waits for room, nothing is lost or
/// duplicated across threads, and closing wakes everyone.
@Suite struct BlockingQueueTests {
    @Test func aBatchTakerGetsItsBatchOrWhatCameInItsTime() {
        let queue = BlockingQueue<Int>(capacity: 100)
        for number in 0..<5 { queue.put(number) }
        let start = Date()
        // Fewer than asked for: the taker waits its time, then takes what is there.
        #expect(queue.take(upTo: 10, timeout: 0.2) == [0, 1, 2, 3, 4])
        #expect(-start.timeIntervalSinceNow >= 0.15)
        // A whole batch: taken at once, the rest left.
        for number in 5..<20 { queue.put(number) }
        #expect(queue.take(upTo: 10, timeout: 30) == Array(5..<15))
        queue.close()
        #expect(queue.take(upTo: 10, timeout: 30) == Array(15..<20))
        #expect(queue.isFinished)
        #expect(queue.take(upTo: 10, timeout: 30).isEmpty)
        #expect(queue.take() == nil)
    }

    /// Producers and consumers on threads (seeded pauses), the queue smaller
    /// than the numbers: each number is taken once; a batch taker waiting for
    /// more than will ever come is woken by the close.
    @Test(arguments: [1, 2, 7])
    func everyElementIsTakenOnce(capacity: Int) {
        let seed = UInt64.random(in: 0..<UInt64.max)
        let queue = BlockingQueue<Int>(capacity: capacity)
        let batches = BlockingQueue<Int>(capacity: 10_000)
        let count = 3000
        let results = Results()
        let producers = (0..<3).map { producer in
            Thread {
                var generator = SplitMix64(state: seed &+ UInt64(producer))
                for number in stride(from: producer, to: count, by: 3) {
                    if Int.random(in: 0..<50, using: &generator) == 0 { usleep(200) }
                    queue.put(number)
                }
            }
        }
        let readers = (0..<2).map { _ in
            Thread {
                var mine: [Int] = []
                while let number = queue.take() {
                    mine.append(number)
                    batches.put(number)
                }
                results.add(read: mine)
            }
        }
        // Waits for batches of 64 while the others run; the last, short one comes with the close.
        let batchTaker = Thread {
            var mine: [Int] = []
            while true {
                let batch = batches.take(upTo: 64, timeout: 30)
                if batch.isEmpty && batches.isFinished { break }
                mine += batch
            }
            results.add(batched: mine)
        }
        for thread in producers + readers + [batchTaker] { thread.start() }
        while producers.contains(where: { !$0.isFinished }) { usleep(1000) }
        queue.close()
        while readers.contains(where: { !$0.isFinished }) { usleep(1000) }
        batches.close()
        while !batchTaker.isFinished { usleep(1000) }
        #expect(results.read.sorted() == Array(0..<count), "seed \(seed)")
        #expect(results.batched.sorted() == Array(0..<count), "seed \(seed)")
    }
}

/// What the threads of a test took.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var readNumbers: [Int] = []
    private var batchedNumbers: [Int] = []

    var read: [Int] { lock.withLock { readNumbers } }
    var batched: [Int] { lock.withLock { batchedNumbers } }
    func add(read numbers: [Int]) { lock.withLock { readNumbers += numbers } }
    func add(batched numbers: [Int]) { lock.withLock { batchedNumbers += numbers } }
}
