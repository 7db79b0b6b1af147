#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parsed top level of a WAVE file (shared by reader and writer).
struct WAVStructure {
    var structure: IFFStructure
    /// The `ds64` chunk of an RF64/BW64 file.
    var ds64: WAVDataSize64?
    var isRF64: Bool { ds64 != nil }

    var chunks: [IFFChunk] { structure.chunks }
}

extension WAVStructure {
    /// Reads the header and walks the chunks (see ``IFFChunkWalker`` for the rules).
    ///
    /// Header (Microsoft RIFF; EBU Tech 3306 §3.1 for RF64, EBU BW64 for BW64):
    ///
    ///     'RIFF' | 'RF64' | 'BW64'   size (LE; 0xFFFFFFFF in RF64/BW64)   'WAVE'
    init(parsing source: FileSource) throws {
        var header = try source.reader(at: 0, count: 12)
        let form = try header.readFourCC()
        let size32 = try header.readUInt32(.little)
        let type = try header.readFourCC()
        guard ["RIFF", "RF64", "BW64"].contains(form), type == "WAVE" else {
            throw MediaError(.unsupportedFormat, "not a RIFF/RF64/BW64 WAVE file", offset: 0)
        }
        var ds64: WAVDataSize64?
        var containerEnd = 8 + Int64(size32)
        if form != "RIFF" {
            let table = try WAVDataSize64(parsing: source)
            ds64 = table
            containerEnd = 8 + table.riffSize
        }
        let walk = try IFFChunkWalker.walk(
            in: source, from: 12, containerEnd: containerEnd, endianness: .little,
            audioID: "data", container: String(describing: form), resolve: { id in ds64?.size(of: id) })
        self.init(
            structure: IFFStructure(
                form: form, formType: type, containerEnd: walk.end, chunks: walk.chunks,
                isTruncated: walk.truncated, warnings: walk.warnings, cutChunk: walk.cutChunk),
            ds64: ds64)
    }
}
