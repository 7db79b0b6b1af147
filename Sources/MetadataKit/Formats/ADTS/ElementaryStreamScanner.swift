#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One frame header of a raw audio stream (ADTS, AC-3, E-AC-3), as
/// ``ElementaryStreamScanner`` needs it.
struct ElementaryStreamFrame: Equatable, Sendable {
    /// The whole frame's length in bytes, header included.
    var length: Int
    /// Samples per channel the frame adds to the stream's duration (0 for an
    /// E-AC-3 dependent substream, which plays beside its independent one).
    var samples: Int
    var sampleRate: Int
    /// Header fields that stay the same through one stream: a header whose
    /// key differs is not taken as the next frame of the stream.
    var streamKey: UInt32
}

/// Finds and walks the frames of a raw audio stream with positioned reads
/// (headers only; ``FileSource`` keeps a window, so they are cheap).
///
/// - The first frame is the first header in the first ``searchLimit`` bytes
///   that is followed by another header of the same stream where its length
///   says (or whose frame ends exactly at the end of the audio): a stray
///   sync word in junk is not taken for audio. A frame right at the start
///   of the audio that the end of the file cuts (a file cut inside its first
///   frame, which mutagen reads) is taken too, its duration estimated from
///   the bytes there are, with a warning.
/// - The frames are then walked to the end of the audio, at most
///   ``maximumFrames`` or ``walkLimit`` bytes (reading a few bytes per frame
///   of a long file would read all of it); the duration is the sum of their
///   samples over their rate. Where the walk stops early (damage, or a
///   limit), the rest is counted at the average bytes per second of the
///   frames read (exact for constant bit rates, as AC-3's), with a warning
///   for damage. A last frame whose length runs past the end of the audio
///   (or a header cut there) is a stream cut short: a `truncated` warning
///   in ``Scan/cut``, and a save is refused (``RawStreamParser``). For a
///   stream longer than the walk's limits, the last frames are found from
///   the end (``cutAtTheEnd(_:from:to:headerLength:syncByte:key:parse:)``).
enum ElementaryStreamScanner {
    /// How far past the start of the audio the first frame is looked for.
    static let searchLimit = 64 * 1024
    /// Most frames walked (about 6 hours of 48 kHz AAC).
    static let maximumFrames = 1 << 20
    /// Most stream bytes walked frame by frame (about 4 minutes of 128 kb/s AAC).
    static let walkLimit: Int64 = 4 << 20

    /// A frame header parser: the frame at the start of the bytes given, or nil.
    typealias HeaderParser = (ArraySlice<UInt8>) -> ElementaryStreamFrame?

    struct Scan {
        var firstOffset: Int64
        var first: ElementaryStreamFrame
        var frames = 0
        /// Bytes of the frames walked (and of the rest, once estimated).
        var bytes: Int64 = 0
        /// Samples of the frames walked.
        var samples: Int64 = 0
        var duration: Double = 0
        var warnings: [MediaWarning] = []
        /// The warning for a stream cut short (also in ``warnings``): a frame
        /// whose length runs past the end of the audio, or a header cut there.
        var cut: MediaWarning?
    }

    /// Whether a stream starts exactly at `offset`: `count` frames follow one
    /// another there, or fewer that end exactly at `end`, or fewer followed by
    /// one that `end` cuts (in its header or its data): a cut file.
    static func startsStream(
        in source: FileSource, at offset: Int64, to end: Int64, count: Int, headerLength: Int, parse: HeaderParser
    ) throws -> Bool {
        var position = offset
        var key: UInt32?
        for _ in 0..<count {
            if position == end, key != nil { return true }
            // Whole frames, then a file cut inside the next header: a cut stream, as one cut inside a frame below.
            guard end - position >= Int64(headerLength) else { return key != nil }
            guard let frame = parse(try source.getBytes(at: position, count: headerLength)[...]),
                key == nil || key == frame.streamKey
            else { return false }
            if Int64(frame.length) > end - position { return true } // cut inside this frame
            key = frame.streamKey
            position += Int64(frame.length)
        }
        return true
    }

    /// The stream in `start..<end`; nil when no frame is found.
    static func scan(
        _ source: FileSource, from start: Int64, to end: Int64, headerLength: Int, syncByte: UInt8, parse: HeaderParser
    ) throws -> Scan? {
        guard var scan = try firstFrame(source, from: start, to: end, headerLength: headerLength, syncByte: syncByte, parse: parse)
        else { return nil }
        var position = scan.firstOffset
        var limited = false
        while end - position >= Int64(headerLength) {
            if scan.frames >= maximumFrames || position - scan.firstOffset >= walkLimit {
                limited = true
                break
            }
            guard let frame = parse(try source.getBytes(at: position, count: headerLength)[...]),
                frame.streamKey == scan.first.streamKey
            else { break }
            guard Int64(frame.length) <= end - position else {
                if scan.frames > 0 {
                    scan.cut = MediaWarning(
                        .truncated,
                        "the stream is cut at byte \(end): its frame at byte \(position) declares \(frame.length) bytes, \(end - position) remain",
                        offset: end)
                }
                break
            }
            scan.frames += 1
            scan.bytes += Int64(frame.length)
            scan.samples += Int64(frame.samples)
            position += Int64(frame.length)
        }
        // One stream has one rate (it is part of the stream key).
        scan.duration = Double(scan.samples) / Double(scan.first.sampleRate)
        let rest = end - position
        if scan.frames == 0, rest > 0 {
            // The first frame is cut: its samples in proportion to the bytes there are.
            let share = Double(rest) / Double(max(scan.first.length, 1))
            scan.duration = share * Double(scan.first.samples) / Double(scan.first.sampleRate)
            scan.bytes = rest
            let cut = MediaWarning(
                .truncated, "the first frame (\(scan.first.length) bytes) runs past the end of the audio (\(rest) bytes left)",
                offset: position)
            scan.warnings.append(cut)
            scan.cut = cut
            return scan
        }
        if scan.cut == nil, !limited, rest > 0, rest < Int64(headerLength),
            try source.getBytes(at: position, count: 1)[0] == syncByte
        {
            scan.cut = MediaWarning(
                .truncated, "the stream is cut at byte \(end): a frame header at byte \(position) runs past it", offset: end)
        }
        if limited {
            scan.cut = try cutAtTheEnd(
                source, from: position, to: end, headerLength: headerLength, syncByte: syncByte, key: scan.first.streamKey,
                parse: parse)
        }
        if let cut = scan.cut, scan.frames > 0 { scan.warnings.append(cut) }
        if rest > 0, scan.bytes > 0, scan.duration > 0 {
            // Count what was not walked at the rate of what was.
            scan.duration += Double(rest) * scan.duration / Double(scan.bytes)
            if !limited, scan.cut == nil, rest >= Int64(headerLength) {
                scan.warnings.append(
                    MediaWarning(
                        .malformed,
                        "no frame of the stream at byte \(position) after \(scan.frames) frames; the duration of the last \(rest) bytes is estimated",
                        offset: position))
            }
            scan.bytes += rest
        }
        return scan
    }

    /// How far before the end of the audio a walk that stopped at a limit
    /// looks for the last frames (a few of the longest: ADTS frames are at
    /// most 8191 bytes, E-AC-3 ones 4096).
    static let tailLength: Int64 = 24 * 1024

    /// Where a stream too long to walk is cut: from the first header of the
    /// stream in its last ``tailLength`` bytes that starts a chain of whole
    /// frames, the chain either reaches the end (nil) or its next frame
    /// runs past it (the cut). A sync word in frame data starts no chain.
    static func cutAtTheEnd(
        _ source: FileSource, from floor: Int64, to end: Int64, headerLength: Int, syncByte: UInt8, key: UInt32,
        parse: HeaderParser
    ) throws -> MediaWarning? {
        let start = max(floor, end - tailLength)
        let window = try source.getBytes(at: start, count: Int(end - start))
        func frame(at index: Int) -> ElementaryStreamFrame? {
            guard window.count - index >= headerLength, let frame = parse(window[index..<index + headerLength]),
                frame.streamKey == key
            else { return nil }
            return frame
        }
        var steps = 0 // frames looked at in every chain: bounded, whatever the bytes
        for index in window.indices where window[index] == syncByte && steps < 1 << 16 {
            guard let first = frame(at: index), first.length > 0 else { continue }
            var position = index
            var whole = 0
            while position < window.count {
                steps += 1
                guard let next = frame(at: position) else {
                    // A header cut by the end, after whole frames: a cut.
                    if whole > 0, window.count - position < headerLength, window[position] == syncByte { break }
                    whole = -1 // not a chain
                    break
                }
                guard next.length <= window.count - position else { break }
                position += max(next.length, 1)
                whole += 1
            }
            guard whole > 0 else { continue }
            if position == window.count { return nil }
            let at = start + Int64(position)
            return MediaWarning(
                .truncated, "the stream is cut at byte \(end): its frame at byte \(at) runs past it (\(end - at) bytes remain)",
                offset: end)
        }
        return nil
    }

    /// The first frame in `start..<end` followed by a frame of its stream.
    private static func firstFrame(
        _ source: FileSource, from start: Int64, to end: Int64, headerLength: Int, syncByte: UInt8, parse: HeaderParser
    ) throws -> Scan? {
        let limit = min(Int64(searchLimit), end - start)
        guard limit >= Int64(headerLength) else { return nil }
        let window = try source.getBytes(at: start, count: Int(limit))
        var index = 0
        while index + headerLength <= window.count {
            defer { index += 1 }
            guard window[index] == syncByte, let frame = parse(window[index..<index + headerLength]) else { continue }
            let offset = start + Int64(index)
            let next = offset + Int64(frame.length)
            // A frame right at the start that the end of the file cuts, or follows with less than a header: a cut stream.
            if next == end || (index == 0 && end - next < Int64(headerLength)) { return Scan(firstOffset: offset, first: frame) }
            guard end - next >= Int64(headerLength),
                let following = parse(try source.getBytes(at: next, count: headerLength)[...]),
                following.streamKey == frame.streamKey
            else { continue }
            return Scan(firstOffset: offset, first: frame)
        }
        return nil
    }
}
