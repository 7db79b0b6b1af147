#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Impulse Tracker modules (IT), recognised by "IMPM".
///
/// Layout (little-endian, ITTECH.TXT): "IMPM"; song name 26 bytes
/// (NUL-terminated); OrdNum, InsNum, SmpNum, PatNum, Cwt/v, Cmwt, Flags,
/// Special (16 bits each) at 32; MsgLgth (16 bits) at 54 and the message
/// offset (32 bits) at 56, used when Special bit 0 is set; channel panning
/// at 64 (bit 7: channel disabled); the orders at 192, then the 32-bit
/// offsets of the instruments, samples and patterns. An instrument ("IMPI")
/// has its name (26 bytes) at 32, a sample ("IMPS") at 20. The message's
/// lines end with CR; it ends with a NUL.
///
/// The comment is the instrument names, the sample names, then the
/// message's lines, as TagLib reads it; the tracker is "Impulse Tracker",
/// `Cwt/v` its version.
enum ImpulseTrackerModule {
    static func recognizes(_ probe: FormatProbe) throws -> Bool {
        probe.starts(with: "IMPM")
    }

    static func read(_ source: FileSource) throws -> TrackerModule {
        let header = try source.getAvailableBytes(at: 0, count: 192)
        guard header.count == 192 else {
            throw MediaError(.truncated, "the IT header (192 bytes) is cut short", offset: Int64(header.count))
        }
        var reader = ByteReader(Array(header[32...]))
        let orderCount = Int(try reader.readUInt16(.little))
        let instrumentCount = Int(try reader.readUInt16(.little))
        let sampleCount = Int(try reader.readUInt16(.little))
        let patternCount = Int(try reader.readUInt16(.little))
        let createdWith = try reader.readUInt16(.little)
        try reader.skip(4)
        let special = try reader.readUInt16(.little)
        try reader.skip(6)
        let messageLength = Int(try reader.readUInt16(.little))
        let messageOffset = Int64(try reader.readUInt32(.little))
        var module = TrackerModule(
            kind: "IT", title: TrackerTextField(offset: 4, size: 26, capacity: 25, what: "the IT title"), names: [],
            message: special & 1 == 1 && messageLength > 0 ? (messageOffset, messageLength) : nil,
            channels: header[64..<128].filter { $0 < 128 }.count,
            module: TrackerModuleProperties(
                trackerName: "Impulse Tracker", trackerVersion: TrackerModule.version(createdWith), lengthInPatterns: 0,
                patternCount: patternCount, instrumentCount: instrumentCount, sampleCount: sampleCount))
        let tableLength = orderCount + 4 * (instrumentCount + sampleCount)
        let tables = try source.getAvailableBytes(at: 192, count: tableLength)
        module.module.lengthInPatterns = TrackerModule.playedLength(tables.prefix(orderCount))
        guard tables.count == tableLength else {
            module.warnings.append(
                MediaWarning(.truncated, "the file ends inside the IT order list or offset tables", offset: 192 + Int64(tables.count)))
            module.isWritable = false
            return module
        }
        var offsets = ByteReader(Array(tables[orderCount...]))
        for index in 0..<instrumentCount {
            let offset = Int64(try offsets.readUInt32(.little))
            module.names.append(TrackerTextField(offset: offset + 32, size: 26, capacity: 25, what: "IT instrument name \(index + 1)"))
        }
        for index in 0..<sampleCount {
            let offset = Int64(try offsets.readUInt32(.little))
            module.names.append(TrackerTextField(offset: offset + 20, size: 26, capacity: 25, what: "IT sample name \(index + 1)"))
        }
        return module
    }
}
