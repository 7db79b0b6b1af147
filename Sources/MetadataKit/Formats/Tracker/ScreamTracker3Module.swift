#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Scream Tracker 3 modules (S3M), recognised by "SCRM" at 44.
///
/// Layout (little-endian, the ST3 file format description): song name 28
/// bytes (NUL-terminated); 0x1A; type 16; OrdNum, InsNum, PatNum, Flags,
/// Cwt/v, Ffi (16 bits each) at 32; "SCRM" at 44; the 32 channel settings
/// at 64 (255: unused); at 96 the OrdNum orders, then InsNum and PatNum
/// parapointers (16-bit, × 16 for the offset). An instrument is 80 bytes:
/// its sample name (28 bytes, NUL-terminated) at 48, "SCRS"/"SCRI" at 76.
///
/// The comment is the instruments' sample names, as TagLib reads it; the
/// tracker is "ScreamTracker III", `Cwt/v` its version.
enum ScreamTracker3Module {
    static func recognizes(_ probe: FormatProbe) throws -> Bool {
        guard probe.source.size >= 48 else { return false }
        return try probe.source.getBytes(at: 44, count: 4).elementsEqual("SCRM".utf8)
    }

    static func read(_ source: FileSource) throws -> TrackerModule {
        let header = try source.getAvailableBytes(at: 0, count: 96)
        guard header.count == 96 else {
            throw MediaError(.truncated, "the S3M header (96 bytes) is cut short", offset: Int64(header.count))
        }
        var reader = ByteReader(header)
        try reader.skip(32)
        let orderCount = Int(try reader.readUInt16(.little))
        let instrumentCount = Int(try reader.readUInt16(.little))
        let patternCount = Int(try reader.readUInt16(.little))
        _ = try reader.readUInt16(.little)
        let createdWith = try reader.readUInt16(.little)
        var module = TrackerModule(
            kind: "S3M", title: TrackerTextField(offset: 0, size: 28, capacity: 27, what: "the S3M title"), names: [], message: nil,
            channels: header[64..<96].filter { $0 != 255 }.count,
            module: TrackerModuleProperties(
                trackerName: "ScreamTracker III", trackerVersion: TrackerModule.version(createdWith), lengthInPatterns: 0,
                patternCount: patternCount, instrumentCount: instrumentCount, sampleCount: instrumentCount))
        let tables = try source.getAvailableBytes(at: 96, count: orderCount + 2 * instrumentCount)
        guard tables.count == orderCount + 2 * instrumentCount else {
            module.warnings.append(
                MediaWarning(.truncated, "the file ends inside the S3M order list or instrument pointers", offset: 96 + Int64(tables.count))
            )
            module.module.lengthInPatterns = TrackerModule.playedLength(tables.prefix(orderCount))
            module.isWritable = false
            return module
        }
        module.module.lengthInPatterns = TrackerModule.playedLength(tables.prefix(orderCount))
        var pointers = ByteReader(Array(tables[orderCount...]))
        for index in 0..<instrumentCount {
            let offset = Int64(try pointers.readUInt16(.little)) * 16
            module.names.append(TrackerTextField(offset: offset + 48, size: 28, capacity: 27, what: "S3M sample name \(index + 1)"))
        }
        return module
    }
}
