#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The chunks of a DSDIFF file (Philips "Direct Stream Digital Interchange
/// File Format" 1.5), as far as properties and tags need them:
///
///     'FRM8' ckDataSize 'DSD '                 §3.1 Form DSD chunk
///       'FVER'  format version                 §3.2
///       'PROP'  'SND ' and local chunks:       §3.3 Property chunk
///          'FS  '  sample rate (4 bytes)       §3.3.1
///          'CHNL'  channel count (2) + IDs     §3.3.2
///          'CMPR'  'DSD ' or 'DST ' + name     §3.3.3
///          'ABSS', 'LSCO'                      §3.3.4–5
///       'DSD '  sound data, or                 §3.4
///       'DST '  DST frames, with 'FRTE' first  §3.5 (frame count 4, frame rate 2)
///       'COMT', 'DIIN' (§3.9: 'DIAR', 'DITI', 'EMID', 'MARK'), 'MANF'
///       'ID3 '  an ID3v2 tag (not in the spec; written by TagLib, mutagen, foobar2000)
///
/// Damage is read around (``DSDIFFChunkWalker``): a FRM8 size that disagrees
/// with the file, a chunk cut by the end of the file. A file that ends inside
/// its sound data is read-only (``isTruncated``).
struct DSDIFFStructure {
    /// The top-level chunks inside FRM8.
    var chunks: [IFFChunk]
    /// The end of FRM8 as read: its declared end, or the end of the last
    /// whole chunk when the file ends earlier. Bytes from here on are kept by
    /// writers.
    var containerEnd: Int64
    /// The sound data chunk ('DSD ' or 'DST '), possibly cut.
    var sound: IFFChunk?
    var isTruncated: Bool
    var sampleRate: UInt32?
    var channelCount: Int?
    /// A chunk other than the sound data whose header is whole but whose
    /// data the end of the file cuts ('PROP' or 'ID3 ' of a cut file; a tag
    /// chunk whose size lies): read as far as the file goes, as mutagen
    /// reads it. Writers keep its bytes (they are after ``containerEnd``).
    var cut: IFFChunk?
    /// 'DSD ' or 'DST ' from 'CMPR'.
    var compression: FourCC?
    /// DST frame count and rate from 'FRTE'.
    var dstFrames: (count: UInt32, rate: UInt16)?
    var warnings: [MediaWarning] = []

    static let formHeaderLength: Int64 = 16

    /// What is wrong with a 'FRM8' size that doesn't fit the file, in the
    /// file's own numbers: the size counts the bytes after its 12-byte header.
    static func formSizeMessage(_ formSize: UInt64, fileSize: Int64) -> String {
        guard formSize >= 4 else { return "the 'FRM8' size \(formSize) is less than its form type's 4 bytes" }
        guard formSize <= UInt64(Int64.max) - 12 else { return "the 'FRM8' size \(formSize) is out of range" }
        let total = Int64(formSize) + 12
        return "the 'FRM8' size \(formSize) makes the file \(total) bytes long, but it has \(fileSize) (\(total - fileSize) bytes missing)"
    }

    func first(_ id: FourCC) -> IFFChunk? { chunks.first { $0.id == id } }
}

extension DSDIFFStructure {
    init(parsing source: FileSource) throws {
        try source.require(0, Self.formHeaderLength, "the DSDIFF 'FRM8' header")
        var header = try source.reader(at: 0, count: Int(Self.formHeaderLength))
        let form = try header.readFourCC()
        let formSize = try header.readUInt64()
        let formType = try header.readFourCC()
        guard form == "FRM8", formType == "DSD " else {
            throw MediaError(.unsupportedFormat, "not a DSDIFF file: no 'FRM8' form of type 'DSD '", offset: 0)
        }
        var warnings: [MediaWarning] = []
        var declaredEnd = source.size
        if formSize < 4 || formSize - 4 > UInt64(source.size - Self.formHeaderLength) {
            warnings.append(
                MediaWarning(.sizeOutOfRange, Self.formSizeMessage(formSize, fileSize: source.size), offset: 4))
        } else {
            declaredEnd = Int64(formSize) + 12
        }
        let walk = try DSDIFFChunkWalker.walk(source, from: Self.formHeaderLength, to: declaredEnd, in: "FRM8")
        warnings += walk.warnings
        var chunks = walk.chunks
        var isTruncated = false
        var containerEnd = declaredEnd
        var cutChunk: IFFChunk?
        if let cut = walk.cut {
            if cut.id == "DSD " || cut.id == "DST " {
                isTruncated = true
                chunks.append(cut)
            } else {
                cutChunk = cut
            }
            containerEnd = walk.end
        }
        var structure = DSDIFFStructure(
            chunks: chunks, containerEnd: containerEnd, sound: chunks.first { $0.id == "DSD " || $0.id == "DST " },
            isTruncated: isTruncated, cut: cutChunk, warnings: warnings)
        try structure.readProperties(source)
        structure.warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        self = structure
    }

    /// Reads 'PROP' ('FS  ', 'CHNL', 'CMPR') and a DST chunk's 'FRTE'.
    private mutating func readProperties(_ source: FileSource) throws {
        guard let prop = first("PROP") ?? cut.flatMap({ $0.id == "PROP" ? $0 : nil }), prop.size >= 4,
            source.size - prop.payloadOffset >= 4
        else {
            warnings.append(MediaWarning(.malformed, "the DSDIFF file has no 'PROP' chunk; its properties are unknown", offset: 16))
            return
        }
        guard try source.getBytes(at: prop.payloadOffset, count: 4).elementsEqual("SND ".utf8) else {
            warnings.append(MediaWarning(.malformed, "the 'PROP' chunk is not of type 'SND '", offset: prop.payloadOffset))
            return
        }
        let local = try DSDIFFChunkWalker.walk(source, from: prop.payloadOffset + 4, to: prop.payloadEnd(atMost: source.size), in: "PROP")
        warnings += local.warnings
        var readable = local.chunks
        // A chunk the end of 'PROP' or of the file cuts: its leading fields where their bytes are
        // there (a cut file's channel count, as mutagen reads it).
        if var cut = local.cut {
            cut.size = max(0, prop.payloadEnd(atMost: source.size) - cut.payloadOffset)
            readable.append(cut)
        }
        for chunk in readable {
            switch chunk.id {
            case "FS  " where chunk.size >= 4:
                var reader = try source.reader(at: chunk.payloadOffset, count: 4)
                sampleRate = try reader.readUInt32()
            case "CHNL" where chunk.size >= 2:
                var reader = try source.reader(at: chunk.payloadOffset, count: 2)
                channelCount = Int(try reader.readUInt16())
            case "CMPR" where chunk.size >= 4:
                var reader = try source.reader(at: chunk.payloadOffset, count: 4)
                compression = try reader.readFourCC()
            default: break
            }
        }
        if let sound, sound.id == "DST ", !isTruncated {
            let frames = try DSDIFFChunkWalker.walk(source, from: sound.payloadOffset, to: sound.payloadEnd, in: "DST ")
            if let frte = frames.chunks.first, frte.id == "FRTE", frte.size >= 6 {
                var reader = try source.reader(at: frte.payloadOffset, count: 6)
                dstFrames = (try reader.readUInt32(), try reader.readUInt16())
            }
        }
    }

    /// Rate, channels, bits (1), codec ('CMPR': "DSD" or "DST"), duration and
    /// bit rate. DSD: duration = sound bytes × 8 / channels / rate (§3.4: one
    /// bit per sample, channel bytes interleaved), bit rate = channels × rate.
    /// DST: duration = 'FRTE' frame count / frame rate, bit rate = the DST
    /// chunk's bytes × 8 / duration.
    var properties: MediaProperties {
        var properties = MediaProperties()
        properties.codec = compression == "DST " ? "DST" : "DSD"
        properties.sampleRate = sampleRate.map(Int.init)
        properties.channels = channelCount
        properties.bitsPerSample = 1
        if compression == "DST " {
            if let dstFrames, dstFrames.rate > 0 {
                let duration = Double(dstFrames.count) / Double(dstFrames.rate)
                properties.duration = duration
                let bitrate = (Double(sound?.size ?? 0) * 8 / duration).rounded()
                if duration > 0, bitrate < 1e15 { properties.bitrate = Int(bitrate) }
            }
        } else if let rate = sampleRate, rate > 0, let channels = channelCount, channels > 0 {
            properties.bitrate = channels * Int(rate)
            if let sound, sound.id == "DSD " {
                properties.duration = Double(sound.size) * 8 / Double(channels) / Double(rate)
            }
        }
        return properties
    }
}
