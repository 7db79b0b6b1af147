#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Metadata {
    /// The file's ID3 synchronised lyrics (`SYLT`/`SLT` frames), in file order.
    public var synchronizedLyrics: [SynchronizedLyrics] {
        items.compactMap { item in
            guard item.keySpace == .id3, item.key == "SYLT" || item.key == "SLT", case .data(let bytes) = item.value else { return nil }
            return SynchronizedLyrics(parsing: [UInt8](bytes))
        }
    }

    /// The lyrics as timed lines: the first ID3 `SYLT` frame of lyrics in
    /// milliseconds (or MPEG frames, given `secondsPerFrame`), else
    /// ``lyrics`` when it is LRC text (Vorbis `LYRICS`, MP4 `©lyr`). Nil
    /// when the file has no timed lyrics.
    public func timedLyrics(secondsPerFrame: Double? = nil) -> [TimedLyricLine]? {
        let frames = synchronizedLyrics
        let chosen = frames.first { $0.contentType == 1 } ?? frames.first
        if let lines = chosen?.timedLines(secondsPerFrame: secondsPerFrame) { return lines }
        return lyrics.flatMap(LRCLyrics.init(parsing:))?.timedLines
    }

    /// Sets timed lyrics in `keySpace`: for ID3 a `SYLT` frame in milliseconds
    /// (replacing the `SYLT` frames there) plus the plain text in `USLT`
    /// (``lyrics``) for players without `SYLT`; elsewhere the LRC text as
    /// ``lyrics`` (Vorbis `LYRICS`, MP4 `©lyr`), which round-trips exactly.
    ///
    /// - Returns: the LRC lines the key space can't keep: in ID3, the lines
    ///   that are no timed line (`[ti:…]`, `[ar:…]` and other ID tags), since
    ///   `SYLT` holds timed text only; empty elsewhere.
    @discardableResult
    public mutating func setTimedLyrics(_ lrc: LRCLyrics, in keySpace: MetadataKeySpace) -> [String] {
        if keySpace == .id3 {
            let language = synchronizedLyrics.first?.language ?? "eng"
            let position = items.firstIndex { $0.keySpace == .id3 && ($0.key == "SYLT" || $0.key == "SLT") } ?? items.endIndex
            let kept = items.enumerated().filter { !($0.element.keySpace == .id3 && ($0.element.key == "SYLT" || $0.element.key == "SLT")) }
            let sylt = SynchronizedLyrics(lines: lrc.timedLines, language: language).item()
            items = kept.filter { $0.offset < position }.map(\.element) + [sylt] + kept.filter { $0.offset >= position }.map(\.element)
            lyrics = lrc.timedLines.map(\.text).joined(separator: "\n")
            return lrc.lines.compactMap { line in
                guard case .other(let text) = line, !text.allSatisfy(\.isWhitespace) else { return nil }
                return text
            }
        } else {
            lyrics = lrc.text
            return []
        }
    }
}
