import Foundation
import Testing

@testable import MetadataKitCatalog

/// The reorder buffer of `scan --jsonl`: values finished out of order by
/// several threads come out in sequence order, each once, and the producer
/// never runs more than the window ahead of what was emitted.
@Suite struct ReorderBufferTests {
    @Test(arguments: [1, 3, 16])
    func valuesComeOutInOrderWithTheWindowKept(window: Int) async throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        let count = 2000
        let emitted = Emitted()
        let buffer = ReorderBuffer<Int>(window: window) { run in emitted.append(run) }
        let queue = BlockingQueue<Int>(capacity: 8)
        // The producer: numbers in order, each handed out only when within the window.
        let producer = Thread {
            for sequence in 0..<count {
                buffer.waitForRoom(sequence)
                queue.put(sequence)
            }
            queue.close()
        }
        producer.start()
        // Four workers finishing in a random order (seeded); every 7th number gives nothing.
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var generator = SplitMix64(state: seed &+ UInt64(worker))
                    while let sequence = queue.take() {
                        if Int.random(in: 0..<4, using: &generator) == 0 { usleep(UInt32.random(in: 0..<300, using: &generator)) }
                        buffer.put(sequence, sequence % 7 == 3 ? nil : sequence)
                    }
                }
            }
        }
        #expect(emitted.values == (0..<count).filter { $0 % 7 != 3 }, "seed \(seed)")
        #expect(buffer.mostWaiting <= window, "the buffer held more than its window (seed \(seed))")
    }
}

/// What a buffer emitted.
private final class Emitted: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Int] = []

    func append(_ run: [Int]) { lock.withLock { values += run } }
}
