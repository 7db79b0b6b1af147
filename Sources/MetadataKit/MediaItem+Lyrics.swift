#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// The timed lyrics of the file (see ``Metadata/timedLyrics(secondsPerFrame:)``);
    /// `SYLT` timestamps in MPEG frames are converted with 1152 samples per
    /// frame (MPEG-1 Layer III) at the file's sample rate.
    public var timedLyrics: [TimedLyricLine]? {
        let secondsPerFrame = properties.sampleRate.map { 1152 / Double($0) }
        return metadata.timedLyrics(secondsPerFrame: secondsPerFrame)
    }

    /// The lyrics as LRC: the stored text when it is LRC (round-trips
    /// exactly), else made from the timed lines; nil without timed lyrics.
    public var lrcLyrics: LRCLyrics? {
        if metadata.synchronizedLyrics.isEmpty, let text = metadata.lyrics, let lrc = LRCLyrics(parsing: text) { return lrc }
        return timedLyrics.map { LRCLyrics(lines: $0) }
    }

    /// Stores timed lyrics the way the file's format keeps them: an ID3
    /// `SYLT` frame (and the plain text in `USLT`) where the primary key
    /// space is ID3 (MP3, WAV, AIFF), else the LRC text as ``Metadata/lyrics``
    /// (Vorbis `LYRICS`, MP4 `©lyr`).
    /// - Returns: the LRC lines the format can't keep (ID tags such as
    ///   `[ti:…]` in ID3, whose `SYLT` holds timed lines only); empty where
    ///   the LRC text is stored and round-trips exactly.
    /// - Throws: `unsupportedFormat` before the file is loaded.
    @discardableResult
    public mutating func setTimedLyrics(_ lrc: LRCLyrics) throws -> [String] {
        guard let identifier = fileType?.identifier, let format = MediaFormat.all.first(where: { $0.identifier == identifier }),
            let space = format.keySpaces.first
        else { throw MediaError(.unsupportedFormat, "load the file before setting its lyrics") }
        return metadata.setTimedLyrics(lrc, in: space)
    }
}
