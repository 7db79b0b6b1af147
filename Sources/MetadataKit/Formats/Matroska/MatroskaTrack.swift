#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One TrackEntry (RFC 9559 §5.1.4.1).
struct MatroskaTrack: Sendable, Hashable {
    var number: UInt64 = 0
    var uid: UInt64?
    /// 1 video, 2 audio, 3 complex, 0x10 logo, 0x11 subtitle, 0x12 buttons, 0x20 control, 0x21 metadata.
    var type: UInt64 = 0
    var codecID: String?
    /// ISO 639-2 (default `eng`, §5.1.4.1.19) and BCP 47 when given (which wins).
    var language = "eng"
    var languageBCP47: String?
    var name: String?
    var isEnabled = true
    var isDefault = true
    var isForced = false
    var pixelWidth: Int?
    var pixelHeight: Int?
    var samplingFrequency: Double?
    var outputSamplingFrequency: Double?
    var channels: Int?
    var bitDepth: Int?

    /// A Tracks element larger than this is damage (CodecPrivate can be tens of KiB).
    static let maximumTracksSize: Int64 = 16 << 20

    /// The kind of stream.
    var kind: AssetMediaType {
        switch type {
        case 1: return .video
        case 2: return .audio
        case 0x11: return .subtitle
        case 0x21: return .metadata
        default: return .other
        }
    }

    /// A codec name for the common Matroska codec IDs, else the codec ID.
    var codecName: String? {
        guard let codecID else { return nil }
        let names: [String: String] = [
            "V_MPEG4/ISO/AVC": "H.264", "V_MPEGH/ISO/HEVC": "HEVC", "V_VP8": "VP8", "V_VP9": "VP9", "V_AV1": "AV1",
            "V_MPEG4/ISO/SP": "MPEG-4 Visual", "V_MPEG4/ISO/ASP": "MPEG-4 Visual", "V_MPEG2": "MPEG-2 Video",
            "V_MPEG1": "MPEG-1 Video", "V_THEORA": "Theora", "V_MJPEG": "Motion JPEG", "V_FFV1": "FFV1",
            "A_AAC": "AAC", "A_OPUS": "Opus", "A_VORBIS": "Vorbis", "A_FLAC": "FLAC", "A_MPEG/L3": "MP3",
            "A_MPEG/L2": "MP2", "A_AC3": "AC-3", "A_EAC3": "E-AC-3", "A_DTS": "DTS", "A_TRUEHD": "TrueHD",
            "A_ALAC": "ALAC", "A_PCM/INT/LIT": "PCM", "A_PCM/INT/BIG": "PCM", "A_PCM/FLOAT/IEEE": "PCM", "A_WAVPACK4": "WavPack",
            "S_TEXT/UTF8": "SubRip", "S_TEXT/ASS": "ASS", "S_TEXT/SSA": "SSA", "S_TEXT/WEBVTT": "WebVTT",
            "S_HDMV/PGS": "PGS", "S_VOBSUB": "VobSub",
        ]
        if let name = names[codecID] { return name }
        if codecID.hasPrefix("A_AAC") { return "AAC" }
        return codecID
    }

    /// The track as a stream of ``MediaProperties/streams``.
    var stream: AssetTrack {
        var stream = AssetTrack(id: UInt32(clamping: number), mediaType: kind, codecName: codecName)
        stream.width = pixelWidth
        stream.height = pixelHeight
        if let rate = outputSamplingFrequency ?? samplingFrequency, rate.isFinite, rate > 0, rate < 1e9 {
            stream.sampleRate = Int(rate.rounded())
        }
        stream.channels = channels
        stream.bitsPerSample = bitDepth
        stream.codecID = codecID
        stream.uid = uid
        stream.language = languageBCP47 ?? language
        stream.name = name
        stream.isDefault = isDefault
        stream.isForced = isForced
        return stream
    }
}

extension MatroskaTrack {
    /// Parses every TrackEntry of a Tracks element.
    static func parseTracks(_ source: FileSource, element: EBMLElement, warnings: inout [MediaWarning]) throws -> [MatroskaTrack] {
        guard let data = try MatroskaLayout.data(of: element, in: source, maximum: maximumTracksSize, warnings: &warnings) else {
            return []
        }
        var tracks: [MatroskaTrack] = []
        for (child, entry) in EBMLChildren.list(data, warnings: &warnings) {
            guard child.id == MatroskaID.trackEntry else { continue }
            tracks.append(MatroskaTrack(parsing: entry, warnings: &warnings))
        }
        return tracks
    }

    init(parsing entry: ByteReader, warnings: inout [MediaWarning]) {
        self.init()
        for (field, value) in EBMLChildren.list(entry, warnings: &warnings) {
            switch field.id {
            case MatroskaID.trackNumber: number = EBMLChildren.unsigned(value) ?? 0
            case MatroskaID.trackUID: uid = EBMLChildren.unsigned(value)
            case MatroskaID.trackType: type = EBMLChildren.unsigned(value) ?? 0
            case MatroskaID.codecID: codecID = EBMLChildren.string(value)
            case MatroskaID.language: language = EBMLChildren.string(value)
            case MatroskaID.languageBCP47: languageBCP47 = EBMLChildren.string(value)
            case MatroskaID.name: name = EBMLChildren.string(value)
            case MatroskaID.flagEnabled: isEnabled = EBMLChildren.unsigned(value) != 0
            case MatroskaID.flagDefault: isDefault = EBMLChildren.unsigned(value) != 0
            case MatroskaID.flagForced: isForced = EBMLChildren.unsigned(value) ?? 0 != 0
            case MatroskaID.video:
                for (video, number) in EBMLChildren.list(value, warnings: &warnings) {
                    switch video.id {
                    case MatroskaID.pixelWidth: pixelWidth = EBMLChildren.unsigned(number).map { Int(clamping: $0) }
                    case MatroskaID.pixelHeight: pixelHeight = EBMLChildren.unsigned(number).map { Int(clamping: $0) }
                    default: break
                    }
                }
            case MatroskaID.audio:
                samplingFrequency = 8000 // the default (§5.1.4.1.29.1)
                channels = 1
                for (audio, number) in EBMLChildren.list(value, warnings: &warnings) {
                    switch audio.id {
                    case MatroskaID.samplingFrequency: samplingFrequency = EBMLChildren.float(number)
                    case MatroskaID.outputSamplingFrequency: outputSamplingFrequency = EBMLChildren.float(number)
                    case MatroskaID.channels: channels = EBMLChildren.unsigned(number).map { Int(clamping: $0) }
                    case MatroskaID.bitDepth: bitDepth = EBMLChildren.unsigned(number).map { Int(clamping: $0) }
                    default: break
                    }
                }
            default: break
            }
        }
    }
}
