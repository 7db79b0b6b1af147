#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
///
/// DSDIFF (Philips "Direct Stream Digital Interchange File Format" 1.5, §2
/// "Chunks") has the same chunk with a 64-bit big-endian size, so a 12-byte
/// header (``wideHeaderLength``; ``DSDIFFChunkWalker``).
struct IFFChunk: Sendable, Equatable {
    var id: FourCC
    /// File offset of the chunk header.
    var offset: Int64
    /// Payload length (from `ds64` for an RF64 chunk whose 32-bit size is 0xFFFFFFFF).
    var size: Int64
    /// False for a chunk of odd size written without its pad byte (usually
    /// the last one; elsewhere ``IFFChunkWalker`` warns about it).
    var hasPadByte = true
    /// The length of the chunk's header: ``headerLength``, or ``wideHeaderLength`` in DSDIFF.
    var headerLength: Int64 = Self.headerLength

    /// ID and 32-bit size (RIFF, IFF).
    static let headerLength: Int64 = 8
    /// ID and 64-bit size (DSDIFF).
    static let wideHeaderLength: Int64 = 12

    var payloadOffset: Int64 { offset + headerLength }
    var payloadEnd: Int64 { payloadOffset + size }
    /// The end of the payload, at most `limit` (the end of the file for a chunk
    /// the file cuts; a 64-bit size may be near 2^63, so ``payloadEnd`` may not be formed).
    func payloadEnd(atMost limit: Int64) -> Int64 { size > limit - payloadOffset ? max(limit, payloadOffset) : payloadEnd }
    /// The end of the chunk, pad byte included when the file has it.
    var end: Int64 { payloadEnd + (size & 1 == 1 && hasPadByte ? 1 : 0) }
}

/// The top-level chunks of a RIFF/RF64/BW64 or FORM file.
struct IFFStructure: Sendable {
    /// `RIFF`, `RF64`, `BW64` or `FORM`.
    var form: FourCC
    /// `WAVE`, `AIFF` or `AIFC`.
    var formType: FourCC
    /// End of the container: 8 + its declared size, or, when that size is
    /// wrong (see ``IFFChunkWalker``), the end of the last whole chunk.
    /// Bytes from here to the end of the file are kept by writers.
    var containerEnd: Int64
    var chunks: [IFFChunk]
    /// True when the file ends inside the audio chunk (see ``IFFChunkWalker``).
    var isTruncated: Bool
    /// Damage the walk went around, in file order.
    var warnings: [MediaWarning] = []
    /// The error for a non-audio chunk cut off by the end of the file, which
    /// the walk stopped at; readers throw it when a chunk they need is missing.
    var cutChunk: MediaError?

    func first(_ id: FourCC) -> IFFChunk? { chunks.first { $0.id == id } }
}

/// Walks the top-level chunks of a RIFF or IFF container with positioned
/// reads: the audio is never read.
///
/// Rules (every size is checked against its parent and the file). Strict
/// where nothing sensible remains; otherwise the damage is read around and
/// reported as a ``MediaWarning`` — as ffmpeg and mutagen read such files:
/// - The file ends *inside the payload of the audio chunk* (`data`, `SSND`)
///   whose header is complete, and the container declares more bytes than
///   the file has: the walk stops there and the structure is marked
///   truncated. Readers load it read-only (a recording cut short, or a
///   streamed WAV with 0xFFFFFFFF sizes); writers refuse it.
/// - Another chunk runs past the end of the file (garbage after `data`, a
///   tag cut short): a warning; the walk stops and the bytes from that chunk
///   on are not read — writers keep them byte for byte after the container
///   (``IFFStructure/cutChunk``).
/// - A chunk runs past the declared container end but not past the file
///   (a RIFF/FORM size a few bytes short): a warning; the chunk is read whole
///   and the walk stops after it (mutagen and ffmpeg's AIFF reader stop
///   there too). A save writes the size of the chunks.
/// - The container declares more bytes than the file has, but every chunk is
///   whole: a warning; a save writes the size of the chunks.
/// - An odd-sized chunk without its pad byte (the next chunk ID starts right
///   after the payload, not one byte later): a warning; a save adds the pad
///   byte. A last chunk without its pad byte is accepted silently.
/// - 1 to 7 bytes after the last chunk inside the container: a warning; they
///   are kept after the container.
/// - Bytes after the declared container end are ignored (and kept by writers).
/// - A container size too small to hold one chunk header (0, 4, 8: a
///   size never written, as some streaming writers leave it) while the file
///   goes on: a warning; the chunks are read as if the size were unknown (to
///   the end of the file, an audio chunk the file cuts read-only as above),
///   as ffmpeg, mutagen and TagLib read such files. A save writes the size
///   of the chunks.
enum IFFChunkWalker {
    /// More top-level chunks than any real file has.
    static let maximumChunks = 10_000

    struct Walk {
        var chunks: [IFFChunk] = []
        var truncated = false
        /// Where the last whole chunk ends (pad byte included).
        var end: Int64
        var warnings: [MediaWarning] = []
        var cutChunk: MediaError?
    }

    /// The chunks between `start` and `containerEnd`. `resolve` gives the
    /// 64-bit size of a chunk whose 32-bit size is 0xFFFFFFFF (RF64), or nil.
    /// `container` names the container in warnings ("RIFF", "FORM").
    static func walk(
        in source: FileSource, from start: Int64, containerEnd: Int64, endianness: Endianness,
        audioID: FourCC, container: String, resolve: (FourCC) throws -> Int64? = { _ in nil }
    ) throws -> Walk {
        let fileEnd = source.size
        if containerEnd - start < IFFChunk.headerLength, fileEnd - start >= IFFChunk.headerLength {
            var walk = try Self.walk(
                in: source, from: start, containerEnd: .max, endianness: endianness, audioID: audioID, container: container,
                resolve: resolve)
            walk.end = min(walk.end, fileEnd)
            walk.warnings.removeAll { $0.offset == 4 && $0.code == .sizeOutOfRange } // the size announced: not this one
            walk.warnings.insert(
                MediaWarning(
                    .sizeOutOfRange,
                    "the \(container) size (\(containerEnd - 8) bytes) leaves no room for a chunk; the chunks are read to "
                        + "the end of the file, and a save writes the \(container) size of the chunks", offset: 4), at: 0)
            return walk
        }
        var end = min(containerEnd, fileEnd)
        var walk = Walk(end: start)
        var position = start
        var sizeWarned = false
        while end - position >= IFFChunk.headerLength {
            guard walk.chunks.count < maximumChunks else {
                throw MediaError(.sizeOutOfRange, "more than \(maximumChunks) chunks", offset: position)
            }
            var header = try source.reader(at: position, count: Int(IFFChunk.headerLength))
            let id = try header.readFourCC()
            let size32 = try header.readUInt32(endianness)
            var size = Int64(size32)
            if size32 == UInt32.max, let large = try resolve(id) { size = large }
            let payload = position + IFFChunk.headerLength
            // Made only for a warning (most chunks have none).
            var name: String { "chunk '\(id)' of \(size) bytes" }
            if size > fileEnd - payload {
                // The file ends inside this chunk.
                if id == audioID, containerEnd > fileEnd {
                    walk.chunks.append(IFFChunk(id: id, offset: position, size: size))
                    walk.warnings.append(
                        MediaWarning(
                            .truncated,
                            "the file ends inside \(name) (\(fileEnd - payload) bytes left); "
                                + "the file is read-only", offset: position))
                    walk.truncated = true
                    walk.end = containerEnd
                    return walk
                }
                let error = MediaError(
                    .truncated, "\(name) runs past the end of the file (\(fileEnd - payload) bytes left)", offset: position)
                if id == audioID { throw error }
                walk.cutChunk = error
                walk.warnings.append(
                    MediaWarning(
                        .truncated,
                        "\(name) is cut off by the end of the file (\(fileEnd - payload) bytes left); "
                            + "its \(fileEnd - position) bytes are not read, and a save keeps them after the "
                            + "\(container) container", offset: position))
                sizeWarned = true
                break
            }
            var chunk = IFFChunk(id: id, offset: position, size: size)
            if size > containerEnd - payload {
                walk.warnings.append(
                    MediaWarning(
                        .sizeOutOfRange,
                        "\(name) runs past the end of the \(container) container "
                            + "(\(containerEnd - payload) bytes left); read whole, and a save writes the "
                            + "\(container) size of the chunks", offset: position))
                sizeWarned = true
                end = min(chunk.end, fileEnd)
                if size & 1 == 1, chunk.payloadEnd >= end { chunk.hasPadByte = false }
                walk.chunks.append(chunk)
                walk.end = chunk.end
                break
            }
            if size & 1 == 1 {
                if chunk.payloadEnd >= end {
                    chunk.hasPadByte = false
                } else if try isMissingPadByte(after: chunk, source: source, end: end, endianness: endianness) {
                    chunk.hasPadByte = false
                    walk.warnings.append(
                        MediaWarning(
                            .malformed, "\(name) has odd size but no pad byte after it; a save adds the pad byte",
                            offset: position))
                }
            }
            walk.chunks.append(chunk)
            position = chunk.end
            walk.end = position
        }
        if walk.cutChunk == nil, walk.end < end {
            walk.warnings.append(
                MediaWarning(
                    .malformed,
                    "\(end - walk.end) bytes after the last chunk are not a chunk; they are kept "
                        + "after the \(container) container", offset: walk.end))
        }
        if containerEnd > fileEnd, !sizeWarned {
            walk.warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "the \(container) size announces \(containerEnd) bytes but the file has "
                        + "\(fileEnd); a save writes the size of the chunks", offset: 4))
        }
        return walk
    }

    /// Chunk IDs of WAV and AIFF files (RIFF, EBU, AIFF 1.3, AIFF-C), for
    /// telling where a chunk starts.
    static let knownIDs: Set<FourCC> = [
        "fmt ", "data", "fact", "LIST", "JUNK", "junk", "PAD ", "pad ", "id3 ", "ID3 ", "bext", "iXML",
        "cue ", "smpl", "inst", "acid", "CSET", "DISP", "axml", "chna", "ds64", "_PMX", "FVER", "COMM",
        "SSND", "NAME", "AUTH", "(c) ", "ANNO", "MARK", "INST", "COMT", "APPL", "MIDI", "AESD", "CHAN",
    ]

    /// True when the next chunk starts right after the odd payload of
    /// `chunk` rather than one pad byte later: there is a printable chunk ID
    /// with a size that fits before `end`, and one byte later there is none,
    /// or only an unknown ID where a known one starts without the pad.
    private static func isMissingPadByte(
        after chunk: IFFChunk, source: FileSource, end: Int64,
        endianness: Endianness
    ) throws -> Bool {
        guard end - chunk.payloadEnd >= IFFChunk.headerLength + 1 else { return false }
        var reader = try source.reader(at: chunk.payloadEnd, count: 9)
        let bytes = try reader.readBytes(9)
        func isChunk(at index: Int) throws -> Bool {
            guard bytes[index..<index + 4].allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
            var size = ByteReader(Array(bytes[index + 4..<index + 8]), fileOffset: chunk.payloadEnd + Int64(index) + 4)
            return Int64(try size.readUInt32(endianness)) <= end - chunk.payloadEnd - Int64(index) - IFFChunk.headerLength
        }
        let isKnown = { (index: Int) in knownIDs.contains(FourCC(bytes[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })) }
        return try isChunk(at: 0) && (!isChunk(at: 1) || isKnown(0) && !isKnown(1))
    }
}

/// Text in RIFF `INFO` subchunks and AIFF text chunks.
///
/// Neither spec fixes a character set beyond ASCII (RIFF: "ZSTR", with an
/// optional `CSET` chunk naming a code page, RIFF spec §"CSET"; AIFF 1.3:
/// "text" of ASCII characters). The readers disagree:
/// - exiftool reads INFO as Latin-1 (Windows-1252), or in the `CSET` code
///   page, and AIFF text as Mac Roman; MediaInfo and Windows read both as
///   Latin-1 / the ANSI code page;
/// - ffmpeg passes the bytes on as UTF-8 (and writes UTF-8); TagLib 1.13
///   decodes INFO as UTF-8 only (Latin-1 text reads as empty) and doesn't
///   read AIFF text chunks.
///
/// Read: the text ends at the first NUL (a ZSTR; ffmpeg also counts one in
/// AIFF text chunks); valid UTF-8 is decoded as UTF-8 (what ffmpeg and
/// TagLib wrote), anything else as ISO 8859-1 (so nothing is ever lost).
///
/// Written (only for items that changed; others keep their bytes): in
/// ISO 8859-1 when every character fits (none of U+0080–U+009F, which
/// Windows-1252 reads as other characters) and the bytes don't read back as
/// different UTF-8 text — what exiftool, MediaInfo and Windows show right —
/// and otherwise UTF-8. A file whose `CSET` names UTF-8 (65001) gets UTF-8,
/// one that names another code page than 0, 1252 or 28591 gets ASCII or
/// UTF-8. The ID3 chunk that writers keep beside INFO carries every value
/// exactly for ID3 readers (TagLib, mutagen, exiftool, MediaInfo).
enum IFFText {
    /// The character set a file's text is written in.
    enum CharacterSet: Equatable, Sendable {
        /// ISO 8859-1, the default (also for RIFF code pages 0, 1252 and 28591).
        case latin1
        /// UTF-8 (RIFF code page 65001).
        case utf8
        /// Another code page: only ASCII is written as such.
        case other(UInt16)

        /// The character set of a RIFF `CSET` code page (its first 16-bit field).
        init(codePage: UInt16) {
            switch codePage {
            case 0, 1252, 28591: self = .latin1
            case 65001: self = .utf8
            default: self = .other(codePage)
            }
        }
    }

    static func decode(_ bytes: [UInt8]) -> (text: String, type: MetadataDataType) {
        let trimmed = bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)]
        if let text = String(validating: trimmed, as: UTF8.self) { return (text, .utf8) }
        var scalars = String.UnicodeScalarView()
        for byte in trimmed { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), .latin1)
    }

    /// The text of a raw item, in `characterSet` when it fits there and reads
    /// back the same, else in UTF-8; throws for values that aren't text or hold NUL.
    static func encode(_ item: MetadataItem, in characterSet: CharacterSet = .latin1) throws -> [UInt8] {
        let strings = item.value.stringValues
        guard let text = strings.isEmpty ? item.value.stringValue : strings.joined(separator: "; ") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) must be text")
        }
        guard !text.unicodeScalars.contains("\0") else {
            throw MediaError(.invalidValue, "\(item.keySpace):\(item.key) can't hold a NUL character")
        }
        let limit: UInt32
        switch characterSet {
        case .utf8: return Array(text.utf8)
        case .latin1: limit = 0xFF
        case .other: limit = 0x7F
        }
        guard text.unicodeScalars.allSatisfy({ $0.value <= limit && !(0x80...0x9F).contains($0.value) }) else {
            return Array(text.utf8)
        }
        let bytes = text.unicodeScalars.map { UInt8($0.value) }
        // Latin-1 bytes that happen to be valid UTF-8 ("Ã©") would read back as other text.
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) != nil { return Array(text.utf8) }
        return bytes
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
