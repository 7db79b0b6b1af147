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
    /// The line's text.
    public var text: String

    /// A line reading `text` from `time` seconds.
    public init(time: Double, text: String) {
        self.time = time
        self.text = text
    }
}
