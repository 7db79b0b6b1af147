#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One Stream Properties Object (ASF Specification §3.3), as far as the
/// properties need it: the stream number and, for audio, the `WAVEFORMATEX`
/// fields; for video, the picture size and the codec's FourCC (§9.2).
struct ASFStreamProperties: Sendable {
    var number: Int
    var kind: AssetMediaType
    var codecID: UInt16?
    var channels: Int?
    var sampleRate: Int?
    var bitrate: Int?
    var bitsPerSample: Int?
    var width: Int?
    var height: Int?
    var fourCC: String?

    /// Reads the data of a Stream Properties Object.
    init(parsing data: inout ByteReader) throws {
        let type = ASFGUID(bytes: try data.readBytes(16))
        try data.skip(16 + 8) // error correction type, time offset
        let specificLength = Int(try data.readUInt32(.little))
        try data.skip(4) // error correction data length
        number = Int(try data.readUInt16(.little) & 0x7F)
        try data.skip(4)
        var specific = try data.readReader(count: specificLength)
        switch type {
        case .audioMedia:
            kind = .audio
            codecID = try specific.readUInt16(.little)
            channels = Int(try specific.readUInt16(.little))
            sampleRate = Int(try specific.readUInt32(.little))
            bitrate = Int(try specific.readUInt32(.little)) * 8
            try specific.skip(2)
            bitsPerSample = Int(try specific.readUInt16(.little))
        case .videoMedia:
            kind = .video
            width = Int(try specific.readUInt32(.little))
            height = Int(try specific.readUInt32(.little))
            try specific.skip(1 + 2 + 16) // flags, format data size, BITMAPINFOHEADER up to biCompression
            let code = try specific.readBytes(4)
            if code.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { fourCC = String(decoding: code, as: UTF8.self) }
        default:
            kind = .other
        }
    }

    /// The Stream Properties Object inside an Extended Stream Properties
    /// Object (§4.1), after its 64 fixed bytes, stream names and payload
    /// extension systems; nil when it has none.
    static func embedded(in data: inout ByteReader) throws -> ByteReader? {
        try data.skip(60)
        let names = try data.readUInt16(.little)
        let extensions = try data.readUInt16(.little)
        for _ in 0..<names {
            try data.skip(2)
            try data.skip(Int(try data.readUInt16(.little)))
        }
        for _ in 0..<extensions {
            try data.skip(16 + 2)
            try data.skip(Int(try data.readUInt32(.little)))
        }
        var rest = data
        let found = ASFObject.objects(in: &rest, what: "Extended Stream Properties").objects.first { $0.guid == .streamProperties }
        return found?.dataReader
    }

    /// The codec name of a `WAVEFORMATEX` format tag: the four Windows Media
    /// Audio versions by name, others as the tag in hex.
    static func codecName(_ id: UInt16) -> String {
        switch id {
        case 0x0160: "WMA v1"
        case 0x0161: "WMA v2"
        case 0x0162: "WMA Pro"
        case 0x0163: "WMA Lossless"
        case 0x000A: "WMA Voice"
        case 0x0001: "PCM"
        case 0x0055: "MP3"
        default: "0x" + String(id, radix: 16, uppercase: true)
        }
    }
}
