import Foundation

/// One top-level chunk of a RIFF (little-endian) or IFF/AIFF (big-endian) file.
///
/// Both families share the chunk layout (Microsoft "Multimedia Programming
/// Interface and Data Specifications 1.0", RIFF chapter; Apple "Audio
/// Interchange File Format 1.3", §"Chunks"):
///
///     ckID    4 bytes (FourCC)
///     ckSize  4 bytes, payload length (little-endian in RIFF, big-endian in IFF)
///     payload ckSize bytes, then one pad byte when ckSize is odd (not counted)
///
/// In RF64/BW64 (EBU Tech 3306 §3, ITU-R BS.2088 / EBU BW64) a `ckSize` of
/// 0xFFFFFFFF means the real 64-bit size is in the `ds64` chunk.
struct IFFChunk: Sendable, Equatable {
    var id: FourCC
    /// File offset of the chunk header.
    var offset: Int64
    /// Payload length (from `ds64` for an RF64 chunk whose 32-bit size is 0xFFFFFFFF).
    var size: Int64
    /// False only for a last chunk of odd size written without its pad byte.
    var hasPadByte = true

    static let headerLength: Int64 = 8

    var payloadOffset: Int64 { offset + Self.headerLength }
    var payloadEnd: Int64 { payloadOffset + size }
    /// The end of the chunk, pad byte included when the file has it.
    var end: Int64 { payloadEnd + (size & 1 == 1 && hasPadByte ? 1 : 0) }
}

/// The top-level chunks of a RIFF/RF64/BW64 or FORM file.
struct IFFStructure: Sendable {
    /// `RIFF`, `RF64`, `BW64` or `FORM`.
    var form: FourCC
    /// `WAVE`, `AIFF` or `AIFC`.
    var formType: FourCC
    /// End of the container as its header (or `ds64`) declares it: 8 + size.
    var containerEnd: Int64
    var chunks: [IFFChunk]
    /// True when the file ends inside the audio chunk (see ``IFFChunkWalker``).
    var isTruncated: Bool

    func first(_ id: FourCC) -> IFFChunk? { chunks.first { $0.id == id } }
}

/// Walks the top-level chunks of a RIFF or IFF container with positioned
/// reads: the audio is never read.
///
/// Rules (every size is checked against its parent and the file):
/// - A chunk whose payload runs past the declared container end throws
///   `sizeOutOfRange` (or `truncated` when it runs past the end of the file too).
/// - A container that declares more bytes than the file has throws
///   `truncated` — with one documented leniency: when the file ends *inside
///   the payload of the audio chunk* (`data`, `SSND`) whose header is
///   complete, the walk stops there and the structure is marked truncated.
///   Readers then load it read-only (a recording cut short, or a streamed WAV
///   with 0xFFFFFFFF sizes); writers refuse it.
/// - An odd-sized last chunk without its pad byte is accepted; fewer than 8
///   bytes left after the last chunk (inside the container) are ignored.
/// - Bytes after the declared container end are ignored (and kept by writers).
enum IFFChunkWalker {
    /// More top-level chunks than any real file has.
    static let maximumChunks = 10_000

    /// The chunks between `start` and `containerEnd`. `resolve` gives the
    /// 64-bit size of a chunk whose 32-bit size is 0xFFFFFFFF (RF64), or nil.
    static func chunks(in source: FileSource, from start: Int64, containerEnd: Int64, endianness: Endianness,
                       audioID: FourCC, resolve: (FourCC) throws -> Int64? = { _ in nil })
        throws -> (chunks: [IFFChunk], truncated: Bool) {
        let fileEnd = source.size
        let end = min(containerEnd, fileEnd)
        var chunks: [IFFChunk] = []
        var position = start
        while end - position >= IFFChunk.headerLength {
            guard chunks.count < maximumChunks else {
                throw MediaError(.sizeOutOfRange, "more than \(maximumChunks) chunks", offset: position)
            }
            var header = try source.reader(at: position, count: Int(IFFChunk.headerLength))
            let id = try header.readFourCC()
            let size32 = try header.readUInt32(endianness)
            var size = Int64(size32)
            if size32 == UInt32.max, let large = try resolve(id) { size = large }
            let payload = position + IFFChunk.headerLength
            let name = "chunk '\(id)' of \(size) bytes"
            if size > fileEnd - payload {
                // The file ends inside this chunk.
                if id == audioID, containerEnd > fileEnd {
                    chunks.append(IFFChunk(id: id, offset: position, size: size))
                    return (chunks, true)
                }
                throw MediaError(.truncated, "\(name) runs past the end of the file (\(fileEnd - payload) bytes left)", offset: position)
            }
            guard size <= containerEnd - payload else {
                throw MediaError(.sizeOutOfRange, "\(name) runs past the end of its container (\(containerEnd - payload) bytes left)",
                                 offset: position)
            }
            var chunk = IFFChunk(id: id, offset: position, size: size)
            if size & 1 == 1, chunk.payloadEnd >= end { chunk.hasPadByte = false }
            chunks.append(chunk)
            position = chunk.end
        }
        if containerEnd > fileEnd {
            throw MediaError(.truncated, "the container announces \(containerEnd) bytes but the file has \(fileEnd)", offset: 4)
        }
        return (chunks, false)
    }
}

/// Text in RIFF `INFO` subchunks and AIFF text chunks.
///
/// Neither spec fixes a character set beyond ASCII (RIFF: "ZSTR"; AIFF 1.3:
/// "text" of ASCII characters). ffmpeg writes UTF-8, older tools the
/// system code page. Read: the text ends at the first NUL (a ZSTR; ffmpeg
/// also counts one in AIFF text chunks), the bytes are decoded as
/// UTF-8 when valid, otherwise as ISO 8859-1 (so nothing is ever lost).
/// Written: UTF-8. (exiftool shows such text as Latin-1/Mac Roman by
/// default, so non-ASCII text there looks garbled; ffmpeg reads it as UTF-8.)
enum IFFText {
    static func decode(_ bytes: [UInt8]) -> (text: String, type: MetadataDataType) {
        let trimmed = bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)]
        if let text = String(validating: trimmed, as: UTF8.self) { return (text, .utf8) }
        var scalars = String.UnicodeScalarView()
        for byte in trimmed { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), .latin1)
    }

    /// The text of a raw item, as UTF-8; throws for values that aren't text or hold NUL.
    static func encode(_ item: MetadataItem) throws -> [UInt8] {
        let strings = item.value.stringValues
        guard let text = strings.isEmpty ? item.value.stringValue : strings.joined(separator: "; ") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) must be text")
        }
        guard !text.unicodeScalars.contains("\0") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) can't hold a NUL character")
        }
        return Array(text.utf8)
    }

    /// The key of a raw item as a chunk ID; throws unless it is 4 printable characters.
    static func chunkID(_ item: MetadataItem) throws -> FourCC {
        guard let id = FourCC(item.key), id.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw MediaError(.invalidValue, "\(item.keySpace) key '\(item.key)' is not four printable ASCII characters")
        }
        return id
    }
}

/// Builds chunk bytes.
enum IFFChunkBuilder {
    /// Header, payload and pad byte.
    static func chunk(_ id: FourCC, _ payload: [UInt8], _ endianness: Endianness) throws -> [UInt8] {
        guard payload.count <= Int(UInt32.max) - 1 else {
            throw MediaError(.invalidValue, "chunk '\(id)' would be \(payload.count) bytes; a chunk holds less than 4 GiB")
        }
        var writer = ByteWriter(capacity: payload.count + 9)
        writer.write(id)
        writer.write(UInt32(payload.count), endianness)
        writer.write(payload)
        if payload.count & 1 == 1 { writer.write(UInt8(0)) }
        return writer.bytes
    }
}
