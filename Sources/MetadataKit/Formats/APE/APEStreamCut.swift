#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds a stream of the APE family that is shorter than its own structure
/// says: a file cut short (an interrupted copy or download). Its tags go
/// right after the stream, so a tag written there would be read by decoders
/// as the rest of the cut packet or frame (ffmpeg decodes an APE tag after a
/// cut Musepack SV8 stream as an audio packet: `APETAGEX` starts with `AP`,
/// the audio packet's key). A read warns; a save is refused
/// (``APEFamilyEditPlanner``).
///
/// - Musepack SV8 (Musepack SV8 specification): the stream ends with a
///   stream-end packet (`SE`, 3 bytes); the packets are walked only when the
///   stream does not end with one.
/// - WavPack: every block's `ckSize` (blocks walked), and the header's total
///   samples against those of the blocks.
/// - TrueAudio (TTA format description): the 22-byte header, a seek table
///   of one u32 size per frame of `rate × 256 / 245` samples and its CRC,
///   then the frames (only when both CRC-32s match).
/// - Monkey's Audio from 3.98 (MAC SDK `APE_DESCRIPTOR`): the descriptor,
///   header, seek table, WAV header, frame data (64-bit) and WAV trailer
///   byte counts.
///
/// - Musepack SV7 (as ffmpeg's demuxer reads it): a 24-byte header (the
///   frame count u32 LE at 4), then a bit stream in 32-bit little-endian
///   words, read from the high bit, starting 8 bits into the first word;
///   each frame is a 20-bit length and that many bits. The frames are
///   walked: the stream must hold the header's count.
/// - TAK (as ffmpeg's demuxer reads it): the LAST_FRAME metadata object
///   (type 7, 11 bytes: a 40-bit position after the metadata and a 24-bit
///   size, little-endian bit order) gives where the last frame ends.
/// - OptimFROG: chunks of a 4-character id and a u32 LE size (`OFR `,
///   `HEAD`, `COMP`…, `TAIL`); a chunk must fit.
///
/// Not detected: Musepack SV4–SV6, Monkey's Audio before 3.98, TAK without
/// a LAST_FRAME object, an OptimFROG file cut between chunks.
enum APEStreamCut {
    /// Most SV8 packets or WavPack blocks walked.
    static let maximumUnits = 1 << 22

    /// A `.truncated` warning at the cut when the stream in `start..<end` is
    /// cut; nil when it is whole, or when its structure can't tell.
    static func check(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaWarning? {
        guard end - start >= 4 else { return nil }
        let magic = try source.getBytes(at: start, count: 4)
        func starts(_ text: String) -> Bool { magic.starts(with: text.utf8) }
        let cut: String?
        if starts("MPCK") {
            cut = try musepackSV8(source, start, end)
        } else if starts("wvpk") {
            cut = try wavPack(source, start, end)
        } else if starts("TTA1") {
            cut = try trueAudio(source, start, end)
        } else if starts("MAC ") {
            cut = try monkeysAudio(source, start, end)
        } else if starts("MP+"), magic[3] & 0xF == 7 {
            cut = try musepackSV7(source, start, end)
        } else if starts("tBaK") {
            cut = try tak(source, start, end)
        } else if starts("OFR ") {
            cut = try optimFROG(source, start, end)
        } else {
            cut = nil
        }
        return cut.map { MediaWarning(.truncated, "the stream is cut at byte \(end): \($0)", offset: end) }
    }

    /// The save's refusal for a cut stream.
    static func refusal(_ warning: MediaWarning) -> MediaError {
        MediaError(
            .truncated,
            "\(warning.message); a tag written after it would be decoded as audio, so MetadataKit doesn't write this file",
            offset: warning.offset)
    }

    private static func musepackSV8(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        if end - start >= 7, try source.getBytes(at: end - 3, count: 3).elementsEqual("SE".utf8 + [3]) { return nil }
        var position = start + 4
        for _ in 0..<maximumUnits {
            guard end - position >= 3 else {
                return position == end
                    ? "the Musepack stream has no stream-end packet ('SE')"
                    : "a Musepack packet header at byte \(position) runs past it"
            }
            let head = try source.getAvailableBytes(at: position, count: 11)
            guard head[0..<2].allSatisfy({ (0x41...0x5A).contains($0) }) else { return nil } // damage, not a cut
            var reader = ByteReader(Array(head[2...]), fileOffset: position + 2)
            guard let size = try? MusepackHeader.variableLength(&reader), size >= Int64(2 + reader.position) else { return nil }
            let key = String(decoding: head[0..<2], as: UTF8.self)
            if size > end - position {
                return "its '\(key)' packet at byte \(position) declares \(size) bytes, \(end - position) remain"
            }
            if key == "SE" { return nil }
            position += size
        }
        return nil
    }

    private static func musepackSV7(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        guard end - start >= 28 else { return "the Musepack SV7 header runs past it" }
        let frames = le32(try source.getBytes(at: start + 4, count: 4)[...])
        guard frames > 0, frames <= maximumUnits else { return nil }
        var position = start + 24
        var used: UInt64 = 8 // bits of the word at `position` before the frame
        for index in 1...Int(frames) {
            let needed: Int64 = used <= 12 ? 4 : 8
            guard end - position >= needed else {
                return "the length of its frame \(index) of \(frames) at byte \(position) runs past it"
            }
            let bytes = try source.getBytes(at: position, count: Int(needed))
            var words = UInt64(le32(bytes[0..<4]))
            if needed == 8 { words = words << 32 | UInt64(le32(bytes[4..<8])) }
            let length = words >> (UInt64(needed * 8) - 20 - used) & 0xFFFFF
            let bits = used + 20 + length
            let extent = Int64((bits + 31) / 32 * 4)
            guard extent <= end - position else {
                return "its frame \(index) of \(frames) at byte \(position) needs \(extent) bytes, \(end - position) remain"
            }
            used = bits & 31
            position += extent - (used != 0 ? 4 : 0)
        }
        return nil
    }

    private static func tak(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        var position = start + 4
        var last: Int64?
        for _ in 0..<TAKStreamInfo.maximumObjects {
            guard end - position >= 4 else { return "the TAK metadata runs past it" }
            let head = try source.getBytes(at: position, count: 4)
            let size = Int64(le32([head[1], head[2], head[3], 0][...]))
            position += 4
            if head[0] & 0x7F == 0 {
                guard let last else { return nil }
                let expected = position + last
                return expected > end ? "its last frame (by the LAST_FRAME metadata object) ends at byte \(expected)" : nil
            }
            guard size <= end - position else {
                return "a TAK metadata object at byte \(position - 4) declares \(size) bytes, \(end - position) remain"
            }
            if head[0] & 0x7F == 7, size == 11 {
                let field = try source.getBytes(at: position, count: 8)
                let value = field.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                last = Int64(value & (1 << 40 - 1)) + Int64(value >> 40)
            }
            position += size
        }
        return nil
    }

    private static func optimFROG(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        var position = start
        for _ in 0..<maximumUnits {
            guard end - position >= 8 else {
                let rest = try source.getBytes(at: position, count: Int(min(end - position, 4)))
                return !rest.isEmpty && rest.allSatisfy({ (0x20...0x7E).contains($0) })
                    ? "a chunk header at byte \(position) runs past it" : nil
            }
            let head = try source.getBytes(at: position, count: 8)
            guard head[0..<4].allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil } // not a chunk: can't tell
            let size = Int64(le32(head[4..<8]))
            if size > end - position - 8 {
                let id = String(decoding: head[0..<4], as: UTF8.self)
                return "its '\(id)' chunk at byte \(position) declares \(size + 8) bytes, \(end - position) remain"
            }
            position += 8 + size
        }
        return nil
    }

    private static func le32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func wavPack(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        let first = try WavPackBlockHeader(parsing: source, at: start, end: end, allowingCut: true)
        var position = start
        var samples: UInt64 = 0
        for _ in 0..<maximumUnits {
            guard end - position >= Int64(WavPackBlockHeader.length) else {
                if position != end { return "a WavPack block header at byte \(position) runs past it" }
                break
            }
            guard let block = try? WavPackBlockHeader(parsing: source, at: position, end: end, allowingCut: true) else {
                return nil // not a block: damage or junk, not a cut
            }
            if block.length > end - position {
                return "its WavPack block at byte \(position) declares \(block.length) bytes, \(end - position) remain"
            }
            if block.flags & WavPackBlockHeader.initialBlockFlag != 0 { samples += UInt64(block.blockSamples) }
            position += block.length
        }
        if let total = first.totalSamples, first.blockIndex == 0, samples < total {
            return "its WavPack blocks hold \(samples) samples of the \(total) the header declares"
        }
        return nil
    }

    private static func trueAudio(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        guard end - start >= 22 else { return "the TTA header runs past it" }
        let header = try source.getBytes(at: start, count: 22)
        // Numbers only from a header and a seek table whose CRCs match (damage is no cut).
        guard EBMLCRC32.checksum(header[0..<18]) == le32(header[18..<22]) else { return nil }
        let rate = Int64(le32(header[10..<14]))
        let samples = Int64(le32(header[14..<18]))
        let frameLength = rate * 256 / 245
        guard frameLength > 0, samples > 0 else { return nil }
        let frames = (samples + frameLength - 1) / frameLength
        let table = start + 22
        guard frames * 4 + 4 <= end - table else {
            return "the TTA seek table of \(frames) frames (\(frames * 4 + 4) bytes) runs past it"
        }
        let sizes = try source.getBytes(at: table, count: Int(frames * 4 + 4))
        guard EBMLCRC32.checksum(sizes.dropLast(4)) == le32(sizes.suffix(4)) else { return nil }
        var expected = table + frames * 4 + 4
        for index in 0..<Int(frames) { expected &+= Int64(le32(sizes[(index * 4)..<(index * 4 + 4)])) }
        guard expected > end else { return nil }
        return "the TTA seek table's \(frames) frames end at byte \(expected)"
    }

    private static func monkeysAudio(_ source: FileSource, _ start: Int64, _ end: Int64) throws -> String? {
        guard end - start >= 52 else { return nil }
        var reader = try source.reader(at: start, count: 52)
        try reader.skip(4)
        guard try reader.readUInt16(.little) >= 3980 else { return nil }
        try reader.skip(2)
        var expected = start
        for _ in 0..<4 { expected += Int64(try reader.readUInt32(.little)) } // descriptor, header, seek table, WAV header
        let low = Int64(try reader.readUInt32(.little))
        let high = Int64(try reader.readUInt32(.little))
        guard high < 1 << 20 else { return nil }
        expected += low + high << 32 + Int64(try reader.readUInt32(.little)) // frame data, WAV trailer
        guard expected > end else { return nil }
        return "the Monkey's Audio descriptor's parts end at byte \(expected)"
    }
}
