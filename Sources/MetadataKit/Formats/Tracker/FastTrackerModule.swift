#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// FastTracker 2 extended modules (XM), recognised by "Extended Module: ".
///
/// Layout (little-endian, the XM description by Mr.H): "Extended Module: "
/// (17 bytes); module name 20; 0x1A; tracker name 20; version 16 bits at 58;
/// header size 32 bits at 60 (counted from 60); song length, restart,
/// channels, patterns, instruments, flags, tempo, BPM (16 bits each) at 64;
/// the order table at 80. The patterns follow the header: each a header
/// (its length 32 bits, packing 1, rows 16, packed size 16) and its data.
/// Then each instrument: its header size (32 bits), name 22 bytes, type,
/// sample count (16 bits), and — with samples — the sample header size;
/// after its header, that many sample headers (name 22 bytes at 18), then
/// their data (each sample's length at its header's start).
///
/// The comment is the instrument names, then the sample names, as TagLib
/// reads it. Names fill their fields with no terminating NUL.
enum FastTrackerModule {
    static let magic = "Extended Module: "
    /// Instruments and samples walked at most (the counts are 16 bits; a
    /// damaged count stops at the file's end first).
    static let maximumSamplesPerInstrument = 256

    static func recognizes(_ probe: FormatProbe) throws -> Bool {
        guard probe.starts(with: "Extended Mod"), probe.source.size >= 17 else { return false }
        return try probe.source.getBytes(at: 0, count: 17).elementsEqual(magic.utf8)
    }

    static func read(_ source: FileSource) throws -> TrackerModule {
        let header = try source.getAvailableBytes(at: 0, count: 80)
        guard header.count == 80 else {
            throw MediaError(.truncated, "the XM header (80 bytes) is cut short", offset: Int64(header.count))
        }
        var reader = ByteReader(Array(header[58...]))
        let version = try reader.readUInt16(.little)
        let headerSize = Int64(try reader.readUInt32(.little))
        let songLength = Int(try reader.readUInt16(.little))
        _ = try reader.readUInt16(.little)
        let channels = Int(try reader.readUInt16(.little))
        let patternCount = Int(try reader.readUInt16(.little))
        let instrumentCount = Int(try reader.readUInt16(.little))
        let trackerName = TextDecoding.latin1(header[38..<58].prefix { $0 != 0 })
        var module = TrackerModule(
            kind: "XM", title: TrackerTextField(offset: 17, size: 20, capacity: 20, what: "the XM title"), names: [], message: nil,
            channels: channels,
            module: TrackerModuleProperties(
                trackerName: trackerName, trackerVersion: TrackerModule.version(version), lengthInPatterns: songLength,
                patternCount: patternCount, instrumentCount: instrumentCount, sampleCount: 0))
        var sampleNames: [TrackerTextField] = []
        var position = 60 + headerSize
        let size = source.size
        func stop(_ message: String, at offset: Int64) {
            module.warnings.append(MediaWarning(.truncated, message + "; the names after it are not read", offset: offset))
            module.isWritable = false
        }
        walk: do {
            for index in 0..<patternCount {
                guard position + 9 <= size else {
                    stop("the file ends inside XM pattern \(index)", at: position)
                    break walk
                }
                var pattern = try source.reader(at: position, count: 9)
                let length = Int64(try pattern.readUInt32(.little))
                try pattern.skip(3)
                let packed = Int64(try pattern.readUInt16(.little))
                guard length >= 9 else {
                    stop("XM pattern \(index)'s header says \(length) bytes", at: position)
                    break walk
                }
                position += length + packed
            }
            for index in 0..<instrumentCount {
                guard position + 29 <= size else {
                    stop("the file ends inside XM instrument \(index + 1)", at: position)
                    break walk
                }
                var instrument = try source.reader(at: position, count: 29)
                let instrumentSize = Int64(try instrument.readUInt32(.little))
                try instrument.skip(23)
                let samples = Int(try instrument.readUInt16(.little))
                module.names.append(TrackerTextField(offset: position + 4, size: 22, capacity: 22, what: "XM instrument name \(index + 1)"))
                guard instrumentSize >= 29 else {
                    stop("XM instrument \(index + 1)'s header says \(instrumentSize) bytes", at: position)
                    break walk
                }
                var sampleHeaderSize: Int64 = 40
                if samples > 0 {
                    guard position + 33 <= size else {
                        stop("the file ends inside XM instrument \(index + 1)", at: position)
                        break walk
                    }
                    var field = try source.reader(at: position + 29, count: 4)
                    sampleHeaderSize = Int64(try field.readUInt32(.little))
                    guard sampleHeaderSize >= 40 else {
                        stop("XM instrument \(index + 1)'s sample headers are \(sampleHeaderSize) bytes", at: position + 29)
                        break walk
                    }
                }
                position += instrumentSize
                var dataLength: Int64 = 0
                for sample in 0..<min(samples, maximumSamplesPerInstrument) {
                    guard position + 40 <= size else {
                        stop("the file ends inside XM instrument \(index + 1)'s sample \(sample + 1)", at: position)
                        break walk
                    }
                    var sampleHeader = try source.reader(at: position, count: 4)
                    dataLength += Int64(try sampleHeader.readUInt32(.little))
                    sampleNames.append(
                        TrackerTextField(offset: position + 18, size: 22, capacity: 22, what: "XM sample name \(sampleNames.count + 1)"))
                    position += sampleHeaderSize
                }
                position += dataLength
            }
        }
        module.names += sampleNames
        module.module.sampleCount = sampleNames.count
        return module
    }
}
