#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The STREAMINFO metadata object of a TAK stream, as mutagen reads it.
///
/// After `tBaK`, metadata objects follow: a type byte (low 7 bits; 0 ends the
/// list, 1 is STREAMINFO) and a 3-byte little-endian size (the data and a
/// 3-byte CRC). STREAMINFO's first 80 bits, read as a little-endian bit
/// field from bit 0: codec (6), profile (4), frame duration (4), sample count
/// (35), data type (3), sample rate − 6000 (18), bits per sample − 8 (5),
/// channels − 1 (4), extension flag (1).
enum TAKStreamInfo {
    /// Most metadata objects looked at before STREAMINFO.
    static let maximumObjects = 64

    static func properties(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties {
        guard end - start >= 4, try source.getBytes(at: start, count: 4).elementsEqual("tBaK".utf8) else {
            throw MediaError(.unsupportedFormat, "no 'tBaK' marker", offset: start)
        }
        var position = start + 4
        for _ in 0..<maximumObjects {
            guard end - position >= 4 else { break }
            let head = try source.getBytes(at: position, count: 4)
            let type = head[0] & 0x7F
            let size = Int64(head[1]) | Int64(head[2]) << 8 | Int64(head[3]) << 16
            guard type != 0 else { break }
            guard size <= end - position - 4 else {
                throw MediaError(.sizeOutOfRange, "a TAK metadata object declares \(size) bytes, which don't fit", offset: position + 1)
            }
            if type == 1 {
                guard size >= 10 else {
                    throw MediaError(.malformed, "the TAK STREAMINFO object is \(size) bytes, less than 10", offset: position + 1)
                }
                let bytes = try source.getBytes(at: position + 4, count: 10)
                let low = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let high = UInt64(bytes[8]) | UInt64(bytes[9]) << 8
                func bits(_ from: Int, _ count: Int) -> UInt64 {
                    let wide = from >= 64 ? high >> (from - 64) : (low >> from) | (from + count > 64 ? high << (64 - from) : 0)
                    return wide & (1 << count - 1)
                }
                return APEFamilyParser.properties(
                    codec: "TAK", sampleRate: Int(bits(52, 18)) + 6000, channels: Int(bits(75, 4)) + 1,
                    bitsPerSample: Int(bits(70, 5)) + 8, samples: bits(14, 35), streamBytes: end - start)
            }
            position += 4 + size
        }
        throw MediaError(.malformed, "no TAK STREAMINFO object", offset: start + 4)
    }
}
