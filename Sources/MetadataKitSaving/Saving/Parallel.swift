import Dispatch
import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs independent per-file steps of a batch on every core.
///
/// Speed only: a batch's plans and checks parse files; mdkit uses every core for them.
package enum Parallel {
    /// `body(index)` for every index in `0..<count`, spread over the cores;
    /// returns the results in index order. `body` must not share mutable
    /// state between indices.
    package static func map<Value>(_ count: Int, _ body: (Int) -> Value) -> [Value] {
        guard count > 1 else { return (0..<count).map(body) }
        let results = UnsafeMutableBufferPointer<Value?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        withoutActuallyEscaping(body) { body in
            let box = Box(body, results)
            DispatchQueue.concurrentPerform(iterations: count) { index in
                box.results[index] = box.body(index)
            }
        }
        defer { results.update(repeating: nil) }
        return results.map { $0! }
    }

    /// Holds what the workers share: each writes only its own slot.
    private final class Box<Value>: @unchecked Sendable {
        let body: (Int) -> Value
        let results: UnsafeMutableBufferPointer<Value?>
        init(_ body: @escaping (Int) -> Value, _ results: UnsafeMutableBufferPointer<Value?>) {
            self.body = body
            self.results = results
        }
    }
}
