import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitBytes
@testable import MetadataKitSaving

/// Loads and saves wait for the disk and for file locks on threads of their
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

    /// Whether a task started from a thread outside the pool `delay` seconds
    /// from now runs within `limit` seconds; `release` then runs (from that
    /// thread, so the test ends even when the pool is blocked).
    static func poolRunsANewTask(
        after delay: Double = 0.5, within limit: Double, then release: @escaping @Sendable () -> Void
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: delay)
                let ran = DispatchSemaphore(value: 0)
                Task.detached { ran.signal() }
                let progressed = ran.wait(timeout: .now() + limit) == .success
                release()
                continuation.resume(returning: progressed)
            }
        }
    }

    /// An exclusive `flock` lock of a file, held from a descriptor of its own
    /// until ``release()`` closes it (no timer: a late unlock could hit a
    /// descriptor number another test opened since).
    final class HeldLock: @unchecked Sendable {
        private let lock = NSLock()
        private var descriptor: Int32

        init(_ url: URL) {
            descriptor = open(url.path, O_RDONLY)
            flock(descriptor, LOCK_EX)
        }

        /// Closes the descriptor, which lets go of the lock; once.
        func release() {
            lock.lock()
            defer { lock.unlock() }
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }

        deinit { release() }
    }

    /// The three ways to load a file.
    enum Load: CaseIterable, Sendable {
        case load, contentsOf, contentsOfSchema

        func callAsFunction(_ url: URL) async throws(MediaError) -> MediaItem {
            switch self {
            case .load:
                var item = MediaItem(url: url)
                try await item.load()
                return item
            case .contentsOf: return try await MediaItem(contentsOf: url)
            case .contentsOfSchema:
                do {
                    return try await MediaItem(contentsOf: url, schema: .standard)
                } catch let error as MediaError {
                    throw error
                } catch {
                    throw MediaError(.io, "\(error)")
                }
            }
        }
    }

    /// Many more loads than cores, each finding a journal beside its file and
    /// waiting for the lock another descriptor holds on the file (to recover
    /// the save the journal tells of): the pool must still run a new task.
    /// On the pool's threads the loads would hold all of them for 25 rounds
    /// of their 5-second lock wait, longer than the probe waits (which is
    /// long: the suite's CLI tests keep the pool's threads waiting for
    /// processes at times).
    @Test(arguments: Load.allCases)
    func loadsWaitingForALockLeaveTheCooperativePoolFree(load: Load) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let count = 24 * ProcessInfo.processInfo.activeProcessorCount + 2
        var urls: [URL] = []
        for index in 0..<count {
            let url = directory.appendingPathComponent("song\(index).mp3")
            try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"), to: url)
            try Data("not a journal".utf8).write(to: EditJournal.url(for: url))
            urls.append(url)
        }
        let holders = urls.map(HeldLock.init)

        let toLoad = urls
        let loads = Task {
            await withTaskGroup(of: MediaError.Code?.self) { group in
                for url in toLoad {
                    group.addTask {
                        do throws(MediaError) {
                            _ = try await load(url)
                            return nil
                        } catch {
                            return error.code
                        }
                    }
                }
                return await group.reduce(into: [MediaError.Code?]()) { $0.append($1) }
            }
        }
        let progressed = await Self.poolRunsANewTask(within: 100) { for holder in holders { holder.release() } }
        let failures = await loads.value
        #expect(progressed, "a new task ran while \(count) loads waited for file locks")
        #expect(failures.count == count)
        // Released in time, a load recovers (removing the torn journal) and reads the file.
        #expect(failures.allSatisfy { $0 == nil || $0 == .locked }, "\(failures)")
        for url in urls { #expect(try await load(url).metadata.title != nil) }
    }

    /// A source whose reads wait until the test opens its gate.
    final class GatedSource: ByteSource, @unchecked Sendable {
        let data: Data
        private let condition = NSCondition()
        private var isOpen = false

        init(_ data: Data) { self.data = data }

        var size: Int64 { Int64(data.count) }

        func read(at offset: Int64, count: Int) throws -> Data {
            condition.lock()
            while !isOpen { condition.wait() }
            condition.unlock()
            return data[Int(offset)..<Int(offset) + count]
        }

        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Loads from a source whose reads block until the test lets them go
    /// (as a network source's might): while more of them than cores are
    /// blocked, the pool runs a new task; then they all read the file. One
    /// more than the cores, fewer than the loads' threads: the other loads
    /// of the suite keep a thread meanwhile.
    @Test func loadsBlockedInTheirSourceLeaveTheCooperativePoolFree() async throws {
        let data = try Data(contentsOf: TestSupport.fixtures.appendingPathComponent("valid/sample.mp3"))
        let expected = try await MediaItem(loading: data, filename: "sample.mp3").metadata
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let source = GatedSource(data)
        let loads = Task {
            await withTaskGroup(of: Metadata?.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        var item = MediaItem(source: source, filename: "sample.mp3")
                        try? await item.load()
                        return item.isLoaded ? item.metadata : nil
                    }
                }
                return await group.reduce(into: [Metadata?]()) { $0.append($1) }
            }
        }
        // Blocked loads on the pool would hold it until the gate opens.
        let progressed = await Self.poolRunsANewTask(within: 120) { source.open() }
        let loaded = await loads.value
        #expect(progressed, "a new task ran while \(count) loads waited for their source")
        #expect(loaded.count == count && loaded.allSatisfy { $0 == expected })
    }

    /// `start` returns before its job runs to its end, and the job runs on
    /// another thread (here: it waits for the caller to let it finish).
    @Test func startReturnsAtOnceAndRunsTheJobOnAnotherThread() {
        final class State: @unchecked Sendable {
            let condition = Condition()
            var released = false
            var finished = false
            var thread: pthread_t?
        }
        let state = State()
        BlockingWork.start {
            state.condition.lock()
            while !state.released { state.condition.wait() }
            state.thread = pthread_self()
            state.finished = true
            state.condition.broadcast()
            state.condition.unlock()
        }
        state.condition.lock()
        #expect(!state.finished)
        state.released = true
        state.condition.broadcast()
        while !state.finished { state.condition.wait() }
        state.condition.unlock()
        #expect(state.thread.map { pthread_equal($0, pthread_self()) == 0 } == true)
    }

    /// `startingEachThread` runs once on every thread that takes an index,
    /// before that thread's first index (and also when no helper is started).
    @Test(arguments: [1, 8])
    func concurrentPerformStartsEachThreadOnce(width: Int) {
        final class Log: @unchecked Sendable {
            let lock = Lock()
            var started: [pthread_t] = []
            var unstartedBodies = 0
        }
        let log = Log()
        BlockingWork.concurrentPerform(
            iterations: 200, width: width,
            startingEachThread: { log.lock.withLock { log.started.append(pthread_self()) } }
        ) { _ in
            log.lock.withLock {
                if !log.started.contains(where: { pthread_equal($0, pthread_self()) != 0 }) { log.unstartedBodies += 1 }
            }
        }
        #expect(log.unstartedBodies == 0)
        #expect((1...width).contains(log.started.count))
        for (index, thread) in log.started.enumerated() {
            #expect(!log.started[(index + 1)...].contains { pthread_equal($0, thread) != 0 }, "a thread started twice")
        }
    }

    /// With `reusingThreads`, a helper waits for the lane's busy thread
    /// instead of a thread being started for it (`mdkit read`: the thread
    /// that made the tables takes the files when done); without it, a
    /// thread is started. Every index runs once either way.
    @Test(arguments: [true, false])
    func concurrentPerformReusingThreadsStartsNoThreadBesideABusyOne(reusingThreads: Bool) {
        final class Gate: @unchecked Sendable {
            let condition = Condition()
            var started = false
            var released = false
        }
        let lane = BlockingWork.Lane()
        let gate = Gate()
        lane.start {
            gate.condition.lock()
            gate.started = true
            gate.condition.broadcast()
            while !gate.released { gate.condition.wait() }
            gate.condition.unlock()
        }
        gate.condition.lock()
        while !gate.started { gate.condition.wait() }
        gate.condition.unlock()
        #expect(lane.threadCount == 1)

        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: 300)
        hits.initialize(repeating: 0)
        defer { hits.deallocate() }
        BlockingWork.concurrentPerform(iterations: 300, width: 2, reusingThreads: reusingThreads, on: lane) { index in
            hits[index] += 1
        }
        #expect(hits.allSatisfy { $0 == 1 })
        #expect(lane.threadCount == (reusingThreads ? 1 : 2))

        gate.condition.lock()
        gate.released = true
        gate.condition.broadcast()
        gate.condition.unlock()
    }

    #if os(Linux)
        /// A thread `startThread` makes starts on another core than its maker
        /// (when there are several) and may then run on every core its maker may.
        @Test func aStartedThreadMayRunOnEveryCoreItsMakerMay() {
            final class Seen: @unchecked Sendable {
                let condition = Condition()
                var cores: [UInt64]?
                var done = false
            }
            let seen = Seen()
            startThread {
                seen.condition.lock()
                seen.cores = ThreadPlacement.allowedCores()
                seen.done = true
                seen.condition.broadcast()
                seen.condition.unlock()
            }
            seen.condition.lock()
            while !seen.done { seen.condition.wait() }
            seen.condition.unlock()
            let mine = ThreadPlacement.allowedCores()
            #expect(mine != nil)
            #expect(seen.cores == mine)
        }
    #endif

    @Test func concurrentPerformRunsEveryIndexOnce() {
        let hits = UnsafeMutableBufferPointer<Int>.allocate(capacity: 1000)
        hits.initialize(repeating: 0)
        defer { hits.deallocate() }
        BlockingWork.concurrentPerform(iterations: 1000, width: 8) { hits[$0] += 1 }
        #expect(hits.allSatisfy { $0 == 1 })
        #expect(Parallel.map(100) { $0 * 2 } == (0..<100).map { $0 * 2 })
    }
}
