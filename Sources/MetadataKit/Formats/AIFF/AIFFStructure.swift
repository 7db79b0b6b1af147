#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    var chunks: [IFFChunk] { structure.chunks }
}

extension AIFFStructure {
    init(parsing source: FileSource) throws {
        var header = try source.reader(at: 0, count: 12)
        let form = try header.readFourCC()
        let size = try header.readUInt32()
        let type = try header.readFourCC()
        guard form == "FORM", type == "AIFF" || type == "AIFC" else {
            throw MediaError(.unsupportedFormat, "not an AIFF or AIFF-C file", offset: 0)
        }
        let containerEnd = 8 + Int64(size)
        let walk = try IFFChunkWalker.walk(
            in: source, from: 12, containerEnd: containerEnd, endianness: .big, audioID: "SSND",
            container: "FORM")
        self.init(
            structure: IFFStructure(
                form: form, formType: type, containerEnd: walk.end, chunks: walk.chunks,
                isTruncated: walk.truncated, warnings: walk.warnings, cutChunk: walk.cutChunk))
    }
}
