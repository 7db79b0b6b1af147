#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The identification header of a Theora stream (Theora I specification
/// §6.2), the first packet of its logical stream, 42 bytes, big-endian:
///
///     0x80 "theora"  VMAJ 8  VMIN 8  VREV 8  FMBW 16  FMBH 16
///     PICW 24  PICH 24  PICX 8  PICY 8  FRN 32  FRD 32  PARN 24  PARD 24
///     CS 8  NOMBR 24  QUAL 6  KFGSHIFT 5  PF 2  reserved 3
///
/// The comment header (`0x81 "theora"`, §6.3) is a Vorbis comment without the
/// framing bit; the setup header (`0x82 "theora"`) ends the header packets.
/// A granule position is the last keyframe's number shifted left by
/// KFGSHIFT bits, or'd with the frames since it (§A.2.3); from version 3.2.1
/// on it counts frames from 1, so their sum is the number of frames decoded
/// (mutagen's `OggTheoraInfo` reads the length the same way).
struct TheoraIdentification: Sendable, Hashable {
    static let length = 42
    static let magic: [UInt8] = [0x80] + Array("theora".utf8)

    /// Picture size in pixels (PICW × PICH, what players and ffprobe show).
    var width: Int
    var height: Int
    var frameRateNumerator: UInt32
    var frameRateDenominator: UInt32
    /// Nominal bit rate in bits per second; 0 when not given.
    var nominalBitrate: Int
    /// KFGSHIFT: the bits of a granule position that count frames since the last keyframe.
    var keyframeShift: Int

    /// Frames per second; nil when the header gives a zero numerator or denominator.
    var frameRate: Double? {
        frameRateNumerator > 0 && frameRateDenominator > 0 ? Double(frameRateNumerator) / Double(frameRateDenominator) : nil
    }

    /// Seconds up to the frame of `granule`; nil without a frame rate or for
    /// a granule that can't be a count of frames.
    func duration(granule: UInt64) -> Double? {
        guard let rate = frameRate, granule < 1 << 62 else { return nil }
        let keyframe = keyframeShift < 64 ? granule >> UInt64(keyframeShift) : 0
        let delta = keyframeShift < 64 ? granule & ((1 << UInt64(keyframeShift)) - 1) : granule
        return Double(keyframe + delta) / rate
    }
}

extension TheoraIdentification {
    /// Reads the header at the start of `packet`; throws `unsupportedFormat`
    /// without the `0x80 "theora"` marker, `truncated` when it is cut short,
    /// `unsupportedFeature` for a major version other than 3.
    init(parsing packet: [UInt8]) throws {
        guard packet.starts(with: Self.magic) else {
            throw MediaError(.unsupportedFormat, "no Theora identification header", offset: 0)
        }
        var reader = ByteReader(packet)
        guard packet.count >= Self.length else {
            throw MediaError(.truncated, "the Theora identification header is \(packet.count) bytes, not \(Self.length)", offset: 0)
        }
        try reader.skip(7)
        let major = try reader.readUInt8()
        guard major == 3 else {
            throw MediaError(.unsupportedFeature, "Theora bitstream version \(major)", offset: 7)
        }
        try reader.skip(2 + 4) // VMIN, VREV, FMBW, FMBH
        width = Int(try reader.readUInt24())
        height = Int(try reader.readUInt24())
        try reader.skip(2) // PICX, PICY
        frameRateNumerator = try reader.readUInt32()
        frameRateDenominator = try reader.readUInt32()
        try reader.skip(6 + 1) // PARN, PARD, CS
        nominalBitrate = Int(try reader.readUInt24())
        let bits = try reader.readUInt16()
        keyframeShift = Int(bits >> 5 & 0x1F)
    }
}

/// Theora in Ogg files: properties of a Theora stream read as the file's main
/// stream (a leading one, or the only kind of stream, ``OggHeaderScan``), and
/// the video of a file whose tags come from an audio stream.
enum OggTheora {
    /// Properties of a file whose main stream is Theora: picture size and
    /// nominal bit rate (the duration comes from the last granule position).
    static func properties(idHeader: [UInt8]) throws -> MediaProperties {
        let header = try TheoraIdentification(parsing: idHeader)
        var properties = MediaProperties()
        properties.codec = OggCodec.theora.rawValue
        properties.width = header.width
        properties.height = header.height
        if header.nominalBitrate > 0 { properties.bitrate = header.nominalBitrate }
        return properties
    }

    /// Adds the picture size of a Theora stream beside the audio stream that
    /// gives the tags (both streams are listed by ``OggLogicalStreams``). A
    /// header that doesn't parse adds nothing.
    static func addVideo(_ video: OggVideoHeader, to properties: inout MediaProperties) {
        guard let header = try? TheoraIdentification(parsing: video.packet) else { return }
        properties.width = header.width
        properties.height = header.height
    }
}

/// The first packet of a video stream seen while looking for the audio
/// stream (``OggHeaderScan/video``).
struct OggVideoHeader: Sendable, Hashable {
    var serial: UInt32
    var packet: [UInt8]
}
