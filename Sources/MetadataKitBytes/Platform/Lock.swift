#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock (a `pthread_mutex_t`), in place of Foundation's
/// `NSLock`: on Linux `NSLock` is in swift-corelibs-foundation's
/// `Foundation` module, which FoundationEssentials doesn't have, and
/// linking it pulls libFoundation, CoreFoundation and ICU into `mdkit`
/// (tens of MB, and a slower start). Not recursive. Shared with the catalog
/// module and the tool (`package`).
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the lock held.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A lock and a condition variable (`pthread_mutex_t` and `pthread_cond_t`),
/// in place of Foundation's `NSCondition` (see ``Lock`` for why): `wait()`
/// and `wait(until:)` are called with the lock held, release it while
/// waiting and hold it again when they return. As with any condition
/// variable, a wait may end without a signal: callers wait in a loop on
/// their condition.
package final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let mutexResult = pthread_mutex_init(mutex, nil)
        precondition(mutexResult == 0, "pthread_mutex_init failed: \(mutexResult)")
        let conditionResult = pthread_cond_init(condition, nil)
        precondition(conditionResult == 0, "pthread_cond_init failed: \(conditionResult)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal or a broadcast (the lock held).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal or a broadcast until `deadline` (the lock held):
    /// false when the deadline passed first, as `NSCondition.wait(until:)`.
    /// The deadline is on the wall clock (`CLOCK_REALTIME`), as NSCondition's.
    package func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970
        guard seconds.isFinite else {
            wait()
            return true
        }
        let whole = seconds.rounded(.down)
        var time = timespec()
        time.tv_sec = Int(whole)
        time.tv_nsec = min(999_999_999, max(0, Int((seconds - whole) * 1_000_000_000)))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}

/// Runs `body` on a new detached thread with a stack of `stackSize` bytes
/// (nil: the system's default, as Foundation's `Thread` has),
/// in place of Foundation's `Thread` (see ``Lock`` for why). For work that
/// blocks (on queues, on SQLite) and so stays off Swift's cooperative pool.
/// On Linux the thread starts on another core than the caller's when the
/// process may use several (``ThreadPlacement``).
package func startThread(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
    final class Start {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var body = body
    #if canImport(Glibc)
        if let cores = ThreadPlacement.otherCores(), ThreadPlacement.start(&attributes, on: cores.others) {
            let run = body
            body = {
                ThreadPlacement.allow(cores.all)
                run()
            }
        }
    #endif
    let start = Unmanaged.passRetained(Start(body)).toOpaque()
    #if canImport(Darwin)
        var thread: pthread_t?
    #else
        var thread = pthread_t()
    #endif
    let result = pthread_create(
        &thread, &attributes,
        { argument in
            let pointer: UnsafeMutableRawPointer? = argument
            Unmanaged<Start>.fromOpaque(pointer!).takeRetainedValue().body()
            return nil
        }, start)
    precondition(result == 0, "pthread_create failed: \(result)")
}
