/// The checks of an MP3's audio stream that read only a few KiB of it: a
/// variable bit rate without a Xing/VBRI header, and a stream cut short.
enum MP3StreamChecks {
    /// Bytes of frames looked at after the first frame for the bit rates.
    static let sampleBytes = 32 * 1024
    /// Bytes before the end of the audio in which the last frames are walked.
    static let tailBytes = 16 * 1024

    static func findings(_ source: FileSource, audioStart: Int64, audioEnd: Int64) throws -> [Finding] {
        guard let first = try MPEGAudioScanner.firstFrame(in: source, from: audioStart, to: audioEnd) else { return [] }
        var findings: [Finding] = []
        let frame = try source.getBytes(at: first.offset, count: Int(min(192, audioEnd - first.offset)))
        let info = MPEGVBRHeader(frame: frame, header: first.header)
        if let info, let bytes = info.bytes, bytes > 0, Int64(bytes) > audioEnd - first.offset {
            findings.append(
                Finding(
                    .audioTruncated, .error,
                    "the \(info.kind == .vbri ? "VBRI" : "Xing") header counts \(bytes) bytes of audio, the file has \(audioEnd - first.offset)",
                    byteOffset: audioEnd, fixNote: "the missing audio can't be brought back"))
        } else if let cut = try cutLastFrame(source, first: first.header, audioStart: first.offset, audioEnd: audioEnd) {
            findings.append(
                Finding(
                    .audioTruncated, .error,
                    "the last audio frame (\(cut.length) bytes) is cut short by \(cut.length - Int(audioEnd - cut.offset)) bytes",
                    byteOffset: cut.offset, fixNote: "the missing audio can't be brought back"))
        }
        if info == nil, first.header.layer == 3, try bitRates(source, first: first, audioEnd: audioEnd).count > 1 {
            findings.append(
                Finding(
                    .mp3NoVBRHeader, .info,
                    "the stream has a variable bit rate but no Xing or VBRI header: players guess its duration and seek badly",
                    byteOffset: first.offset,
                    fixNote:
                        "a Xing header is built from the audio frames, which --fix does not touch (use a tool such as mp3val or vbrfix)"))
        }
        return findings
    }

    /// The bit rates of the frames in the first ``sampleBytes`` after the first frame.
    static func bitRates(_ source: FileSource, first: MPEGAudioScanner.FirstFrame, audioEnd: Int64) throws -> Set<Int> {
        let count = Int(min(Int64(sampleBytes), audioEnd - first.offset))
        let window = try source.getBytes(at: first.offset, count: count)
        var rates: Set<Int> = []
        var index = 0
        while index + 4 <= window.count, let header = MPEGFrameHeader(window[index..<index + 4]), header.isCompatible(with: first.header) {
            rates.insert(header.bitrate)
            index += max(1, header.frameLength)
        }
        return rates
    }

    /// The last frame, when it runs past the end of the audio: found by
    /// walking the frames of the last ``tailBytes`` from the first place
    /// where two compatible frames follow each other.
    static func cutLastFrame(
        _ source: FileSource, first: MPEGFrameHeader, audioStart: Int64, audioEnd: Int64
    ) throws -> (offset: Int64, length: Int)? {
        let start = max(audioStart, audioEnd - Int64(tailBytes))
        let window = try source.getBytes(at: start, count: Int(audioEnd - start))
        func header(at index: Int) -> MPEGFrameHeader? {
            guard index >= 0, index + 4 <= window.count, window[index] == 0xFF,
                let header = MPEGFrameHeader(window[index..<index + 4]), header.isCompatible(with: first), header.frameLength > 4
            else { return nil }
            return header
        }
        var index = 0
        while index + 4 <= window.count {
            if let current = header(at: index), header(at: index + current.frameLength) != nil { break }
            index += 1
        }
        guard index + 4 <= window.count else { return nil }
        while let current = header(at: index) {
            let end = index + current.frameLength
            if end > window.count { return (start + Int64(index), current.frameLength) }
            index = end
        }
        return nil
    }
}
