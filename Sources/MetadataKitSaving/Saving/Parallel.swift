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
    /// `body(index)` for every index in `0..<count`, spread over the cores;
    /// returns the results in index order. `body` must not share mutable
    /// state between indices.
    package static func map<Value>(_ count: Int, _ body: (Int) -> Value) -> [Value] {
        guard count > 1 else { return (0..<count).map(body) }
        let results = UnsafeMutableBufferPointer<Value?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        BlockingWork.concurrentPerform(iterations: count, width: max(2, ProcessInfo.processInfo.activeProcessorCount)) { index in
            results[index] = body(index)
        }
        defer { results.update(repeating: nil) }
        return results.map { $0! }
    }
}
