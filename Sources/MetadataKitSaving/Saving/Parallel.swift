import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs independent per-file steps of a batch on every core.
///
/// Speed only: a batch's plans and checks parse files; mdkit uses every core
/// for them. The steps read, write and sync files, so they run on
/// ``BlockingWork``'s threads, not on those Swift's tasks share.
package enum Parallel {
    /// `body(index)` for every index in `0..<count`, spread over `width`
    /// threads (by default one per core, at least 2), each calling `start`
    /// before its first index (``BlockingWork/concurrentPerform(iterations:width:reusingThreads:on:startingEachThread:_:)``);
    /// returns the results in index order. `body` must not share mutable
    /// state between indices.
    /// `reusingThreads`: see ``BlockingWork/concurrentPerform(iterations:width:reusingThreads:on:startingEachThread:_:)``.
    package static func map<Value>(
        _ count: Int, width: Int? = nil, reusingThreads: Bool = false, startingEachThread start: () -> Void = {},
        _ body: (Int) -> Value
    ) -> [Value] {
        let results = UnsafeMutableBufferPointer<Value?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        // activeProcessorCount reads the CPU quota from files: asked only when there is work to share.
        let width = count > 1 ? width ?? max(2, ProcessInfo.processInfo.activeProcessorCount) : 1
        BlockingWork.concurrentPerform(
            iterations: count, width: width, reusingThreads: reusingThreads, startingEachThread: start
        ) { index in
            results[index] = body(index)
        }
        defer { results.update(repeating: nil) }
        return results.map { $0! }
    }
}
