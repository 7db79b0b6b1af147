#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// STREAMINFO (RFC 9639 §8.2).
struct FLACStreamInfo: Sendable, Hashable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// 0 when unknown.
    var totalSamples: UInt64

    /// Properties; the bit rate comes from `audioBytes` over the duration.
    func properties(audioBytes: Int64?) -> MediaProperties {
        var properties = MediaProperties()
        properties.codec = "FLAC"
        properties.sampleRate = sampleRate > 0 ? sampleRate : nil
        properties.channels = channels
        properties.bitsPerSample = bitsPerSample
        if sampleRate > 0, totalSamples > 0 {
            let duration = Double(totalSamples) / Double(sampleRate)
            properties.duration = duration
            if let audioBytes, audioBytes > 0 { properties.bitrate = Int((Double(audioBytes) * 8 / duration).rounded()) }
        }
        return properties
    }
}

extension FLACStreamInfo {
    /// Parses the 34-byte body.
    init(parsing reader: inout ByteReader) throws {
        try reader.skip(10) // block sizes (2 × u16), frame sizes (2 × u24)
        let packed = try reader.readUInt64()
        // sample rate 20 bits, channels − 1 3 bits, bits per sample − 1 5 bits, total samples 36 bits
        let rate = Int(packed >> 44)
        let channels = Int(packed >> 41 & 0x7) + 1
        let bits = Int(packed >> 36 & 0x1F) + 1
        try reader.skip(16) // MD5 of the decoded audio
        self.init(sampleRate: rate, channels: channels, bitsPerSample: bits, totalSamples: packed & 0xF_FFFF_FFFF)
    }
}
