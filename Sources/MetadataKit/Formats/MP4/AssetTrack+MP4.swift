#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AssetTrack {
    /// Reads one `trak` of `source`: its boxes (through ``MP4TrackBoxes``)
    /// and its sample tables.
    init(parsing trak: MP4Box, in source: FileSource) throws {
        let boxes = MP4TrackBoxes(trak: trak, source: source)
        guard trak.child("tkhd") != nil, boxes.mediaBox?.child("mdhd") != nil,
            let header = try boxes.trackHeader(), let media = try boxes.mediaHeader()
        else {
            throw MediaError(.malformed, "'trak' without 'tkhd', 'mdia' or 'mdhd'", offset: trak.header.offset)
        }
        let handler = try boxes.handler()
        let handlerType = handler?.handlerType ?? "    "
        var descriptions: [[UInt8]] = []
        var stsdVersion: UInt8 = 0
        if let stsd = try boxes.sampleDescriptions() {
            stsdVersion = stsd.version
            let entries = try stsd.entries(in: source, depth: MP4TrackBoxes.sampleEntryDepth)
            guard entries.count >= min(Int(stsd.entryCount), 1) else {
                throw MediaError(
                    .malformed, "'stsd' lists \(stsd.entryCount) entries but holds \(entries.count)", offset: stsd.header.offset)
            }
            descriptions = try entries.prefix(Int(stsd.entryCount)).map { try source.getBytes(at: $0.offset, count: Int($0.size)) }
        }
        let table = try boxes.sampleTableBox.map { try SampleTable(parsing: $0, in: source) } ?? SampleTable()
        var duration = media.timing.units
        if duration == 0 { duration = table.totalDuration }

        self.init(
            id: header.trackID, mediaType: AssetMediaType(handler: handlerType), handlerType: handlerType,
            handlerName: handler?.name, codec: descriptions.first.map { Self.entryType($0) },
            timescale: media.timing.timescale, duration: duration, language: media.language,
            sampleDescriptions: descriptions, sampleDescriptionVersion: stsdVersion,
            editList: try boxes.editList(), references: try boxes.references(),
            flags: header.flags, alternateGroup: header.alternateGroup,
            sampleTable: table)

        if let stream = try boxes.stream(handler: handlerType) {
            codecName = stream.codec
            switch mediaType {
            case .audio:
                sampleRate = stream.sampleRate
                channels = stream.channels
            case .video:
                width = stream.width
                height = stream.height
            default: break
            }
        }
        if mediaType == .video || header.width > 0 {
            if width == nil || width == 0 { width = header.width }
            if height == nil || height == 0 { height = header.height }
        }
    }

    /// The type of a sample description entry (a complete box): bytes 4–7;
    /// four spaces for bytes too short to be a box.
    static func entryType(_ entry: [UInt8]) -> FourCC {
        guard entry.count >= 8 else { return "    " }
        return FourCC(UInt32(entry[4]) << 24 | UInt32(entry[5]) << 16 | UInt32(entry[6]) << 8 | UInt32(entry[7]))
    }
}
