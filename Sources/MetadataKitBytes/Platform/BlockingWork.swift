#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs work that blocks in the kernel (`pread`, `fsync`, waits for a file
/// lock) on threads of its own, so that an `async` call doing it never holds
/// one of the few threads of Swift's cooperative pool (one per core): tasks
/// that don't touch files keep running however many loads and saves wait.
///
/// The threads are made as work arrives (at most ``maximumThreads``; more
/// work waits its turn, in order) and end after ``idleLifetime`` seconds
/// without work, so an app that reads a file now and then holds no thread.
package enum BlockingWork {
    /// Threads the work may use at once.
    package static let maximumThreads = 64
    /// Seconds an idle thread waits for work before it ends.
    package static let idleLifetime = 10.0

    /// `body`'s result, computed on a thread of this pool while the caller's
    /// task is suspended.
    package static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            pool.submit { continuation.resume(returning: Result(catching: body)) }
        }
        return try result.get()
    }

    private static let pool = Pool()

    /// The queue of work and the threads that take from it.
    private final class Pool: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = Condition()
        private var jobs: [@Sendable () -> Void] = []
        private var next = 0
        private var idle = 0
        private var threads = 0

        func submit(_ job: @escaping @Sendable () -> Void) {
            condition.lock()
            jobs.append(job)
            // A thread for every job no idle thread is about to take.
            let start = jobs.count - next > idle && threads < BlockingWork.maximumThreads
            if start { threads += 1 }
            condition.signal()
            condition.unlock()
            if start { startThread { [self] in work() } }
        }

        private func work() {
            condition.lock()
            while true {
                if next < jobs.count {
                    let job = jobs[next]
                    next += 1
                    if next == jobs.count {
                        jobs.removeAll(keepingCapacity: true)
                        next = 0
                    }
                    condition.unlock()
                    job()
                    condition.lock()
                    continue
                }
                idle += 1
                let woken = condition.wait(until: Date(timeIntervalSinceNow: BlockingWork.idleLifetime))
                idle -= 1
                if !woken, next == jobs.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
        }
    }
}
