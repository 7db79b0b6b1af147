/// Whether a FLAC stream ends before the samples its STREAMINFO counts:
/// the last two frame headers (RFC 9639 §9.1, each with a right CRC-8 and
/// following on from the one before) are found in the last ``tailBytes``, and
/// the last one's samples end short of the total. Reads those bytes only;
/// a cut inside the last frame is not seen.
enum FLACChecks {
    static let tailBytes = 64 * 1024

    /// One frame header: its offset, first sample and block size.
    struct FrameHeader {
        var offset: Int64
        var firstSample: UInt64
        var blockSize: UInt64
    }

    static func truncation(_ source: FileSource) throws -> Finding? {
        let layout = try FLACLayout(parsing: source)
        guard let info = layout.blocks.first, info.kind == .streamInfo, info.length == 34 else { return nil }
        let streamInfo = try source.getBytes(at: info.bodyOffset, count: 34)
        let maxBlockSize = UInt64(streamInfo[2]) << 8 | UInt64(streamInfo[3])
        let total =
            (UInt64(streamInfo[13] & 0x0F) << 32) | UInt64(streamInfo[14]) << 24 | UInt64(streamInfo[15]) << 16
            | UInt64(streamInfo[16]) << 8 | UInt64(streamInfo[17])
        guard total > 0, maxBlockSize > 0, source.size > layout.audioStart else { return nil }
        let start = max(layout.audioStart, source.size - Int64(tailBytes))
        let tail = try source.getBytes(at: start, count: Int(source.size - start))
        var headers: [FrameHeader] = []
        var index = tail.count - 2
        while index >= 0, headers.count < 2 {
            defer { index -= 1 }
            guard tail[index] == 0xFF, tail[index + 1] & 0xFE == 0xF8,
                var header = frameHeader(tail, at: index, fixedBlockSize: maxBlockSize)
            else { continue }
            header.offset = start + Int64(index)
            // The one before the last must end where the last starts.
            if let later = headers.first, header.firstSample + header.blockSize != later.firstSample { continue }
            headers.append(header)
        }
        guard headers.count == 2, let last = headers.first else { return nil }
        let end = last.firstSample + last.blockSize
        guard end < total else { return nil }
        return Finding(
            .audioTruncated, .error,
            "the FLAC stream ends after sample \(end), its STREAMINFO counts \(total): \(total - end) samples are missing",
            byteOffset: source.size, fixNote: "the missing audio can't be brought back")
    }

    /// The frame header at `index` when its fields are valid and its CRC-8 is right.
    static func frameHeader(_ bytes: [UInt8], at index: Int, fixedBlockSize: UInt64) -> FrameHeader? {
        guard index + 6 <= bytes.count else { return nil }
        let variable = bytes[index + 1] & 1 == 1
        let sizeCode = bytes[index + 2] >> 4, rateCode = bytes[index + 2] & 0x0F
        let channels = bytes[index + 3] >> 4, depth = (bytes[index + 3] >> 1) & 7
        guard sizeCode != 0, rateCode != 15, channels <= 10, depth != 3, bytes[index + 3] & 1 == 0 else { return nil }
        // The coded number (UTF-8-like, 1 to 7 bytes).
        var position = index + 4
        let lead = bytes[position]
        var length = 1
        var number: UInt64
        if lead & 0x80 == 0 {
            number = UInt64(lead)
        } else {
            var mask: UInt8 = 0x40
            length = 1
            while lead & mask != 0, length < 7 {
                length += 1
                mask >>= 1
            }
            guard length >= 2, lead & 0x40 != 0 else { return nil }
            number = UInt64(lead & (mask &- 1))
            guard position + length <= bytes.count else { return nil }
            for offset in 1..<length {
                let byte = bytes[position + offset]
                guard byte & 0xC0 == 0x80 else { return nil }
                number = number << 6 | UInt64(byte & 0x3F)
            }
        }
        position += length
        var blockSize: UInt64
        switch sizeCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << UInt64(sizeCode - 2)
        case 6:
            guard position < bytes.count else { return nil }
            blockSize = UInt64(bytes[position]) + 1
            position += 1
        case 7:
            guard position + 1 < bytes.count else { return nil }
            blockSize = (UInt64(bytes[position]) << 8 | UInt64(bytes[position + 1])) + 1
            position += 2
        default: blockSize = 256 << UInt64(sizeCode - 8)
        }
        switch rateCode {
        case 12: position += 1
        case 13, 14: position += 2
        default: break
        }
        guard position < bytes.count, crc8(bytes[index..<position]) == bytes[position] else { return nil }
        let first = variable ? number : number * fixedBlockSize
        return FrameHeader(offset: 0, firstSample: first, blockSize: blockSize)
    }

    /// CRC-8 with polynomial x^8 + x^2 + x + 1 (0x07), initial 0 (RFC 9639 §9.1.8).
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
