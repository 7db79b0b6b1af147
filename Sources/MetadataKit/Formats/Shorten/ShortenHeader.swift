#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The properties of a Shorten stream (Tony Robinson's shorten 2.x, as
/// ffmpeg reads it).
///
/// The stream is "ajkg", a version byte (1–3 here), then a big-endian bit
/// stream of Rice codes: `uvar(n)` is a value's high part in unary (that
/// many 0 bits, then a 1) followed by its low `n` bits; `ulong` is `uvar(2)`
/// giving `n`, then `uvar(n)`. The header is six `ulong`s — file type,
/// channels, block size, maxnlpc, nmean, nskip — and nskip raw bytes. The
/// first command (`uvar(2)`) is VERBATIM (9): a `uvar(5)` length, then that
/// many bytes as `uvar(8)` each, holding the original file's header (WAV or
/// AIFF), from which the rate, bits per sample and length come.
enum ShortenHeader {
    /// Longest embedded header read (ffmpeg's decoder allows much less).
    static let maximumVerbatim = 1 << 16
    /// Bytes of the stream read for the header: every embedded byte takes at
    /// least 9 bits.
    static let maximumHeaderBytes = 5 + 64 + maximumVerbatim * 2

    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        let bytes = try source.getAvailableBytes(at: start, count: Int(min(end - start, Int64(maximumHeaderBytes))))
        guard bytes.count >= 5, bytes.starts(with: "ajkg".utf8) else {
            throw MediaError(.truncated, "the Shorten header runs past the end of the stream", offset: start)
        }
        var properties = MediaProperties()
        properties.codec = "Shorten"
        let version = bytes[4]
        guard (1...3).contains(version) else {
            throw MediaError(.unsupportedFeature, "Shorten version \(version) is not read", offset: start + 4)
        }
        var rice = RiceReader(Array(bytes[5...]))
        func fail(_ what: String) -> APEFamilyParser.PartialHeader {
            APEFamilyParser.PartialHeader(
                properties: properties,
                warning: MediaWarning(
                    .malformed, "the Shorten header's \(what) can't be read", offset: start + 5 + Int64(rice.position / 8)))
        }
        var fields: [UInt64] = []
        for _ in 0..<6 {
            guard let value = rice.ulong() else { throw fail("fields") }
            fields.append(value)
        }
        if (1...65535).contains(fields[1]) { properties.channels = Int(fields[1]) }
        guard fields[5] <= 1 << 16, rice.skip(Int(fields[5]) * 8) else { throw fail("skipped bytes") }
        guard rice.uvar(2) == 9, let length = rice.uvar(5), length <= maximumVerbatim else {
            throw fail("embedded WAV or AIFF header (the first command is not VERBATIM)")
        }
        var embedded: [UInt8] = []
        for _ in 0..<length {
            guard let byte = rice.uvar(8), byte <= 0xFF else { throw fail("embedded WAV or AIFF header") }
            embedded.append(UInt8(byte))
        }
        guard let format = EmbeddedAudioHeader(embedded) else {
            throw APEFamilyParser.PartialHeader(
                properties: properties,
                warning: MediaWarning(.malformed, "the Shorten stream's embedded header is neither WAV nor AIFF", offset: start + 5))
        }
        properties.sampleRate = format.sampleRate
        properties.channels = format.channels
        properties.bitsPerSample = format.bitsPerSample
        if let frames = format.frames, format.sampleRate > 0 {
            let duration = Double(frames) / Double(format.sampleRate)
            properties.duration = duration
            if duration > 0 { properties.bitrate = Int((Double(end - start) * 8 / duration).rounded()) }
        }
        return properties
    }
}

/// Rice codes read most significant bit first, each bounded.
struct RiceReader {
    private var bits: BitReader
    var position: Int { bits.position }

    init(_ bytes: [UInt8]) { bits = BitReader(bytes) }

    /// A value's high part in unary (zeros ended by a one), then `count` low bits.
    mutating func uvar(_ count: Int) -> UInt64? {
        var high: UInt64 = 0
        while true {
            guard let bit = bits.read(1) else { return nil }
            if bit == 1 { break }
            high += 1
            guard high < 1 << 20 else { return nil }
        }
        guard let low = bits.read(count) else { return nil }
        return high << UInt64(count) | UInt64(low)
    }

    /// `uvar(2)` giving a bit count (at most 32), then `uvar` of that count.
    mutating func ulong() -> UInt64? {
        guard let count = uvar(2), count <= 32 else { return nil }
        return uvar(Int(count))
    }

    mutating func skip(_ count: Int) -> Bool { bits.skip(count) }
}
