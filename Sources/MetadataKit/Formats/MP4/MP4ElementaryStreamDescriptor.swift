#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parts of an MPEG-4 ES_Descriptor (ISO/IEC 14496-1 §7.2.6.5) that name
/// the codec and its bit rate: the DecoderConfigDescriptor (§7.2.6.6) and,
/// for AAC, the AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1).
///
/// Descriptors are `u8 tag`, a length of 1–4 bytes of 7 bits each (top bit:
/// another byte follows), then the body.
struct MP4ElementaryStreamDescriptor {
    var objectTypeIndication: UInt8
    var averageBitrate: UInt32
    var maximumBitrate: UInt32
    /// From the AudioSpecificConfig; for HE-AAC the output (SBR) rate.
    var sampleRate: Int?
    var channels: Int?
    var audioObjectType: Int?

    static let esDescriptorTag: UInt8 = 0x03
    static let decoderConfigTag: UInt8 = 0x04
    static let decoderSpecificInfoTag: UInt8 = 0x05

    /// The codec named by the object type indication (MP4RA object types).
    var codec: String? {
        switch objectTypeIndication {
        case 0x40:
            // MPEG-4 audio: audio object types 32–34 are MPEG layers 1–3.
            if let type = audioObjectType, (32...34).contains(type) { return "MP3" }
            return "AAC"
        case 0x66, 0x67, 0x68: return "AAC"
        case 0x69, 0x6B: return "MP3"
        case 0xA5: return "AC-3"
        case 0xA6: return "E-AC-3"
        case 0xA9, 0xAA, 0xAB, 0xAC: return "DTS"
        case 0xAD: return "Opus"
        case 0xDD: return "Vorbis"
        default: return nil
        }
    }

    /// Parses the ES_Descriptor at `reader`; nil when the bytes hold no
    /// DecoderConfigDescriptor.
    init?(parsing reader: inout ByteReader) throws {
        guard try Self.readTag(&reader) == Self.esDescriptorTag else { return nil }
        var es = try Self.readBody(&reader)
        try es.skip(2) // ES_ID
        let flags = try es.readUInt8()
        if flags & 0x80 != 0 { try es.skip(2) } // dependsOn_ES_ID
        if flags & 0x40 != 0 { try es.skip(Int(try es.readUInt8())) } // URL
        if flags & 0x20 != 0 { try es.skip(2) } // OCR_ES_Id
        // Find the DecoderConfigDescriptor among the sub-descriptors.
        while !es.isAtEnd {
            let tag = try Self.readTag(&es)
            var body = try Self.readBody(&es)
            guard tag == Self.decoderConfigTag else { continue }
            objectTypeIndication = try body.readUInt8()
            try body.skip(1 + 3) // streamType etc., bufferSizeDB
            maximumBitrate = try body.readUInt32()
            averageBitrate = try body.readUInt32()
            while !body.isAtEnd {
                let innerTag = try Self.readTag(&body)
                var info = try Self.readBody(&body)
                if innerTag == Self.decoderSpecificInfoTag, objectTypeIndication == 0x40 {
                    applyAudioSpecificConfig(&info)
                }
            }
            return
        }
        return nil
    }

    private static func readTag(_ reader: inout ByteReader) throws -> UInt8 {
        try reader.readUInt8()
    }

    /// The body of a descriptor after its tag: a 1–4 byte expandable length,
    /// then that many bytes (which must fit in the enclosing descriptor).
    private static func readBody(_ reader: inout ByteReader) throws -> ByteReader {
        var length = 0
        for index in 0..<4 {
            let byte = try reader.readUInt8()
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            if index == 3 { throw reader.error(.malformed, "descriptor length longer than 4 bytes") }
        }
        guard length <= reader.remaining else {
            throw reader.error(.sizeOutOfRange, "descriptor of \(length) bytes runs past its container (\(reader.remaining) left)")
        }
        return try reader.readReader(count: length)
    }

    /// AudioSpecificConfig: audio object type (5 bits, 31 escapes to 6 more),
    /// sampling frequency index (4 bits, 15 escapes to a 24-bit rate), channel
    /// configuration (4 bits); for explicit SBR (types 5 and 29) an extension
    /// sampling frequency follows, which is the output rate.
    private mutating func applyAudioSpecificConfig(_ reader: inout ByteReader) {
        var bits = BitReader(reader.readRemainingBytes())
        func objectType() -> Int? {
            guard let type = bits.read(5) else { return nil }
            return type == 31 ? bits.read(6).map { 32 + $0 } : type
        }
        func frequency() -> Int? {
            guard let index = bits.read(4) else { return nil }
            if index == 15 { return bits.read(24) }
            let table = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
            return index < table.count ? table[index] : nil
        }
        guard let type = objectType(), let rate = frequency(), let configuration = bits.read(4) else { return }
        audioObjectType = type
        sampleRate = rate
        switch configuration {
        case 1...6: channels = configuration
        case 7: channels = 8
        default: channels = nil // 0: defined by a program config element
        }
        if type == 5 || type == 29, let extensionRate = frequency() {
            sampleRate = extensionRate
            if type == 29, channels == 1 { channels = 2 } // parametric stereo
        }
    }
}
