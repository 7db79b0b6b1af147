#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Serializes the `moov` of a written movie (ISO/IEC 14496-12 §8.2–8.7;
/// QTFF for the QuickTime-only boxes).
struct MP4MovieBuilder {
    struct Track {
        var id: UInt32
        var input: AssetWriterInput
        var tables: WrittenTrackTables
    }

    var fileType: AssetFileType
    var movieTimescale: UInt32
    var tracks: [Track]
    var metadata: [MetadataItem]
    /// Chunk offsets above this need `co64`.
    var offsetLimit = Int64(UInt32.max)
    /// Chapters written as a Nero `udta/chpl` list (see ``MP4ChapterList``).
    var chapters: [Chapter] = []

    typealias Box = MP4MetadataEncoder

    static let unityMatrix: [UInt32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

    /// `ftyp` (§4.3) for the file type.
    static func fileTypeBox(_ type: AssetFileType) -> [UInt8] {
        var writer = ByteWriter()
        switch type {
        case .mov:
            writer.write(FourCC("qt  "))
            writer.write(UInt32(0x2005_0300))
            writer.write(FourCC("qt  "))
        case .m4a:
            writer.write(FourCC("M4A "))
            writer.write(UInt32(0x200))
            for brand in ["M4A ", "mp42", "isom"] { writer.write(FourCC(stringLiteral: brand)) }
        case .mp4:
            writer.write(FourCC("isom"))
            writer.write(UInt32(0x200))
            for brand in ["isom", "iso2", "avc1", "mp41"] { writer.write(FourCC(stringLiteral: brand)) }
        }
        return Box.box("ftyp", writer.bytes)
    }

    /// The `mdat` header (§8.1.1) of `payloadSize` bytes of media: 8 bytes,
    /// or 16 with a 64-bit largesize when the box passes `sizeLimit`.
    static func mediaDataHeader(payloadSize: Int64, sizeLimit: Int64) -> [UInt8] {
        var header = ByteWriter()
        if payloadSize + 8 > sizeLimit {
            header.write(UInt32(1))
            header.write(FourCC("mdat"))
            header.write(UInt64(payloadSize + 16))
        } else {
            header.write(UInt32(payloadSize + 8))
            header.write(FourCC("mdat"))
        }
        return header.bytes
    }

    /// A 16-byte `mdat` header, written before the media and patched once
    /// its size is known: an empty `free` box and an 8-byte header, or a
    /// 16-byte header when the box passes `sizeLimit`.
    static func patchableMediaDataHeader(payloadSize: Int64, sizeLimit: Int64) -> [UInt8] {
        let header = mediaDataHeader(payloadSize: payloadSize, sizeLimit: sizeLimit)
        return header.count == 16 ? header : Box.box("free", []) + header
    }

    /// A track's duration in the movie timescale: its edit list's length, or its media duration.
    func movieDuration(of track: Track) -> Int64 {
        if !track.input.editList.isEmpty {
            // Saturating: an edit list copied from a damaged file may hold anything.
            return track.input.editList.reduce(0) { total, entry in
                let (sum, overflow) = total.addingReportingOverflow(max(0, entry.segmentDuration))
                return overflow ? .max : sum
            }
        }
        let scale = Double(movieTimescale) / Double(max(1, track.input.timescale))
        return Int64((Double(track.tables.mediaDuration) * scale).rounded())
    }

    /// The whole `moov`, with chunk offsets moved by `base` (the file offset of the `mdat` payload).
    func moov(base: Int64) throws -> [UInt8] {
        var children = mvhd()
        for track in tracks { children += trak(track, base: base) }
        children += try userData()
        return Box.box("moov", children)
    }

    private func mvhd() -> [UInt8] {
        let duration = tracks.map(movieDuration).max() ?? 0
        var writer = ByteWriter()
        let long = duration > Int64(UInt32.max)
        writer.write(UInt32(long ? 0x0100_0000 : 0))
        writer.writeUnsetTimes(version1: long)
        writer.write(movieTimescale)
        writer.writeDuration(duration, version1: long)
        writer.write(UInt32(0x0001_0000)) // rate 1.0
        writer.write(UInt16(0x0100)) // volume 1.0
        writer.write([UInt8](repeating: 0, count: 10))
        for value in Self.unityMatrix { writer.write(value) }
        writer.write([UInt8](repeating: 0, count: 24)) // pre_defined (QT: preview, poster, selection, current time)
        writer.write((tracks.map(\.id).max() ?? 0) + 1)
        return Box.box("mvhd", writer.bytes)
    }

    private func trak(_ track: Track, base: Int64) -> [UInt8] {
        var children = tkhd(track)
        if !track.input.editList.isEmpty { children += Box.box("edts", elst(track.input.editList)) }
        if !track.input.references.isEmpty {
            var payload: [UInt8] = []
            for reference in track.input.references {
                var ids = ByteWriter()
                for id in reference.trackIDs { ids.write(id) }
                payload += Box.box(reference.type, ids.bytes)
            }
            children += Box.box("tref", payload)
        }
        children += Box.box("mdia", mdhd(track) + hdlr(track.input) + minf(track, base: base))
        return Box.box("trak", children)
    }

    /// `tkhd` (§8.3.2).
    private func tkhd(_ track: Track) -> [UInt8] {
        let input = track.input
        let duration = movieDuration(of: track)
        let long = duration > Int64(UInt32.max)
        var writer = ByteWriter()
        writer.write(UInt32(long ? 1 : 0) << 24 | (input.trackFlags & 0xFF_FFFF))
        writer.writeUnsetTimes(version1: long)
        writer.write(track.id)
        writer.write(UInt32(0))
        writer.writeDuration(duration, version1: long)
        writer.write(UInt64(0))
        writer.write(UInt16(0)) // layer
        writer.write(UInt16(bitPattern: input.alternateGroup))
        writer.write(UInt16(input.mediaType == .audio ? 0x0100 : 0))
        writer.write(UInt16(0))
        for value in Self.unityMatrix { writer.write(value) }
        let visual = input.mediaType == .video || input.mediaType == .subtitle || input.mediaType == .text
        writer.write(UInt32(visual ? (input.width ?? 0) : 0) << 16)
        writer.write(UInt32(visual ? (input.height ?? 0) : 0) << 16)
        return Box.box("tkhd", writer.bytes)
    }

    /// `elst` (§8.6.6), version 1 only when a value needs 64 bits.
    private func elst(_ entries: [EditListEntry]) -> [UInt8] {
        let long = entries.contains { !(0...Int64(UInt32.max)).contains($0.segmentDuration) || Int32(exactly: $0.mediaTime) == nil }
        var writer = ByteWriter()
        writer.write(UInt32(long ? 0x0100_0000 : 0))
        writer.write(UInt32(entries.count))
        for entry in entries {
            if long {
                writer.write(UInt64(bitPattern: entry.segmentDuration))
                writer.write(UInt64(bitPattern: entry.mediaTime))
            } else {
                writer.write(UInt32(entry.segmentDuration))
                writer.write(UInt32(bitPattern: Int32(entry.mediaTime)))
            }
            let fixed = Int32((entry.rate * 65536).rounded())
            writer.write(UInt32(bitPattern: fixed))
        }
        return Box.box("elst", writer.bytes)
    }

    /// `mdhd` (§8.4.2).
    private func mdhd(_ track: Track) -> [UInt8] {
        let duration = track.tables.mediaDuration
        let long = duration > Int64(UInt32.max)
        var writer = ByteWriter()
        writer.write(UInt32(long ? 0x0100_0000 : 0))
        writer.writeUnsetTimes(version1: long)
        writer.write(track.input.timescale)
        writer.writeDuration(duration, version1: long)
        writer.write(languageCode(track.input.language))
        writer.write(UInt16(0))
        return Box.box("mdhd", writer.bytes)
    }

    /// The `mdhd` language: ISO 639-2/T packed in 15 bits; QuickTime movies
    /// keep Macintosh code 0 for English and 0x7FFF for "undetermined", as
    /// QuickTime and ffmpeg write them.
    private func languageCode(_ language: String) -> UInt16 {
        if fileType == .mov {
            if language == "eng" { return 0 }
            if language == "und" { return 0x7FFF }
        }
        return Box.packedLanguage(language)
    }

    /// `hdlr` (§8.4.3): QuickTime movies name the component type (`mhlr`) and
    /// store the name as a Pascal string; ISO files use a NUL-terminated name.
    private func hdlr(_ input: AssetWriterInput) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(0))
        writer.write(fileType == .mov ? FourCC("mhlr") : FourCC(0))
        writer.write(input.handlerType)
        writer.write([UInt8](repeating: 0, count: 12))
        let name = Array((input.handlerName ?? "").utf8.prefix(254))
        if fileType == .mov {
            writer.write(UInt8(name.count))
            writer.write(name)
        } else {
            writer.write(name)
            writer.write(UInt8(0))
        }
        return Box.box("hdlr", writer.bytes)
    }

    /// `minf` (§8.4.4): the media header for the media type, `dinf`, `stbl`.
    private func minf(_ track: Track, base: Int64) -> [UInt8] {
        var header: [UInt8]
        switch track.input.mediaType {
        case .video:
            header = Box.box("vmhd", [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]) // flags 1, graphicsmode copy, opcolor 0
        case .audio:
            header = Box.box("smhd", [0, 0, 0, 0, 0, 0, 0, 0]) // balance 0
        case .timecode where fileType == .mov, .text where fileType == .mov, .closedCaption where fileType == .mov,
            .metadata where fileType == .mov:
            // QTFF base media information header: gmhd/gmin.
            let gmin: [UInt8] = [0, 0, 0, 0, 0, 0x40, 0x80, 0, 0x80, 0, 0x80, 0, 0, 0, 0, 0]
            header = Box.box("gmhd", Box.box("gmin", gmin))
        default:
            header = Box.box("nmhd", [0, 0, 0, 0])
        }
        let dref = Box.box("dref", [0, 0, 0, 0, 0, 0, 0, 1] + Box.box("url ", [0, 0, 0, 1]))
        return Box.box("minf", header + Box.box("dinf", dref) + stbl(track, base: base))
    }

    /// `stbl` (§8.5.1) with `stsd`, `stts`, `ctts`, `stss`, `stsc`, `stsz`, `stco`/`co64`.
    private func stbl(_ track: Track, base: Int64) -> [UInt8] {
        let tables = track.tables
        var stsd = ByteWriter()
        stsd.write(UInt32(track.input.sampleDescriptionVersion) << 24)
        stsd.write(UInt32(track.input.sampleDescriptions.count))
        for entry in track.input.sampleDescriptions { stsd.write(entry) }
        var boxes = Box.box("stsd", stsd.bytes)

        var stts = ByteWriter(capacity: 8 + tables.timeToSample.count * 8)
        stts.write(UInt32(0))
        stts.write(UInt32(tables.timeToSample.count))
        for run in tables.timeToSample {
            stts.write(run.count)
            stts.write(run.delta)
        }
        boxes += Box.box("stts", stts.bytes)

        if tables.hasCompositionOffsets {
            let signed = tables.compositionOffsets.contains { $0.offset < 0 }
            var ctts = ByteWriter(capacity: 8 + tables.compositionOffsets.count * 8)
            ctts.write(UInt32(signed ? 0x0100_0000 : 0))
            ctts.write(UInt32(tables.compositionOffsets.count))
            for run in tables.compositionOffsets {
                ctts.write(run.count)
                ctts.write(UInt32(bitPattern: run.offset))
            }
            boxes += Box.box("ctts", ctts.bytes)
        }
        if let syncSamples = tables.syncSamples {
            var stss = ByteWriter(capacity: 8 + syncSamples.count * 4)
            stss.write(UInt32(0))
            stss.write(UInt32(syncSamples.count))
            for number in syncSamples { stss.write(number) }
            boxes += Box.box("stss", stss.bytes)
        }
        var stsc = ByteWriter()
        stsc.write(UInt32(0))
        stsc.write(UInt32(tables.sampleToChunk.count))
        for run in tables.sampleToChunk {
            stsc.write(run.firstChunk)
            stsc.write(run.samplesPerChunk)
            stsc.write(run.descriptionIndex)
        }
        boxes += Box.box("stsc", stsc.bytes)

        var stsz = ByteWriter(capacity: 12 + tables.sizes.count * 4)
        stsz.write(UInt32(0))
        stsz.write(tables.constantSize ?? 0)
        stsz.write(UInt32(tables.sampleCount))
        if tables.constantSize == nil { for size in tables.sizes { stsz.write(size) } }
        boxes += Box.box("stsz", stsz.bytes)

        let wide = (tables.chunkOffsets.last ?? 0) + base > offsetLimit
        var offsets = ByteWriter(capacity: 8 + tables.chunkOffsets.count * (wide ? 8 : 4))
        offsets.write(UInt32(0))
        offsets.write(UInt32(tables.chunkOffsets.count))
        for offset in tables.chunkOffsets {
            if wide { offsets.write(UInt64(offset + base)) } else { offsets.write(UInt32(offset + base)) }
        }
        boxes += Box.box(wide ? "co64" : "stco", offsets.bytes)
        return Box.box("stbl", boxes)
    }

    /// `moov/udta` with classic ©-atoms and `meta` (`hdlr` `mdir`, `ilst`), and
    /// a `moov/meta` (`mdta` handler, `keys`, `ilst`) for QuickTime metadata.
    private func userData() throws -> [UInt8] {
        var udta: [UInt8] = []
        var order: [String] = []
        var groups: [String: [MetadataItem]] = [:]
        for item in metadata where item.keySpace == .quickTimeUserData {
            if groups[item.key] == nil { order.append(item.key) }
            groups[item.key, default: []].append(item)
        }
        for key in order { udta += try Box.userDataAtom(key: key, items: groups[key]!) }
        order = []
        groups = [:]
        for item in metadata where item.keySpace == .iTunes {
            if groups[item.key] == nil { order.append(item.key) }
            groups[item.key, default: []].append(item)
        }
        if !order.isEmpty {
            var ilst: [UInt8] = []
            for key in order { ilst += try Box.iTunesAtom(key: key, items: groups[key]!) }
            udta += Box.box("meta", [0, 0, 0, 0] + Box.handler("mdir") + Box.box("ilst", ilst))
        }
        if !chapters.isEmpty { udta += MP4ChapterList(chapters: chapters).box }
        var result = udta.isEmpty ? [] : Box.box("udta", udta)
        let quickTime = metadata.filter { $0.keySpace == .quickTimeMetadata }
        if !quickTime.isEmpty {
            let (keys, ilst) = try Box.quickTimeBoxes(quickTime)
            result += Box.box("meta", Box.handler("mdta") + keys + ilst)
        }
        return result
    }
}

extension ByteWriter {
    /// Creation and modification time of a `mvhd`, `tkhd` or `mdhd`, left 0
    /// (64 bits each in version 1; ISO/IEC 14496-12 §8.2.2, §8.3.2, §8.4.2).
    fileprivate mutating func writeUnsetTimes(version1: Bool) {
        if version1 {
            write(UInt64(0))
            write(UInt64(0))
        } else {
            write(UInt32(0))
            write(UInt32(0))
        }
    }

    /// A duration of those boxes: 64 bits in version 1, else 32.
    fileprivate mutating func writeDuration(_ duration: Int64, version1: Bool) {
        if version1 { write(UInt64(duration)) } else { write(UInt32(duration)) }
    }
}
