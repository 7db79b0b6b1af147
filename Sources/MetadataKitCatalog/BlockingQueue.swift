import Foundation

/// A bounded first-in-first-out queue between threads: `put` waits while it
/// is full (so a fast walker can't fill memory ahead of slow readers), `take`
/// waits while it is empty and returns nil once it is closed and drained.
final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var elements: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds `element`, waiting for room; dropped when the queue was closed.
    func put(_ element: Element) {
        condition.lock()
        defer { condition.unlock() }
        while elements.count - head >= capacity && !closed { condition.wait() }
        guard !closed else { return }
        elements.append(element)
        condition.broadcast()
    }

    /// The next element, waiting for one; nil when closed and empty.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == elements.count && !closed { condition.wait() }
        return removeFirst()
    }

    /// Up to `limit` elements, waiting up to `timeout` seconds for the first;
    /// empty when none came (check ``isFinished``).
    func take(upTo limit: Int, timeout: TimeInterval) -> [Element] {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while head == elements.count && !closed {
            if !condition.wait(until: deadline) { break }
        }
        var taken: [Element] = []
        while taken.count < limit, let element = removeFirst() { taken.append(element) }
        return taken
    }

    /// Whether the queue is closed and empty.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed && head == elements.count
    }

    /// No more elements will come: waiting takers get nil once it is drained.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
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
        condition.broadcast()
        return element
    }
}
