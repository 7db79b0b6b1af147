#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds the first MPEG audio frame of a stream and derives the stream's
/// properties from it.
enum MPEGAudioScanner {
    /// How far past the start of the audio the first frame is looked for
    /// (junk or a second tag may sit between the ID3v2 tag and the audio).
    static let scanLimit = 64 * 1024
    /// Bytes of the first frame read to find a Xing/Info/VBRI header.
    private static let infoFrameBytes = 192

    /// The first frame: its offset and header.
    struct FirstFrame: Equatable {
        var offset: Int64
        var header: MPEGFrameHeader
    }

    /// The first frame header in `start..<end` (looking at most ``scanLimit``
    /// bytes in) that is followed by another valid, compatible header where
    /// its length says — so a stray `FF Ex` in junk is not taken for audio. A
    /// frame whose successor would lie at or past `end` is accepted as is.
    static func firstFrame(in source: FileSource, from start: Int64, to end: Int64) throws -> FirstFrame? {
        guard end - start >= 4 else { return nil }
        let limit = Int(min(Int64(scanLimit + 4), end - start))
        // Audio almost always starts right away: look at a small chunk first,
        // and read further (in growing chunks) only when no frame is there.
        var chunkStart = 0
        var chunkLength = min(limit, 2048)
        while chunkStart + 4 <= limit {
            let window = try source.getBytes(at: start + Int64(chunkStart), count: chunkLength)
            var index = 0
            while index + 4 <= window.count {
                guard window[index] == 0xFF, window[index + 1] & 0xE0 == 0xE0,
                    let header = MPEGFrameHeader(window[index..<index + 4])
                else {
                    index += 1
                    continue
                }
                let offset = start + Int64(chunkStart + index)
                let nextOffset = offset + Int64(header.frameLength)
                if nextOffset + 4 > end {
                    return FirstFrame(offset: offset, header: header)
                }
                let next = index + header.frameLength
                let nextBytes = next + 4 <= window.count ? Array(window[next..<next + 4]) : try source.getBytes(at: nextOffset, count: 4)
                if let following = MPEGFrameHeader(nextBytes[...]), following.isCompatible(with: header) {
                    return FirstFrame(offset: offset, header: header)
                }
                index += 1
            }
            // Overlap by 3 bytes so a header split across chunks is still seen.
            chunkStart += max(1, window.count - 3)
            chunkLength = min(limit - chunkStart, chunkLength * 4)
            if chunkLength < 4 { break }
        }
        return nil
    }

    /// Codec, channels, sample rate, duration and bit rate of the audio in
    /// `start..<end`; nil when no frame is found there.
    ///
    /// With a Xing/Info/VBRI frame count: duration = frames × samples per
    /// frame / sample rate; a VBR stream's bit rate is its bytes × 8 / duration
    /// (the bytes from the header, else those between the first frame and
    /// `end`), a CBR stream's the header's. Without one, the stream is taken
    /// as CBR: duration = audio bytes × 8 / bit rate. Encoder delay and
    /// padding are not subtracted.
    static func properties(in source: FileSource, from start: Int64, to end: Int64) throws -> MediaProperties? {
        guard let first = try firstFrame(in: source, from: start, to: end) else { return nil }
        let header = first.header
        var properties = MediaProperties()
        properties.codec = header.codec
        properties.channels = header.channels
        properties.sampleRate = header.sampleRate
        properties.bitrate = header.bitrate

        let audioBytes = end - first.offset
        let frameBytes = try source.getBytes(at: first.offset, count: Int(min(Int64(infoFrameBytes), audioBytes)))
        if let info = MPEGVBRHeader(frame: frameBytes, header: header), let frames = info.frames, frames > 0 {
            let duration = Double(frames) * Double(header.samplesPerFrame) / Double(header.sampleRate)
            properties.duration = duration
            if info.isVariableBitrate {
                let bytes = info.bytes.flatMap { $0 > 0 ? Int64($0) : nil } ?? audioBytes
                properties.bitrate = Int((Double(bytes) * 8 / duration).rounded())
            } else if let next = try? source.getBytes(at: first.offset + Int64(header.frameLength), count: 4),
                let audio = MPEGFrameHeader(next[...]), audio.isCompatible(with: header)
            {
                // An Info (CBR) frame is often coded at another bit rate than the audio after it.
                properties.bitrate = audio.bitrate
            }
        } else {
            properties.duration = Double(audioBytes) * 8 / Double(header.bitrate)
        }
        return properties
    }
}
