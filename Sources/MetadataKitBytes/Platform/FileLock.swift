#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Platform {
    /// How ``lock(_:exclusive:waitingAtMost:)`` ended.
    package enum FileLockOutcome: Equatable, Sendable {
        /// The lock is held (until the descriptor is closed).
        case locked
        /// Another descriptor held a conflicting lock for the whole wait.
        case timedOut
        /// `flock` failed for another reason (its `errno`).
        case failed(Int32)
    }

    /// Takes the advisory `flock` lock of `descriptor` (exclusive, or shared),
    /// waiting at most `limit` for another holder to let go: a non-blocking
    /// attempt, then attempts spaced 1 ms, 2 ms, 4 ms … up to 50 ms apart
    /// until the deadline. A blocking `flock` would wait without end for a
    /// process that never lets go. Call it where a thread may block
    /// (``BlockingWork``): it sleeps between attempts.
    package static func lock(_ descriptor: Int32, exclusive: Bool, waitingAtMost limit: Duration) -> FileLockOutcome {
        if flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 { return .locked }
        // Held elsewhere: a wait, during which the pool may start another thread for other work.
        return BlockingWork.waiting { pollLock(descriptor, exclusive: exclusive, waitingAtMost: limit) }
    }

    /// The attempts of ``lock(_:exclusive:waitingAtMost:)`` until the deadline.
    private static func pollLock(_ descriptor: Int32, exclusive: Bool, waitingAtMost limit: Duration) -> FileLockOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: max(.zero, limit))
        var pause = Duration.milliseconds(1)
        while true {
            if flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 { return .locked }
            let error = errno
            if error == EINTR { continue }
            guard error == EWOULDBLOCK || error == EAGAIN else { return .failed(error) }
            let left = deadline - clock.now
            guard left > .zero else { return .timedOut }
            let wait = min(pause, left)
            let (seconds, attoseconds) = wait.components
            var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&time, &remaining) != 0 && errno == EINTR { time = remaining }
            pause = min(pause * 2, .milliseconds(50))
        }
    }
}
