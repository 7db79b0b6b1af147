import Foundation

/// The parsed top level of an AIFF or AIFF-C file (shared by reader and writer).
///
/// Header (AIFF 1.3 §"Form Chunk"; AIFF-C §"Form Chunk"), big-endian:
///
///     'FORM'   size   'AIFF' | 'AIFC'
///
/// followed by chunks walked by ``IFFChunkWalker`` (even padding, every size
/// checked against the FORM and the file).
struct AIFFStructure {
    var structure: IFFStructure
    var isAIFC: Bool { structure.formType == "AIFC" }

    static func read(_ source: FileSource) throws -> AIFFStructure {
        var header = try source.reader(at: 0, count: 12)
        let form = try header.readFourCC()
        let size = try header.readUInt32()
        let type = try header.readFourCC()
        guard form == "FORM", type == "AIFF" || type == "AIFC" else {
            throw MediaError(.unsupportedFormat, "not an AIFF or AIFF-C file", offset: 0)
        }
        let containerEnd = 8 + Int64(size)
        let walk = try IFFChunkWalker.chunks(in: source, from: 12, containerEnd: containerEnd, endianness: .big, audioID: "SSND")
        return AIFFStructure(structure: IFFStructure(form: form, formType: type, containerEnd: containerEnd,
                                                     chunks: walk.chunks, isTruncated: walk.truncated))
    }

    var chunks: [IFFChunk] { structure.chunks }
}

/// Reads AIFF and AIFF-C files.
///
/// - Properties from `COMM` (``AIFFCommon``): duration = sample frames /
///   rate; bit rate = rate × channels × sample size for uncompressed
///   formats, else the `SSND` sound bytes over the duration. `SSND` (AIFF
///   1.3 §"Sound Data Chunk": offset 4, blockSize 4, then the samples) may be
///   absent only when there are no sample frames.
/// - Tags: `NAME`, `AUTH`, `(c) `, `ANNO` chunks as ``MetadataKeySpace/aiff``
///   items (``AIFFText``), the first `ID3 `/`id3 ` chunk as
///   ``MetadataKeySpace/id3`` items (``IFFID3Chunk``), in chunk order. Where
///   both hold a field, ID3 wins (``MetadataKeyMap``).
/// - A file that ends inside `SSND` loads read-only (``IFFChunkWalker``).
enum AIFFReader {
    static func read(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let aiff = try AIFFStructure.read(source)
        guard let comm = aiff.structure.first("COMM") else {
            throw MediaError(.malformed, "the AIFF file has no 'COMM' chunk", offset: 12)
        }
        let common = try AIFFCommon(source.reader(at: comm.payloadOffset, count: Int(min(comm.size, 64))), isAIFC: aiff.isAIFC)
        let sound = aiff.structure.first("SSND")
        guard sound != nil || common.sampleFrames == 0 else {
            throw MediaError(.malformed, "the AIFF file has \(common.sampleFrames) sample frames but no 'SSND' chunk", offset: 12)
        }

        var items: [MetadataItem] = []
        let id3 = try IFFID3Chunk.find(in: aiff.chunks, source: source)
        for chunk in aiff.chunks {
            if let id3, chunk == id3.chunk {
                items += try IFFID3Chunk.items(id3.header, source: source, url: url)
            } else if AIFFText.ids.contains(chunk.id), let item = try AIFFText.item(chunk, source: source) {
                items.append(item)
            }
        }

        var properties = MediaProperties()
        properties.codec = common.codec
        properties.channels = common.channels
        properties.sampleRate = Int(common.sampleRate.rounded())
        properties.bitsPerSample = common.bitsPerSample
        let duration = Double(common.sampleFrames) / common.sampleRate
        properties.duration = duration
        if let bits = common.bitsPerSample, common.isUncompressed {
            properties.bitrate = Int((common.sampleRate * Double(common.channels * bits)).rounded())
        } else if let sound, duration > 0 {
            let bytes = max(0, min(sound.size, source.size - sound.payloadOffset) - 8)
            properties.bitrate = Int((Double(bytes) * 8 / duration).rounded())
        }
        return ParsedFile(fileType: .aiff, items: items, properties: properties, isEditable: !aiff.structure.isTruncated)
    }
}
