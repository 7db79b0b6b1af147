#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One line of synchronised lyrics: the time it starts, in seconds from the
/// start of the audio, and its text.
public struct TimedLyricLine: Sendable, Hashable {
    /// Seconds from the start of the audio.
    public var time: Double
    public var text: String

    public init(time: Double, text: String) {
        self.time = time
        self.text = text
    }
}
