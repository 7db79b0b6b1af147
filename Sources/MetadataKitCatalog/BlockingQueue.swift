import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bounded first-in-first-out queue between threads: `put` waits while it
/// is full (so a fast walker can't fill memory ahead of slow readers), `take`
/// waits while it is empty and returns nil once it is closed and drained.
///
/// Waiters are woken only when what they wait for has come: a taker when
/// the queue holds as many elements as it asked for (a batch, for the
/// writer), a putter once the queue has drained to half its capacity (it
/// then refills it in one go). Waking every waiter on every element made
/// a context switch or two per file of a scan.
final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = Condition()
    private var elements: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int
    /// Takers waiting, and the fewest elements one of them waits for (`Int.max` when none waits).
    private var waitingTakers = 0
    private var takerNeed = Int.max
    private var waitingPutters = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    private var count: Int { elements.count - head }

    /// Adds `element`, waiting for room; dropped when the queue was closed.
    func put(_ element: Element) {
        condition.lock()
        defer { condition.unlock() }
        if count >= capacity && !closed {
            waitingPutters += 1
            while count >= capacity && !closed { condition.wait() }
            waitingPutters -= 1
        }
        guard !closed else { return }
        elements.append(element)
        if waitingTakers > 0 && count >= takerNeed { condition.broadcast() }
    }

    /// The next element, waiting for one; nil when closed and empty.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        if count == 0 && !closed {
            startWaiting(for: 1)
            while count == 0 && !closed { condition.wait() }
            stopWaiting()
        }
        return removeFirst()
    }

    /// Up to `limit` elements, waiting up to `timeout` seconds for `limit` of
    /// them (fewer when the time is up or the queue is closed); empty when
    /// none came (check ``isFinished``).
    func take(upTo limit: Int, timeout: TimeInterval) -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        let wanted = max(1, limit)
        if count < wanted && !closed {
            let deadline = Date(timeIntervalSinceNow: timeout)
            startWaiting(for: wanted)
            while count < wanted && !closed {
                if !condition.wait(until: deadline) { break }
            }
            stopWaiting()
        }
        var taken: [Element] = []
        taken.reserveCapacity(min(wanted, count))
        while taken.count < wanted, let element = removeFirst() { taken.append(element) }
        return taken
    }

    /// Whether the queue is closed and empty.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed && count == 0
    }

    /// No more elements will come: waiting takers get nil once it is drained.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called with the lock held.
    private func startWaiting(for need: Int) {
        waitingTakers += 1
        takerNeed = min(takerNeed, need)
    }

    /// Called with the lock held.
    private func stopWaiting() {
        waitingTakers -= 1
        if waitingTakers == 0 { takerNeed = Int.max }
    }

    /// Called with the lock held.
    private func removeFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head >= 256 && head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        if waitingPutters > 0 && count <= capacity / 2 { condition.broadcast() }
        return element
    }
}
