#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Items that hold over a time range of a movie: one sample of a timed
/// metadata track.
public struct TimedMetadataGroup: Sendable, Hashable {
    /// The items that hold over the group's time range; empty for a gap.
    public var items: [TimedMetadataItem]
    /// Start, in seconds from the start of the movie (on the movie timeline:
    /// after the track's edit list, ISO/IEC 14496-12 §8.6.6).
    public var start: Double
    /// Duration in seconds; nil when open-ended (it lasts until the next group
    /// starts, the last one until the end of the movie).
    public var duration: Double?
    /// Start in the track's media time, in seconds, when an edit list puts it
    /// elsewhere on the movie timeline than ``start`` (an iPhone live photo's
    /// `still-image-time` is media time 0, shown at 0.48 s); nil when the two
    /// are the same. Writing keeps the offset: the track gets an edit list
    /// that shows media time `mediaStart` at `start`.
    public var mediaStart: Double?

    /// A group of `items` from `start` seconds, for `duration` seconds (nil:
    /// until the next group), at `mediaStart` in media time when an edit list moves it.
    public init(items: [TimedMetadataItem], start: Double, duration: Double? = nil, mediaStart: Double? = nil) {
        self.items = items
        self.start = start
        self.duration = duration
        self.mediaStart = mediaStart
    }
}
