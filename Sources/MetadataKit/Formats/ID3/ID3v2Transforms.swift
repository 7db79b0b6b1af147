import CZlib

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The byte transformations ID3v2 applies to frames and tags:
/// unsynchronisation and zlib compression.
enum ID3v2Transforms {
    /// Largest decompressed frame this reader accepts.
    static let maximumDecompressedSize = 64 << 20
    /// Largest decompressed/compressed ratio accepted (zlib can't beat ~1032:1,
    /// real frames are far below 100:1).
    static let maximumRatio = 100
    /// Small frames may exceed the ratio up to this many bytes.
    static let ratioFloor = 64 << 10

    /// Undoes unsynchronisation: every `FF 00` becomes `FF`
    /// (ID3v2.4.0 structure §6.1, ID3v2.3.0 §5).
    static func removeUnsynchronisation<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var previousWasFF = false
        for byte in bytes {
            if previousWasFF && byte == 0x00 {
                previousWasFF = false
                continue
            }
            output.append(byte)
            previousWasFF = byte == 0xFF
        }
        return output
    }

    /// The largest output accepted for `compressedCount` input bytes.
    static func decompressionLimit(compressedCount: Int) -> Int {
        min(maximumDecompressedSize, max(ratioFloor, compressedCount.multipliedReportingOverflow(by: maximumRatio).partialValue))
    }

    /// Inflates a zlib stream (RFC 1950) of a compressed frame
    /// (ID3v2.3.0 §3.3.1 flag i, ID3v2.4.0 structure §4.1.2 flag k).
    ///
    /// `declaredSize` is the decompressed size the frame states (v2.3's 4 bytes,
    /// v2.4's data length indicator). It is checked against
    /// ``decompressionLimit(compressedCount:)`` before anything is allocated;
    /// when it is nil the output may grow up to that limit.
    /// - Throws: `sizeOutOfRange` for a declared size beyond the limit,
    ///   `malformed` for a stream that does not inflate.
    static func inflate(_ compressed: [UInt8], declaredSize: Int?, offset: Int64) throws -> [UInt8] {
        let limit = decompressionLimit(compressedCount: compressed.count)
        if let declaredSize, declaredSize < 0 || declaredSize > limit {
            throw MediaError(
                .sizeOutOfRange,
                "compressed frame declares \(declaredSize) decompressed bytes from \(compressed.count); the limit is \(limit)",
                offset: offset)
        }
        guard !compressed.isEmpty else {
            throw MediaError(.malformed, "compressed frame has no data", offset: offset)
        }
        var capacity = declaredSize ?? min(limit, max(1024, compressed.count * 4))
        while true {
            var output = [UInt8](repeating: 0, count: max(capacity, 1))
            var outputCount = uLongf(output.count)
            let status = output.withUnsafeMutableBufferPointer { out in
                compressed.withUnsafeBufferPointer { input in
                    uncompress(out.baseAddress, &outputCount, input.baseAddress, uLong(input.count))
                }
            }
            switch status {
            case Z_OK:
                output.removeSubrange(Int(outputCount)...)
                return output
            case Z_BUF_ERROR where capacity < limit:
                // Declared size too small (or unknown, or 0): grow, up to the limit.
                capacity = min(limit, max(1024, capacity * 2))
            case Z_BUF_ERROR:
                throw MediaError(.sizeOutOfRange, "compressed frame inflates past \(limit) bytes", offset: offset)
            default:
                throw MediaError(.malformed, "compressed frame is not a valid zlib stream (zlib status \(status))", offset: offset)
            }
        }
    }
}
