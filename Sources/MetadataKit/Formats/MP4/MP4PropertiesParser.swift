#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the movie header and the tracks' headers and sample descriptions
/// (through ``MP4TrackBoxes``) into ``MediaProperties``. Sample tables are
/// never read.
struct MP4PropertiesParser {
    let source: FileSource

    /// One track's facts needed for the file's properties.
    struct TrackFacts {
        /// `tkhd` track ID.
        var trackID: Int?
        /// `hdlr` handler type: `soun`, `vide`, `text`, `meta`, ...
        var handler: FourCC?
        /// Media duration in seconds, from `mdhd`.
        var duration: Double?
        var stream: MP4StreamInfo?
    }

    /// The duration in seconds of an `mvhd` (see ``MP4HeaderTiming``).
    func duration(of header: MP4BoxHeader) throws -> Double? {
        var reader = try source.mp4Payload(of: header, upTo: 32)
        return try MP4HeaderTiming(parsing: &reader).seconds
    }

    /// The duration of a fragmented movie: `mehd` (§8.8.2, FullBox; u64 in
    /// v1, u32 in v0) fragment_duration in the `mvhd` timescale.
    func fragmentDuration(mehd: MP4BoxHeader, mvhd: MP4BoxHeader) throws -> Double? {
        var header = try source.mp4Payload(of: mvhd, upTo: 24)
        let version = try header.readUInt8()
        try header.skip(3 + (version == 1 ? 16 : 8))
        let timescale = try header.readUInt32()
        var reader = try source.mp4Payload(of: mehd, upTo: 12)
        let mehdVersion = try reader.readUInt8()
        try reader.skip(3)
        let duration = mehdVersion == 1 ? try reader.readUInt64() : UInt64(try reader.readUInt32())
        guard timescale > 0, duration > 0 else { return nil }
        return Double(duration) / Double(timescale)
    }

    /// The facts of one `trak`: trak/mdia/{hdlr, mdhd, minf/stbl/stsd}.
    func track(_ trak: MP4Box) throws -> TrackFacts {
        let boxes = MP4TrackBoxes(trak: trak, source: source)
        var track = TrackFacts()
        guard boxes.mediaBox != nil else { return track }
        if let header = try? boxes.trackHeader() { track.trackID = Int(header.trackID) }
        track.handler = try boxes.handler()?.handlerType
        track.duration = try boxes.mediaTiming()?.seconds
        track.stream = try boxes.stream(handler: track.handler)
        return track
    }

    /// The file's properties: the movie duration (or the longest track's),
    /// the first audio track's codec, rate, channels and bit rate, the first
    /// video track's pixel size. `mediaDataSize` is the total payload of the
    /// `mdat` boxes, used for the bit rate of audio-only files whose codec
    /// configuration gives none.
    ///
    /// A movie header or track whose boxes can't be read gives no facts and
    /// a warning; the other tracks are still read (only the depth limit
    /// throws).
    func properties(
        moov: MP4Box, fileSize: Int64, mediaDataSize: Int64?,
        warnings: inout [MediaWarning]
    ) throws -> (MediaProperties, hasVideo: Bool) {
        func attempt<T>(_ what: String, at offset: Int64, _ body: () throws -> T?) throws -> T? {
            do {
                return try body()
            } catch let error as MediaError where error.code != .tooDeep {
                warnings.append(
                    MediaWarning(
                        error.code, "\(what) can't be read (\(error.reason)): its facts are missing",
                        offset: error.offset ?? offset))
                return nil
            }
        }
        var properties = MediaProperties()
        if let mvhd = moov.child("mvhd") {
            properties.duration = try attempt("the movie header", at: mvhd.header.offset) { try duration(of: mvhd.header) }
        }
        let tracks = try moov.children("trak").compactMap { trak in
            try attempt("a track", at: trak.header.offset) { try track(trak) }
        }
        if properties.duration == nil {
            properties.duration = tracks.compactMap(\.duration).max()
        }
        if properties.duration == nil, let mvhd = moov.child("mvhd"), let mehd = moov.descendant("mvex", "mehd") {
            properties.duration = try attempt("the fragment duration", at: mehd.header.offset) {
                try fragmentDuration(mehd: mehd.header, mvhd: mvhd.header)
            }
        }
        let audio = tracks.first { $0.handler == "soun" }?.stream
        let video = tracks.first { $0.handler == "vide" }?.stream
        if let audio {
            properties.codec = audio.codec
            properties.sampleRate = audio.sampleRate
            properties.channels = audio.channels
            properties.bitsPerSample = audio.bitsPerSample
            properties.bitrate = audio.bitrate
        } else {
            properties.codec = video?.codec
        }
        properties.width = video?.width
        properties.height = video?.height
        // ALAC's configured average rate is often the uncompressed one: with
        // media data to measure, its bit rate is the media bytes over the
        // duration, as ffprobe, mediainfo and exiftool report it.
        let measuresALAC = audio?.codec == "ALAC" && (mediaDataSize ?? 0) > 0
        var measured: Int?
        if properties.bitrate == nil || measuresALAC, audio != nil, video == nil,
            let duration = properties.duration, duration > 0
        {
            let bytes = mediaDataSize.flatMap { $0 > 0 ? $0 : nil } ?? fileSize
            let bitrate = Double(bytes) * 8 / duration
            if bitrate.isFinite, bitrate < Double(Int.max) {
                properties.bitrate = Int(bitrate.rounded())
                measured = properties.bitrate
            }
        }
        properties.streams = tracks.compactMap(Self.stream)
        if measuresALAC, let measured, let index = properties.streams.firstIndex(where: { $0.mediaType == .audio }) {
            properties.streams[index].bitrate = measured
        }
        let hasVideo = tracks.contains { $0.handler == "vide" }
        return (properties, hasVideo)
    }

    /// The track (as ``MediaProperties/streams`` lists it) of a track with
    /// a sample description: its kind from the `hdlr` handler type, as
    /// ``Asset/tracks`` gives it.
    static func stream(_ track: TrackFacts) -> AssetTrack? {
        guard let info = track.stream else { return nil }
        var stream = AssetTrack(
            id: UInt32(clamping: track.trackID ?? 0), mediaType: AssetMediaType(handler: track.handler ?? "    "),
            codecName: info.codec ?? info.format.description)
        stream.bitrate = info.bitrate
        stream.sampleRate = info.sampleRate
        stream.channels = info.channels
        stream.width = info.width
        stream.height = info.height
        return stream
    }
}
