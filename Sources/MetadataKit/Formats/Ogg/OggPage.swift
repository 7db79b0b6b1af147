#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header of one Ogg page (RFC 3533 §6):
///
///     capture_pattern          "OggS"
///     stream_structure_version 0
///     header_type_flag         0x01 continued packet, 0x02 first page (BOS), 0x04 last page (EOS)
///     granule_position         64 bits, little-endian (−1: no packet ends here)
///     bitstream_serial_number  32 bits LE
///     page_sequence_number     32 bits LE
///     CRC_checksum             32 bits LE (see ``OggCRC``)
///     number_page_segments     8 bits
///     segment_table            that many lacing values
///
/// The body that follows is the sum of the lacing values long. A lacing value
/// below 255 ends a packet; 255 means the packet goes on (§5, "lacing").
struct OggPage: Sendable, Hashable {
    var offset: Int64
    var headerType: UInt8
    var granulePosition: UInt64
    var serial: UInt32
    var sequence: UInt32
    var checksum: UInt32
    var segments: [UInt8]

    static let fixedHeaderLength = 27
    /// Flag bits of ``headerType``.
    static let continued: UInt8 = 0x01, beginning: UInt8 = 0x02, ending: UInt8 = 0x04
    /// The granule position of a page on which no packet ends.
    static let noGranule = UInt64.max

    var headerLength: Int { Self.fixedHeaderLength + segments.count }
    var bodyLength: Int { segments.reduce(0) { $0 + Int($1) } }
    var bodyOffset: Int64 { offset + Int64(headerLength) }
    var end: Int64 { bodyOffset + Int64(bodyLength) }
    var length: Int { headerLength + bodyLength }
    var isContinued: Bool { headerType & Self.continued != 0 }
    var isBeginning: Bool { headerType & Self.beginning != 0 }
    /// Whether the page's last packet goes on to the next page.
    var endsInsidePacket: Bool { segments.last == 255 }

    /// Parses the page header at `offset`; nil when there is no "OggS" there.
    /// Throws when the header is cut short, has another version, or its body
    /// runs past the end of the file.
    static func read(from source: FileSource, at offset: Int64) throws -> OggPage? {
        let fixed = try source.getAvailableBytes(at: offset, count: fixedHeaderLength)
        guard fixed.starts(with: Array("OggS".utf8)) else { return nil }
        guard fixed.count == fixedHeaderLength else {
            throw MediaError(.truncated, "Ogg page header cut short by the end of the file", offset: offset)
        }
        var reader = ByteReader(fixed, fileOffset: offset)
        try reader.skip(4)
        guard try reader.readUInt8() == 0 else {
            throw MediaError(.unsupportedFeature, "Ogg stream structure version is not 0", offset: offset + 4)
        }
        let type = try reader.readUInt8()
        let granule = try reader.readUInt64(.little)
        let serial = try reader.readUInt32(.little)
        let sequence = try reader.readUInt32(.little)
        let checksum = try reader.readUInt32(.little)
        let count = Int(try reader.readUInt8())
        let segments = try source.getBytes(at: offset + Int64(fixedHeaderLength), count: count)
        let page = OggPage(
            offset: offset, headerType: type, granulePosition: granule, serial: serial, sequence: sequence,
            checksum: checksum, segments: segments)
        guard page.end <= source.size else {
            throw MediaError(.truncated, "Ogg page body of \(page.bodyLength) bytes runs past the end of the file", offset: offset)
        }
        return page
    }

    /// Parses a page header from bytes in memory (for pages found by a scan).
    static func parse(_ bytes: ArraySlice<UInt8>, offset: Int64) -> OggPage? {
        guard bytes.count >= fixedHeaderLength, bytes.starts(with: Array("OggS".utf8)), bytes[bytes.startIndex + 4] == 0 else { return nil }
        var reader = ByteReader(Array(bytes), fileOffset: offset)
        guard (try? reader.skip(5)) != nil, let type = try? reader.readUInt8(), let granule = try? reader.readUInt64(.little),
            let serial = try? reader.readUInt32(.little), let sequence = try? reader.readUInt32(.little),
            let checksum = try? reader.readUInt32(.little), let count = try? reader.readUInt8(),
            let segments = try? reader.readBytes(Int(count))
        else { return nil }
        return OggPage(
            offset: offset, headerType: type, granulePosition: granule, serial: serial, sequence: sequence,
            checksum: checksum, segments: segments)
    }

    /// The header bytes with this page's fields and `checksum` (0 while computing it).
    func headerBytes(checksum: UInt32) -> [UInt8] {
        var writer = ByteWriter(capacity: headerLength)
        writer.write(Array("OggS".utf8))
        writer.write(UInt8(0))
        writer.write(headerType)
        writer.write(granulePosition, .little)
        writer.write(serial, .little)
        writer.write(sequence, .little)
        writer.write(checksum, .little)
        writer.write(UInt8(segments.count))
        writer.write(segments)
        return writer.bytes
    }

    /// The complete page (header with a fresh CRC, then `body`).
    func serialized(body: [UInt8]) -> [UInt8] {
        var bytes = headerBytes(checksum: 0)
        let crc = OggCRC.update(OggCRC.update(0, bytes), body)
        bytes.replaceSubrange(22..<26, with: [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        return bytes + body
    }

    /// Lays `packets` out on pages of stream `serial`, numbered from
    /// `firstSequence`, with at most `capacities[i]` lacing values on page `i`
    /// (255, the most a page holds, past the list). The first page gets
    /// `firstFlags` (e.g. BOS). Pages on which a packet ends get granule
    /// position `granule`, the others −1 (RFC 3533 §6).
    static func paginate(
        _ packets: [[UInt8]], serial: UInt32, firstSequence: UInt32, firstFlags: UInt8 = 0,
        granule: UInt64 = 0, capacities: [Int] = []
    ) -> [[UInt8]] {
        var pages: [[UInt8]] = []
        var segments: [UInt8] = [], body: [UInt8] = []
        var continued = false, packetEnded = false
        func flush() {
            let flags = (pages.isEmpty ? firstFlags : 0) | (continued ? Self.continued : 0)
            let page = OggPage(
                offset: 0, headerType: flags, granulePosition: packetEnded ? granule : noGranule, serial: serial,
                sequence: firstSequence &+ UInt32(pages.count), checksum: 0, segments: segments)
            pages.append(page.serialized(body: body))
            continued = segments.last == 255
            segments = []
            body = []
            packetEnded = false
        }
        for packet in packets {
            var laces = [UInt8](repeating: 255, count: packet.count / 255)
            laces.append(UInt8(packet.count % 255))
            var position = 0
            for (index, lace) in laces.enumerated() {
                let capacity = pages.count < capacities.count ? min(255, max(1, capacities[pages.count])) : 255
                if segments.count >= capacity { flush() }
                segments.append(lace)
                body += packet[position..<position + Int(lace)]
                position += Int(lace)
                if index == laces.count - 1 { packetEnded = true }
            }
        }
        if !segments.isEmpty { flush() }
        return pages
    }
}

/// The Ogg page checksum (RFC 3533 §6, "CRC_checksum"): CRC-32 with the
/// generator polynomial 0x04c11db7, initial value 0, no bit reflection and
/// no final XOR — not the zlib CRC-32. Computed over the whole page with the
/// checksum field set to zero.
///
/// Eight bytes are folded in per step ("slicing by 8"): table `k` holds the
/// remainder of a byte followed by `k` zero bytes, so the eight lookups of a
/// step replace eight dependent byte steps. Reads check the CRC of every
/// header page they take, which makes this the bulk of an Ogg read's work.
enum OggCRC {
    /// Eight tables of 256 entries, one after another: entry `k * 256 + i`
    /// is the CRC register after byte `i` and then `k` zero bytes.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
            tables[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = previous << 8 ^ tables[Int(previous >> 24)]
            }
        }
        return tables
    }()

    static func update<Bytes: Sequence>(_ crc: UInt32, _ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ update(crc, UnsafeRawBufferPointer($0)) }) { return result }
        return update(crc, Array(bytes))
    }

    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc
        tables.withUnsafeBufferPointer { table in
            let count = bytes.count
            var index = 0
            while index + 8 <= count {
                let high = crc ^ UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                let low = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self))
                crc =
                    table[7 * 256 + Int(high >> 24)] ^ table[6 * 256 + Int(high >> 16 & 0xFF)]
                    ^ table[5 * 256 + Int(high >> 8 & 0xFF)] ^ table[4 * 256 + Int(high & 0xFF)]
                    ^ table[3 * 256 + Int(low >> 24)] ^ table[2 * 256 + Int(low >> 16 & 0xFF)]
                    ^ table[1 * 256 + Int(low >> 8 & 0xFF)] ^ table[Int(low & 0xFF)]
                index += 8
            }
            while index < count {
                crc = crc << 8 ^ table[Int(UInt8(crc >> 24) ^ bytes[index])]
                index += 1
            }
        }
        return crc
    }

    /// The checksum of `page`, whose body is `body`, as it should be.
    static func checksum(of page: OggPage, body: [UInt8]) -> UInt32 {
        update(update(0, page.headerBytes(checksum: 0)), body)
    }

    /// The checksum of the page at `page.offset` in `source`, as it should be.
    static func checksum(of page: OggPage, in source: FileSource) throws -> UInt32 {
        checksum(of: page, body: try source.getBytes(at: page.bodyOffset, count: page.bodyLength))
    }
}
