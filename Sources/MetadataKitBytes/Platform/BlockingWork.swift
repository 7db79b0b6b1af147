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

/// Runs work that blocks in the kernel (`pread`, `fsync`, waits for a file
/// lock) on threads of its own, so that an `async` call doing it never holds
/// one of the few threads of Swift's cooperative pool (one per core): tasks
/// that don't touch files keep running however many loads and saves wait.
///
/// The work goes to one of two ``Lane``s, each with threads of its own:
/// ``saves`` (plans, saves and batch saves, which sync and wait for other
/// savers' locks) and ``loads`` (loads and reads of pictures and samples),
/// so a load never waits for a thread behind saves that wait for the disk
/// or a lock.
///
/// A lane's threads are made as work arrives (at most ``maximumThreads``;
/// more work waits its turn, in order) and end after ``idleLifetime`` seconds
/// without work, so an app that reads a file now and then holds no thread.
package enum BlockingWork {
    /// Threads the work of one lane may use at once, besides those waiting
    /// for a lock (``waiting(_:)``): twice the cores, at least 4. The work is
    /// parsing as much as reading, so more threads would only share the
    /// cores and make each load slower.
    package static let maximumThreads = max(minimumThreads, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// The least ``maximumThreads`` can be: below it a lane starts a thread
    /// without asking (`activeProcessorCount` reads the process's CPU quota
    /// from files, a tenth of a millisecond at a tool's start).
    package static let minimumThreads = 4
    /// Seconds an idle thread waits for work before it ends.
    package static let idleLifetime = 10.0

    /// The lane of plans, saves and batch saves (and of ``run(_:)`` and
    /// ``concurrentPerform(iterations:width:reusingThreads:on:startingEachThread:_:)``).
    package static let saves = Lane()
    /// The lane of loads and of reads of picture and sample bytes: threads
    /// no save or lock wait of a save holds.
    package static let loads = Lane()

    /// `body`'s result, computed on a thread of the ``saves`` lane while the
    /// caller's task is suspended.
    package static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await saves.run(body)
    }

    /// Starts `job` on a thread of the ``saves`` lane and returns at once
    /// (work a caller wants done by the time it needs it, such as tables
    /// made on another core while this one does something else).
    package static func start(_ job: @escaping @Sendable () -> Void) {
        saves.start(job)
    }

    /// `body(index)` for every index in `0..<count`, on the calling thread
    /// and up to `width - 1` threads of the ``saves`` lane at once; returns
    /// when all are done. Each thread calls `start` before the first index
    /// it takes (per-thread set-up, such as reserving its heap). For the
    /// parallel steps of a batch save, which Dispatch's `concurrentPerform`
    /// would run on the threads Swift's tasks use, and `mdkit read`.
    ///
    /// `reusingThreads`: the helpers are queued for the lane's threads, busy
    /// or not; threads are started only for helpers beyond their number. For
    /// a caller that started a short job on the lane just before (`mdkit
    /// read`'s tables, ``start(_:)``): its thread goes on with the indices
    /// when the job is done, and no thread is started beside it.
    /// `lane`: ``saves`` (another only in tests).
    package static func concurrentPerform(
        iterations count: Int, width: Int, reusingThreads: Bool = false, on lane: Lane = saves,
        startingEachThread start: () -> Void = {}, _ body: (Int) -> Void
    ) {
        guard count > 1, width > 1 else {
            if count > 0 { start() }
            for index in 0..<count { body(index) }
            return
        }
        withoutActuallyEscaping(start) { start in
            withoutActuallyEscaping(body) { body in
                let shared = Shared(count: count, start: start, body: body)
                for _ in 0..<min(count, width) - 1 { lane.submit(startingThread: !reusingThreads) { shared.work() } }
                shared.work()
                shared.finish()
            }
        }
    }

    /// What the threads of one ``concurrentPerform(iterations:width:reusingThreads:on:startingEachThread:_:)``
    /// share: the next index, how many run `body` now, and `start` and
    /// `body` themselves, dropped before the call returns (a helper that
    /// starts later finds no index left and never calls them).
    private final class Shared: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = Condition()
        private let count: Int
        private var next = 0
        private var running = 0
        private var job: (start: () -> Void, body: (Int) -> Void)?

        init(count: Int, start: @escaping () -> Void, body: @escaping (Int) -> Void) {
            self.count = count
            self.job = (start, body)
        }

        func work() {
            condition.lock()
            // `job` is dropped only once every index was taken: taken once here.
            if next < count, let job {
                var started = false
                while next < count {
                    let index = next
                    next += 1
                    running += 1
                    condition.unlock()
                    if !started {
                        job.start()
                        started = true
                    }
                    job.body(index)
                    condition.lock()
                    running -= 1
                }
            }
            condition.broadcast()
            condition.unlock()
        }

        /// Waits for the helpers still running `body`, then drops it and `start`.
        func finish() {
            condition.lock()
            while running > 0 { condition.wait() }
            job = nil
            condition.unlock()
        }
    }

    /// Runs `body`, which waits (for a file lock held elsewhere); on a thread
    /// of a lane, that thread is counted out of the lane's
    /// ``maximumThreads`` meanwhile, so waits don't keep other work of the
    /// lane from starting. On any other thread it just runs `body`.
    package static func waiting<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let lane = Lane.current else { return try body() }
        lane.enterWait()
        defer { lane.leaveWait() }
        return try body()
    }

    /// A queue of work and the threads that take from it (at most
    /// ``BlockingWork/maximumThreads`` at once, besides those waiting for a lock).
    package final class Lane: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = Condition()
        private var jobs: [@Sendable () -> Void] = []
        private var next = 0
        private var idle = 0
        private var threads = 0
        /// Threads inside ``BlockingWork/waiting(_:)``: not counted against the maximum.
        private var waiting = 0

        package init() {}

        /// Starts `job` on a thread of this lane and returns at once (``BlockingWork/start(_:)``).
        package func start(_ job: @escaping @Sendable () -> Void) { submit(job) }

        /// The lane's threads, busy or idle.
        package var threadCount: Int {
            condition.lock()
            defer { condition.unlock() }
            return threads
        }

        /// `body`'s result, computed on a thread of this lane while the
        /// caller's task is suspended.
        package func run<Value: Sendable, Failure: Error>(
            _ body: @escaping @Sendable () throws(Failure) -> Value
        ) async throws(Failure) -> Value {
            let result: Swift.Result<Value, Failure> = await withCheckedContinuation { continuation in
                submit { continuation.resume(returning: Swift.Result(catching: body)) }
            }
            return try result.get()
        }

        /// The lane whose thread runs the caller, if any.
        fileprivate static var current: Lane? {
            pthread_getspecific(currentKey).map { Unmanaged<Lane>.fromOpaque($0).takeUnretainedValue() }
        }

        /// The thread-specific slot naming a thread's lane (lanes live as
        /// long as the process, so the slot holds no reference).
        private static let currentKey: pthread_key_t = {
            var key = pthread_key_t()
            let result = pthread_key_create(&key, nil)
            precondition(result == 0, "pthread_key_create failed: \(result)")
            return key
        }()

        /// Queues `job`; starts a thread for it when no idle thread is about
        /// to take it (and the lane may have one more). With `startingThread`
        /// false, only when more jobs wait than the lane has threads, busy or
        /// idle: a busy thread takes the job when it is done.
        fileprivate func submit(startingThread: Bool = true, _ job: @escaping @Sendable () -> Void) {
            condition.lock()
            jobs.append(job)
            condition.signal()
            let start = (startingThread || jobs.count - next > threads - waiting) && startsThread()
            condition.unlock()
            if start { startThread { [self] in work() } }
        }

        /// Whether a thread must start for the jobs no idle thread is about
        /// to take (with the lock held); counts it when so.
        private func startsThread() -> Bool {
            let running = threads - waiting
            guard jobs.count - next > idle, running < BlockingWork.minimumThreads || running < BlockingWork.maximumThreads else {
                return false
            }
            threads += 1
            return true
        }

        fileprivate func enterWait() {
            condition.lock()
            waiting += 1
            let start = startsThread()
            condition.unlock()
            if start { startThread { [self] in work() } }
        }

        fileprivate func leaveWait() {
            condition.lock()
            waiting -= 1
            condition.unlock()
        }

        private func work() {
            pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
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
