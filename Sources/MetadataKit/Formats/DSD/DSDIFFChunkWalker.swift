#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Walks the chunks of a DSDIFF file (Philips "Direct Stream Digital
/// Interchange File Format" 1.5, §2 "Chunks"), big-endian ``IFFChunk``s with
/// a 12-byte header (``IFFChunk/wideHeaderLength``):
///
///     ckID        4 bytes
///     ckDataSize  8 bytes, the data's length
///     ckData      ckDataSize bytes, then a pad byte when ckDataSize is odd (not counted)
///
/// It walks the chunks in `start..<end` (the data of `FRM8`, `PROP`, `DIIN` or
/// `DST `) with positioned reads; chunk data is never read here.
///
/// Every size is checked against the space left (in 64 bits: a size near
/// 2^64 is no size). A chunk that runs past `end` stops the walk: it is
/// returned as ``Walk/cut`` (the sound data chunk of a cut recording, or
/// garbage) with a warning, and nothing after it is read. Fewer than 12
/// bytes left over are a warning too.
enum DSDIFFChunkWalker {
    struct Walk {
        var chunks: [IFFChunk] = []
        /// A chunk whose header is whole but whose data runs past the end.
        var cut: IFFChunk?
        /// Where the last whole chunk ends (where a cut chunk or leftover bytes start).
        var end: Int64
        var warnings: [MediaWarning] = []
    }

    /// Most chunks read in one container; a file with more is damaged.
    static let maximumChunks = 4096

    static func walk(_ source: FileSource, from start: Int64, to end: Int64, in container: String) throws -> Walk {
        var walk = Walk(end: start)
        var position = start
        while end - position >= IFFChunk.wideHeaderLength {
            guard walk.chunks.count < maximumChunks else {
                walk.warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "more than \(maximumChunks) chunks in '\(container)'; the rest is not read", offset: position))
                return walk
            }
            var reader = try source.reader(at: position, count: Int(IFFChunk.wideHeaderLength))
            let id = try reader.readFourCC()
            let size = try reader.readUInt64()
            var chunk = IFFChunk(id: id, offset: position, size: Int64(clamping: size), headerLength: IFFChunk.wideHeaderLength)
            if size > UInt64(end - chunk.payloadOffset) {
                walk.cut = chunk
                walk.warnings.append(
                    MediaWarning(
                        .truncated,
                        "chunk '\(id)' of \(size) bytes runs past the end of '\(container)' (\(end - chunk.payloadOffset) bytes left)",
                        offset: position + 4))
                return walk
            }
            chunk.hasPadByte = chunk.size & 1 == 0 || chunk.payloadEnd < end
            walk.chunks.append(chunk)
            position = chunk.end
            walk.end = position
        }
        if position < end {
            walk.warnings.append(
                MediaWarning(.malformed, "\(end - position) bytes after the last chunk of '\(container)' are no chunk", offset: position))
        }
        return walk
    }
}
