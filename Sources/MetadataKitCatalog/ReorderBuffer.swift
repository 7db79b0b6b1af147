import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Puts values made out of order (by parallel workers) back in the order of
/// their sequence numbers, 0, 1, 2, …, holding at most `window` of them.
///
/// The producer of sequence numbers calls ``waitForRoom(_:)`` before it hands
/// out number `n`: it waits until `n` is within `window` of the next number to
/// go out, so however slow one value is, the values made after it while it
/// is made stay bounded. Workers call ``put(_:_:)`` with a number and its value
/// (nil for a number that gives nothing); the values that are next in order
/// go to `emit`, a run at a time, from the thread of one of the workers (one
/// call at a time, never under the buffer's lock).
final class ReorderBuffer<Value>: @unchecked Sendable {
    private let condition = Condition()
    private let window: Int
    private let emit: ([Value]) -> Void
    /// Finished values not yet emitted, by sequence number (`Optional.none`: nothing to emit).
    private var waiting: [Int: Value?] = [:]
    /// The next sequence number to emit.
    private var next = 0
    /// Whether a worker is emitting (the others leave their values to it).
    private var emitting = false
    /// The most values held at once (at most the window: tests check it).
    private(set) var mostWaiting = 0

    init(window: Int, emit: @escaping ([Value]) -> Void) {
        self.window = max(1, window)
        self.emit = emit
    }

    /// Waits until `sequence` is within the window of the next number to emit.
    func waitForRoom(_ sequence: Int) {
        condition.lock()
        while sequence >= next + window { condition.wait() }
        condition.unlock()
    }

    /// Hands in the value of `sequence` (nil: none); emits what is now next in order.
    func put(_ sequence: Int, _ value: Value?) {
        condition.lock()
        waiting[sequence] = .some(value)
        mostWaiting = max(mostWaiting, waiting.count)
        guard !emitting else { return condition.unlock() }
        emitting = true
        while true {
            var run: [Value] = []
            while let found = waiting.removeValue(forKey: next) {
                if let found { run.append(found) }
                next += 1
            }
            condition.broadcast()
            if run.isEmpty {
                emitting = false
                return condition.unlock()
            }
            condition.unlock()
            emit(run)
            condition.lock()
        }
    }
}
