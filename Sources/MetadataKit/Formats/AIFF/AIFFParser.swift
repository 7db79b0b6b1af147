#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads AIFF and AIFF-C files.
///
/// - Properties from `COMM` (``AIFFCommon``): duration = sample frames /
///   rate; bit rate = rate × channels × sample size for uncompressed
///   formats, else the `SSND` sound bytes over the duration. `SSND` (AIFF
///   1.3 §"Sound Data Chunk": offset 4, blockSize 4, then the samples) may be
///   absent only when there are no sample frames; a file without it whose
///   `COMM` counts frames is read with a warning (as ffmpeg and mutagen do),
///   its properties from `COMM`.
/// - Tags: `NAME`, `AUTH`, `(c) `, `ANNO` chunks as ``MetadataKeySpace/aiff``
///   items (``AIFFText``), the first `ID3 `/`id3 ` chunk as
///   ``MetadataKeySpace/id3`` items (``IFFID3Chunk``), in chunk order. Where
///   both hold a field, ID3 wins (``MetadataKeyMap``). An `APPL` chunk with
///   the signature `XMP ` is an ``MetadataKeySpace/xmp`` item (``XMPChunk``).
/// - A file that ends inside `SSND` loads read-only (``IFFChunkWalker``).
///   Other damage (a FORM size that disagrees with the file, a missing pad
///   byte, a chunk cut off at the end, an ID3 tag larger than its chunk) is
///   read around and reported in ``ParsedFile/warnings``.
enum AIFFParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let aiff = try AIFFStructure(parsing: source)
        guard let comm = aiff.structure.first("COMM") else {
            throw aiff.structure.cutChunk ?? MediaError(.malformed, "the AIFF file has no 'COMM' chunk", offset: 12)
        }
        let common = try AIFFCommon(source.reader(at: comm.payloadOffset, count: Int(min(comm.size, 64))), isAIFC: aiff.isAIFC)
        var warnings = aiff.structure.warnings
        let sound = aiff.structure.first("SSND")
        if sound == nil, common.sampleFrames > 0 {
            warnings.append(
                MediaWarning(
                    .malformed,
                    "'COMM' announces \(common.sampleFrames) sample frames but there is no 'SSND' chunk; "
                        + "the properties come from 'COMM'", offset: comm.offset))
        }

        var items: [MetadataItem] = []
        let id3 = try IFFID3Chunk.read(in: aiff.chunks, source: source, url: url)
        for chunk in aiff.chunks {
            if let id3, chunk == id3.chunk {
                items += id3.items
                warnings += id3.warnings
            } else if AIFFText.ids.contains(chunk.id), let item = try AIFFText.item(chunk, source: source) {
                items.append(item)
            } else if try XMPChunk.holds(chunk, XMPChunk.aiff, source: source) {
                let xmp = try XMPChunk.read(chunk, XMPChunk.aiff, source: source)
                items.append(xmp.item)
                warnings += xmp.warnings
            }
        }

        var properties = MediaProperties()
        properties.codec = common.codec
        properties.channels = common.channels
        properties.sampleRate = Int(common.sampleRate.rounded())
        properties.bitsPerSample = common.bitsPerSample
        // A rate near zero (the 80-bit number goes far below what a Double
        // holds) makes the frame count last longer than a Double can say.
        let duration = Double(common.sampleFrames) / common.sampleRate
        if duration.isFinite {
            properties.duration = duration
        } else {
            warnings.append(
                MediaWarning(
                    .malformed,
                    "'COMM' gives \(common.sampleFrames) sample frames at \(common.sampleRate) Hz, "
                        + "a duration too long to state; the file has no duration", offset: comm.offset))
        }
        if let bits = common.bitsPerSample, common.isUncompressed {
            properties.bitrate = Int((common.sampleRate * Double(common.channels * bits)).rounded())
        } else if let sound, duration > 0, duration.isFinite {
            let bytes = max(0, min(sound.size, source.size - sound.payloadOffset) - 8)
            properties.bitrate = Int((Double(bytes) * 8 / duration).rounded())
        }
        warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(
            fileType: .aiff, items: items, properties: properties, isEditable: !aiff.structure.isTruncated,
            warnings: warnings, chapterTables: id3?.chapterTables ?? [])
    }
}
