#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the first sample description of a track says about its stream.
struct MP4StreamInfo: Sendable, Hashable {
    var format: FourCC
    var codec: String?
    var sampleRate: Int?
    var channels: Int?
    var bitsPerSample: Int?
    var bitrate: Int?
    var width: Int?
    var height: Int?
}

/// Parsing of the sample entries (`stsd` entries, ISO/IEC 14496-12 §8.5.2;
/// QTFF "Sample description atoms") and the codec configuration boxes
/// inside them.
extension MP4StreamInfo {
    // MARK: Audio

    /// An audio sample entry (ISO/IEC 14496-12 §12.2.3 AudioSampleEntry, QTFF
    /// "Sound sample descriptions" v0/v1/v2):
    ///
    /// ```
    /// u8[6] reserved, u16 data_reference_index
    /// u16 version, u16 revision, u32 vendor
    /// u16 channelcount, u16 samplesize, u16 compression id, u16 packet size
    /// u32 samplerate (16.16)
    /// v1: + u32 samples/packet, bytes/packet, bytes/frame, bytes/sample
    /// v2: + u32 struct size, f64 sample rate, u32 channels, u32 0x7F000000,
    ///       u32 bits/channel, u32 flags, u32 bytes/packet, u32 frames/packet
    /// child boxes (esds, alac, dOps, dfLa, dac3, wave, ...)
    /// ```
    init(parsingAudio entry: MP4BoxHeader, in source: FileSource, stsdVersion: UInt8, depth: Int) throws {
        var reader = try source.mp4Payload(of: entry, upTo: 64)
        try reader.skip(8)
        let version = try reader.readUInt16()
        try reader.skip(6)
        var info = MP4StreamInfo(format: entry.type)
        info.channels = Int(try reader.readUInt16())
        let sampleSize = Int(try reader.readUInt16())
        try reader.skip(4)
        info.sampleRate = Int(try reader.readUInt32() >> 16)
        var fieldsSize: Int64 = 28
        // QuickTime's v1/v2 layouts apply to stsd version 0; the ISO
        // AudioSampleEntryV1 (stsd version 1) keeps the v0 field layout.
        if stsdVersion == 0, version == 1 {
            fieldsSize = 44
        } else if stsdVersion == 0, version == 2 {
            fieldsSize = 64
            try reader.skip(4)
            let rate = Double(bitPattern: try reader.readUInt64())
            info.sampleRate = rate.isFinite && rate > 0 && rate < 1e7 ? Int(rate.rounded()) : nil
            info.channels = Int(try reader.readUInt32())
            try reader.skip(4)
            info.bitsPerSample = Int(try reader.readUInt32())
        }
        // The rest of the fixed fields is not needed: skipped on purpose.
        // The configuration boxes. Leniency on purpose: writers disagree on the
        // sound description version (and so on where the boxes start), so an
        // entry whose tail is not a clean box list just gives no configuration;
        // a configuration box that is found must parse.
        let children = (try? source.mp4Children(of: entry, skipping: fieldsSize, depth: depth + 1)) ?? []
        // QuickTime wraps the decoder configuration of mp4a/alac in a 'wave' atom.
        let wave = children.first { $0.type == "wave" }
        let nested = wave.flatMap { try? source.mp4Children(of: $0, depth: depth + 2) } ?? []
        func config(_ type: FourCC) -> MP4BoxHeader? {
            children.first { $0.type == type } ?? nested.first { $0.type == type }
        }
        switch entry.type {
        case "mp4a":
            if let esds = config("esds") { try info.applyElementaryStream(esds, in: source) }
            info.codec = info.codec ?? "AAC"
        case "alac":
            info.codec = "ALAC"
            // The 'alac' child is a FullBox holding the ALACSpecificConfig.
            if let alac = config("alac") { try info.applyALAC(alac, in: source) }
        case "ac-3":
            info.codec = "AC-3"
            if let dac3 = config("dac3") { try info.applyAC3(dac3, in: source) }
        case "ec-3":
            info.codec = "E-AC-3"
            if let dec3 = config("dec3") { try info.applyEnhancedAC3(dec3, in: source) }
        case "Opus":
            info.codec = "Opus"
        case "fLaC":
            info.codec = "FLAC"
            if let dfLa = config("dfLa") { try info.applyFLAC(dfLa, in: source) }
        case ".mp3", "ms\0U":
            info.codec = "MP3"
        // 3GPP TS 26.244 §6.5: AMR is mono; the entry's channelcount is a template value (2).
        case "samr":
            info.codec = "AMR"
            info.channels = 1
        case "sawb":
            info.codec = "AMR-WB"
            info.channels = 1
        case "ulaw": info.codec = "µ-law"
        case "alaw": info.codec = "A-law"
        case "ima4": info.codec = "IMA ADPCM"
        case "dtsc", "dtsh", "dtsl", "dtse": info.codec = "DTS"
        case "lpcm", "sowt", "twos", "in24", "in32", "fl32", "fl64", "raw ", "NONE", "ipcm", "fpcm":
            info.codec = "PCM"
            if info.bitsPerSample == nil {
                switch entry.type {
                case "in24": info.bitsPerSample = 24
                case "in32", "fl32": info.bitsPerSample = 32
                case "fl64": info.bitsPerSample = 64
                default: info.bitsPerSample = sampleSize > 0 ? sampleSize : nil
                }
            }
        default:
            info.codec = entry.type.description
        }
        if info.codec != "PCM", entry.type != "alac", entry.type != "fLaC" { info.bitsPerSample = nil }
        if info.sampleRate == 0 { info.sampleRate = nil }
        if info.channels == 0 { info.channels = nil }
        self = info
    }

    /// `esds` (ISO/IEC 14496-14 §3.1.2): FullBox then an ES_Descriptor.
    private mutating func applyElementaryStream(_ esds: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: esds)
        try reader.skip(4)
        guard let config = try MP4ElementaryStreamDescriptor(parsing: &reader) else { return }
        codec = config.codec
        if config.averageBitrate > 0 { bitrate = Int(config.averageBitrate) }
        if let rate = config.sampleRate { sampleRate = rate }
        if let channels = config.channels { self.channels = channels }
    }

    /// ALACSpecificConfig (Apple ALAC "magic cookie"), after 4 bytes of
    /// version/flags: u32 frame length, u8 compatible version, u8 bit depth,
    /// u8 pb, u8 mb, u8 kb, u8 channels, u16 max run, u32 max frame bytes,
    /// u32 average bit rate, u32 sample rate.
    private mutating func applyALAC(_ alac: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: alac, upTo: 28)
        guard reader.remaining >= 28 else { return }
        try reader.skip(9)
        bitsPerSample = Int(try reader.readUInt8())
        try reader.skip(3)
        channels = Int(try reader.readUInt8())
        try reader.skip(6)
        // Encoders often fill this with the uncompressed rate (ffmpeg: rate ×
        // channels × depth); MP4PropertiesParser prefers the file's media
        // bytes over its duration when there is media data to measure.
        let bitrate = try reader.readUInt32()
        if bitrate > 0 { self.bitrate = Int(bitrate) }
        let rate = try reader.readUInt32()
        if rate > 0 { sampleRate = Int(rate) }
    }

    /// Full-bandwidth channels of each AC-3 audio coding mode `acmod`
    /// (ETSI TS 102 366 Table 4.3: 1+1, 1/0, 2/0, 3/0, 2/1, 3/1, 2/2, 3/2).
    static let channelsOfAudioCodingMode = [2, 1, 2, 3, 3, 4, 4, 5]

    /// `dac3` (ETSI TS 102 366 Annex F.4): fscod 2, bsid 5, bsmod 3, acmod 3,
    /// lfeon 1, bit_rate_code 5 bits. The channels are acmod's plus the LFE
    /// (the sample entry's channelcount is a template value, 2).
    private mutating func applyAC3(_ dac3: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: dac3, upTo: 3)
        guard reader.remaining == 3 else { return }
        let bits = try reader.readUInt24()
        let acmod = Int(bits >> 11 & 0x7)
        let lfeon = Int(bits >> 10 & 0x1)
        channels = Self.channelsOfAudioCodingMode[acmod] + lfeon
        let code = Int(bits >> 5 & 0x1F)
        let kilobits = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]
        if code < kilobits.count { bitrate = kilobits[code] * 1000 }
    }

    /// Channels added by each bit of a `dec3` chan_loc, most significant
    /// first (TS 102 366 Table E.1.4, chanmap bits 5–13: Lc/Rc, Lrs/Rrs, Cs,
    /// Ts, Lsd/Rsd, Lw/Rw, Vhl/Vhr, Vhc, Lts/Rts).
    static let channelsOfLocation = [2, 2, 1, 1, 2, 2, 2, 1, 2]

    /// `dec3` (ETSI TS 102 366 Annex F.6): data_rate 13 bits (kbit/s),
    /// num_ind_sub 3, then per independent substream fscod 2, bsid 5,
    /// reserved 1, asvc 1, bsmod 3, acmod 3, lfeon 1, reserved 3,
    /// num_dep_sub 4, and chan_loc 9 (or reserved 1 without dependent
    /// substreams). The channels are those of the first independent
    /// substream (the main program) with its dependent substreams'.
    private mutating func applyEnhancedAC3(_ dec3: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: dec3, upTo: 6)
        var bits = BitReader(reader.readRemainingBytes())
        guard let rate = bits.read(13), bits.read(3) != nil else { return }
        if rate > 0 { bitrate = rate * 1000 }
        guard bits.read(2 + 5 + 1 + 1 + 3) != nil, let acmod = bits.read(3), let lfeon = bits.read(1),
            bits.read(3) != nil, let dependent = bits.read(4)
        else { return }
        var channels = Self.channelsOfAudioCodingMode[acmod] + lfeon
        if dependent > 0 {
            guard let location = bits.read(9) else { return }
            for (index, count) in Self.channelsOfLocation.enumerated() where location >> (8 - index) & 1 == 1 {
                channels += count
            }
        }
        self.channels = channels
    }

    /// `dfLa` (FLAC in ISO BMFF): FullBox, then FLAC metadata blocks, the first
    /// of which is STREAMINFO (sample rate 20 bits, channels − 1 3 bits,
    /// bits per sample − 1 5 bits, at bit 80 of the block).
    private mutating func applyFLAC(_ dfLa: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: dfLa, upTo: 4 + 4 + 18)
        guard reader.remaining >= 26 else { return }
        try reader.skip(4)
        let blockType = try reader.readUInt8() & 0x7F
        guard blockType == 0 else { return }
        try reader.skip(3 + 10)
        let packed = try reader.readUInt32()
        sampleRate = Int(packed >> 12)
        channels = Int(packed >> 9 & 0x7) + 1
        bitsPerSample = Int(packed >> 4 & 0x1F) + 1
    }

    // MARK: Video

    /// A visual sample entry (ISO/IEC 14496-12 §12.1.3): 8 bytes of SampleEntry,
    /// 16 bytes pre_defined/reserved, u16 width, u16 height.
    init(parsingVisual entry: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: entry, upTo: 28)
        self.init(format: entry.type)
        codec = Self.videoCodecs[entry.type] ?? entry.type.description
        if reader.remaining >= 28 {
            try reader.skip(24)
            width = Int(try reader.readUInt16())
            height = Int(try reader.readUInt16())
        }
    }

    /// Codec names of common visual sample entry types.
    static let videoCodecs: [FourCC: String] = [
        "avc1": "H.264", "avc2": "H.264", "avc3": "H.264", "avc4": "H.264",
        "hvc1": "HEVC", "hev1": "HEVC", "dvh1": "HEVC", "dvhe": "HEVC",
        "mp4v": "MPEG-4 Visual", "s263": "H.263", "h263": "H.263",
        "av01": "AV1", "vp08": "VP8", "vp09": "VP9",
        "apch": "ProRes", "apcn": "ProRes", "apcs": "ProRes", "apco": "ProRes", "ap4h": "ProRes", "ap4x": "ProRes",
        "jpeg": "Motion JPEG", "mjpa": "Motion JPEG", "mjpb": "Motion JPEG",
    ]
}
