#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A part of a movie, in seconds on the movie timeline.
public struct ExportTimeRange: Sendable, Hashable {
    /// The start in seconds; negative values become 0.
    public var start: Double
    /// The end; the end of the movie when nil.
    public var end: Double?

    /// The range from `start` (clamped to 0) to `end` (nil: the end of the movie).
    public init(start: Double = 0, end: Double? = nil) {
        self.start = max(0, start)
        self.end = end
    }
}
