#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a track's media times lie on the movie timeline, in ticks of one
/// timescale in which both the media times and the edit list are exact.
///
/// The edit list (`elst`, ISO/IEC 14496-12 §8.6.6) is read as AVFoundation
/// shows a metadata track: leading empty edits delay the track, the first
/// media segment shows media from its `media_time` for its
/// `segment_duration`; media outside that segment is not shown. Later
/// segments (rare in metadata tracks) are not followed.
struct TimedMetadataTimeline: Sendable, Hashable {
    /// Ticks per second of the times below.
    let timescale: Int64
    /// Ticks per media time unit (timescale / the track's media timescale; a whole number).
    let mediaScale: Int64
    /// Movie time minus media time, in ticks.
    let offset: Int64
    /// The movie times the track is shown in, in ticks (`upperBound` nil: to the end).
    let showFrom: Int64
    let showUntil: Int64?

    /// The timeline of `track` in a movie of `movieTimescale` units per second.
    init(track: AssetTrack, movieTimescale: UInt32) {
        let mediaTimescale = Int64(max(1, track.timescale))
        var empty: Int64 = 0
        var segment: EditListEntry?
        for entry in track.editList {
            if entry.isEmpty {
                empty = empty.addingReportingOverflow(entry.segmentDuration).partialValue
            } else {
                segment = entry
                break
            }
        }
        let movieTimescale = Int64(movieTimescale)
        let limit = Self.limit
        guard let segment, movieTimescale > 0, (0..<limit).contains(empty), (0..<limit).contains(segment.mediaTime),
            (0..<limit).contains(segment.segmentDuration),
            empty != 0 || segment.mediaTime != 0 || segment.segmentDuration != 0
        else {
            // No edit list (or one that moves nothing): media time is movie time.
            (timescale, mediaScale, offset, showFrom, showUntil) = (mediaTimescale, 1, 0, 0, nil)
            return
        }
        // A timescale both divide, when it fits in 32 bits; else the media timescale (edits rounded).
        let common = Self.leastCommonMultiple(mediaTimescale, movieTimescale)
        let scale = common.map { $0 <= Int64(UInt32.max) ? $0 : mediaTimescale } ?? mediaTimescale
        func fromMovie(_ units: Int64) -> Int64 {
            let (ticks, overflow) = units.multipliedReportingOverflow(by: scale / movieTimescale)
            if scale % movieTimescale == 0, !overflow { return ticks }
            return Self.clamped(Double(units) * Double(scale) / Double(movieTimescale))
        }
        timescale = scale
        mediaScale = scale / mediaTimescale
        // Every time is kept within ±2^61 ticks, so sums and differences of two can't overflow.
        showFrom = min(fromMovie(empty), limit)
        let mediaStart = segment.mediaTime.multipliedReportingOverflow(by: mediaScale)
        offset = showFrom - (mediaStart.overflow ? limit : min(mediaStart.partialValue, limit))
        // A zero-length segment is read as "to the end", as players do.
        showUntil = segment.segmentDuration > 0 ? showFrom + min(fromMovie(segment.segmentDuration), limit) : nil
    }

    /// Times from a file beyond this (2^61 ticks) are not followed.
    static let limit: Int64 = 1 << 61

    /// `value` rounded, within ±``limit``.
    static func clamped(_ value: Double) -> Int64 {
        guard value.isFinite else { return value > 0 ? limit : -limit }
        return Int64(max(-Double(limit), min(Double(limit), value.rounded())))
    }

    static func leastCommonMultiple(_ a: Int64, _ b: Int64) -> Int64? {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        let (product, overflow) = (a / x).multipliedReportingOverflow(by: b)
        return overflow ? nil : product
    }

    /// A sample at media time `time` lasting `duration` (media units) on the
    /// movie timeline, cut to the shown part: movie start and end and media
    /// start, in ticks; nil when no part of it is shown (or times overflow).
    func place(time: Int64, duration: Int64) -> (start: Int64, end: Int64, mediaStart: Int64)? {
        let (media, overflow) = time.multipliedReportingOverflow(by: mediaScale)
        let (length, lengthOverflow) = duration.multipliedReportingOverflow(by: mediaScale)
        guard !overflow, !lengthOverflow else { return nil }
        let (start, startOverflow) = media.addingReportingOverflow(offset)
        let (end, endOverflow) = start.addingReportingOverflow(length)
        guard !startOverflow, !endOverflow else { return nil }
        let shownStart = max(start, showFrom)
        let shownEnd = showUntil.map { min(end, $0) } ?? end
        let (mediaStart, mediaOverflow) = shownStart.subtractingReportingOverflow(offset)
        guard shownEnd > shownStart, !mediaOverflow else { return nil }
        return (shownStart, shownEnd, mediaStart)
    }

    func seconds(_ ticks: Int64) -> Double { Double(ticks) / Double(timescale) }
}
