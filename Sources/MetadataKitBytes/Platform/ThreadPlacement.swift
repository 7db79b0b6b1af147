#if canImport(Glibc)
    import Glibc

    /// Where a new thread starts (Linux): on another core than its maker's.
    ///
    /// Linux puts a new thread on the core of the thread that made it; one of
    /// the two then waits for the other while the remaining cores may stay
    /// idle until the scheduler's balancing moves one of them — on a virtual
    /// machine with idle (halted) cores often a millisecond or more (seen with
    /// `perf sched` on `mdkit read`: its maker off its core for 1.3 ms in half
    /// of the runs). ``startThread(stackSize:_:)`` therefore starts a thread
    /// on the process's other allowed cores, and the thread then allows
    /// itself every core again, so the scheduler keeps moving it freely.
    ///
    /// The calls are GNU extensions that Swift's Glibc module leaves out, so
    /// they are looked up in the C library; without them a thread starts
    /// where Linux puts it.
    enum ThreadPlacement {
        /// A CPU set as glibc's `cpu_set_t`: 1,024 bits.
        typealias CPUSet = [UInt64]

        /// The CPU set allowing every core the calling thread may use but the
        /// one it runs on; nil when it runs on no other (or the calls are missing).
        static func otherCores() -> (others: CPUSet, all: CPUSet)? {
            guard let currentCPU, let all = allowedCores() else { return nil }
            let cpu = Int(currentCPU())
            guard cpu >= 0, cpu < all.count * 64 else { return nil }
            var others = all
            others[cpu / 64] &= ~(UInt64(1) << UInt64(cpu % 64))
            return others.contains { $0 != 0 } ? (others, all) : nil
        }

        /// The cores the calling thread may run on; nil when that can't be asked.
        static func allowedCores() -> CPUSet? {
            guard let getAffinity else { return nil }
            var all = CPUSet(repeating: 0, count: 16)
            return all.withUnsafeMutableBytes({ getAffinity(0, $0.count, $0.baseAddress!) }) == 0 ? all : nil
        }

        /// Sets `attributes` to start the thread on the cores of `cores`; false when it can't.
        static func start(_ attributes: inout pthread_attr_t, on cores: CPUSet) -> Bool {
            guard let setAttributeAffinity else { return false }
            return cores.withUnsafeBytes { setAttributeAffinity(&attributes, $0.count, $0.baseAddress!) } == 0
        }

        /// Lets the calling thread run on the cores of `cores`.
        static func allow(_ cores: CPUSet) {
            guard let setAffinity else { return }
            _ = cores.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) }
        }

        private static let getAffinity = cLibraryFunction(
            "sched_getaffinity", as: (@convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32).self)
        private static let setAffinity = cLibraryFunction(
            "sched_setaffinity", as: (@convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32).self)
        private static let setAttributeAffinity = cLibraryFunction(
            "pthread_attr_setaffinity_np",
            as: (@convention(c) (UnsafeMutablePointer<pthread_attr_t>, Int, UnsafeRawPointer) -> Int32).self)
        private static let currentCPU = cLibraryFunction("sched_getcpu", as: (@convention(c) () -> Int32).self)
    }
#endif
