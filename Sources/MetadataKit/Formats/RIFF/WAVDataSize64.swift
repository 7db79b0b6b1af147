#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `ds64` chunk of an RF64 or BW64 file, first chunk after the header
/// (EBU Tech 3306 §3.2; ITU-R BS.2088-1 §3 / EBU BW64), little-endian:
///
///     riffSize      8   the real RIFF size (the header holds 0xFFFFFFFF)
///     dataSize      8   the real `data` size (its header holds 0xFFFFFFFF)
///     sampleCount   8   the real `fact` sample count
///     tableLength   4   entries that follow
///     table         tableLength × (chunkId 4, chunkSize 8), for other chunks over 4 GiB
struct WAVDataSize64: Sendable, Equatable {
    var riffSize: Int64
    var dataSize: Int64
    var sampleCount: Int64
    var table: [(id: FourCC, size: Int64)]
    /// The `ds64` chunk itself.
    var chunk: IFFChunk

    static func == (a: WAVDataSize64, b: WAVDataSize64) -> Bool {
        a.riffSize == b.riffSize && a.dataSize == b.dataSize && a.sampleCount == b.sampleCount && a.chunk == b.chunk
            && a.table.map(\.id) == b.table.map(\.id) && a.table.map(\.size) == b.table.map(\.size)
    }

    /// The 64-bit size of a chunk whose 32-bit size is 0xFFFFFFFF: `dataSize`
    /// for `data`, else the first table entry for its ID.
    func size(of id: FourCC) -> Int64? {
        id == "data" ? dataSize : table.first { $0.id == id }?.size
    }
}

extension WAVDataSize64 {
    /// Reads the `ds64` chunk that must start at offset 12.
    init(parsing source: FileSource) throws {
        var header = try source.reader(at: 12, count: 8)
        let id = try header.readFourCC()
        let size = Int64(try header.readUInt32(.little))
        guard id == "ds64" else {
            throw MediaError(.malformed, "an RF64/BW64 file must start with a 'ds64' chunk, not '\(id)'", offset: 12)
        }
        guard size >= 28, size <= 28 + 12 * 1024 else {
            throw MediaError(.sizeOutOfRange, "'ds64' chunk of \(size) bytes (28 to \(28 + 12 * 1024) expected)", offset: 12)
        }
        var reader = try source.reader(at: 20, count: Int(size))
        func size64() throws -> Int64 {
            let value = try reader.readUInt64(.little)
            guard value <= UInt64(Int64.max / 2) else { throw reader.error(.sizeOutOfRange, "64-bit size \(value) is not plausible") }
            return Int64(value)
        }
        let riffSize = try size64(), dataSize = try size64(), sampleCount = try size64()
        let count = Int(try reader.readUInt32(.little))
        guard count <= reader.remaining / 12 else {
            throw reader.error(.sizeOutOfRange, "'ds64' table of \(count) entries does not fit in the chunk")
        }
        var table: [(id: FourCC, size: Int64)] = []
        for _ in 0..<count { table.append((try reader.readFourCC(), try size64())) }
        self.init(
            riffSize: riffSize, dataSize: dataSize, sampleCount: sampleCount, table: table,
            chunk: IFFChunk(id: id, offset: 12, size: size))
    }
}
