#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads Ogg files (RFC 3533): the tags and properties of the main logical
/// stream (``OggHeaderScan``, as `mutagen.File` chooses): a Theora stream
/// whose first page starts the file (or follows one short audio first page,
/// within the first 128 bytes); else the first Vorbis, Opus, Speex or FLAC
/// stream (others, e.g. a second audio stream, are listed, not read as the
/// main one); in a file without one, its first Theora stream.
///
/// - Theora (``TheoraIdentification``): the comment header "\x81theora" +
///   comment without framing bit (Theora I §6.3); picture size and nominal
///   bit rate from the identification header; the duration from the last
///   granule position (frames) over the frame rate. Beside the audio
///   streams of a Theora-first file the Theora comment is the file's tags
///   and the audio streams' comments are `ogg-stream` items (`Vorbis/TITLE`);
///   beside an audio main stream the Theora stream adds the picture size,
///   its comment is an `ogg-stream` item (`Theora/TITLE`); either way every
///   stream is in ``MediaProperties/streams``.
/// - Other logical streams (``OggLogicalStreams``): a file of more than one
///   stream lists them all in ``MediaProperties/streams`` (codec, sample
///   rate, channels, picture size; the serial number as the uid), in the
///   order of their first pages; the comments of streams other than the one
///   that gives the tags are items in the `ogg-stream` key space
///   (``MetadataKeySpace/oggStream``), read only.
/// - Chained files (links one after another, RFC 3533 §4): the first link's
///   streams give the tags and properties; the duration comes from the last
///   page in the file's last MiB with the main stream's serial number (else
///   the last such page of the whole file, walking the page headers) — the
///   first link's end when later links have other serial numbers, the last
///   link's when it reuses the number (the page mutagen reads too); links
///   are not summed.
///
/// - Tags: the stream's Vorbis comment (``VorbisComment``) from its comment
///   packet — Vorbis "\x03vorbis" + comment + framing bit (Vorbis I §5.2),
///   Opus "OpusTags" + comment (RFC 7845 §5.2), Speex's second packet, the
///   VORBIS_COMMENT block packet of FLAC-in-Ogg (RFC 9639 §10.1). Pictures are
///   `METADATA_BLOCK_PICTURE` fields (base64 FLAC PICTURE blocks) or, in
///   FLAC-in-Ogg, PICTURE block packets; they are held in memory, as their
///   bytes are not contiguous in the file.
/// - Properties: channels and sample rate from the id header, the duration
///   from the granule position of the stream's last page (found by reading
///   backwards from the end of the file, at most 1 MiB) — for Opus minus the
///   pre-skip, at 48 kHz (RFC 7845 §4). Opus reports 48000 Hz (the rate it
///   decodes at) as the sample rate; the encoder's input rate is not a
///   property. Bit rate: Vorbis's nominal rate or Speex's rate when set, else
///   the file's size over the duration.
/// - File type: `ogg` (`audio/ogg`) for every codec; ``MediaProperties/codec``
///   tells `Vorbis`, `Opus`, `Speex` or `FLAC`.
/// - Damage (``ParsedFile/warnings``): junk or damaged pages between pages
///   are skipped to the next good page (``OggResync``); header packets that
///   end early (the file ends, a page is missing) give the codec, the
///   properties and the tags read so far; a comment that claims more or
///   longer fields than fit gives the fields that fit. A file with damaged
///   or incomplete header packets is not editable; junk between pages alone
///   is kept byte for byte by a save.
enum OggParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let scan = try OggHeaderScan.read(source)
        let (items, location, damage) = try comment(of: scan)
        var properties = try properties(of: scan)
        let link = OggLogicalStreams.read(source, main: scan, properties: properties)
        if let video = scan.video { OggTheora.addVideo(video, to: &properties) }
        if link.streams.count > 1 { properties.streams = link.streams }
        // A video stream whose first page follows the audio stream's (the scan stops looking at first pages then).
        if properties.width == nil, let video = link.streams.first(where: { $0.mediaType == .video }) {
            properties.width = video.width
            properties.height = video.height
        }
        var lastWarnings: [MediaWarning] = []
        let found = try OggHeaderScan.lastGranule(of: scan.serial, in: source, after: scan.end)
        var last = found?.granule
        if let damaged = found?.wrongChecksumAt {
            lastWarnings.append(
                MediaWarning(
                    .malformed, "the stream's last page has a wrong CRC; its granule position gives the duration (as mutagen reads it)",
                    offset: damaged))
        }
        // Not in the last MiB: when the file ends with another stream's page
        // (a later link of a chained file, a longer video), walk the pages.
        if last == nil, source.size - scan.end > 1 << 20,
            let end = try OggHeaderScan.lastPage(in: source, after: scan.end, limit: 64 * 1024, maximumChecks: 16),
            end.serial != scan.serial
        {
            last = try OggHeaderScan.lastGranuleWalking(of: scan.serial, in: source, from: scan.end)
        }
        if let granule = last {
            properties.duration = duration(granule: granule, scan: scan, properties: properties)
        }
        if properties.bitrate == nil, let duration = properties.duration, duration > 0 {
            properties.bitrate = Int((Double(source.size - scan.end) * 8 / duration).rounded())
        }
        // The writer needs whole, undamaged header packets and the audio to
        // start on a fresh page (see OggEditPlanner); junk between pages is kept.
        let isEditable =
            scan.isComplete && scan.endsOnPageBoundary && damage.isEmpty && location != nil && scan.wrongChecksums.isEmpty
        let warnings = (scan.warnings + damage + link.warnings + lastWarnings).sorted { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(
            fileType: .ogg, items: items + link.items, properties: properties, isEditable: isEditable, warnings: warnings,
            chapterTables: VorbisChapters.tables(from: items, duration: properties.duration))
    }

    /// Where the comment is: the packet index, the bytes before and after the
    /// comment in that packet, and whether it ends with a framing bit.
    struct CommentLocation {
        var packet: Int
        var prefix: [UInt8]
        var comment: VorbisComment
        var suffix: [UInt8]
        var framingBit: Bool
    }

    /// The comment and pictures of the stream as items, with where the comment
    /// is and the damage read around in the header packets: a comment that
    /// claims more or longer fields than its packet holds (the fields that fit
    /// are read), a comment packet that doesn't start as it should, FLAC-in-Ogg
    /// blocks longer than their packet or pictures that don't parse. Warnings
    /// name the file offset of the problem (mapped from the reassembled packet).
    static func comment(of scan: OggHeaderScan) throws -> (items: [MetadataItem], location: CommentLocation?, warnings: [MediaWarning]) {
        var warnings: [MediaWarning] = []
        func warn(_ code: MediaError.Code, _ message: String, packet: Int, position: Int64) {
            let offset =
                scan.fileOffset(packet: packet, position: position) ?? scan.packetOffsets[min(packet, scan.packetOffsets.count - 1)]
            warnings.append(
                MediaWarning(code, "\(message) (in header packet \(packet) of the \(scan.codec.rawValue) stream)", offset: offset))
        }
        func mapped(_ comment: VorbisComment, packet: Int) {
            for warning in comment.warnings { warn(warning.code, warning.message, packet: packet, position: warning.offset ?? 0) }
        }
        switch scan.codec {
        case .vorbis, .opus, .speex, .theora:
            guard scan.packets.count > 1 else { return ([], nil, []) } // the scan warned
            let packet = scan.packets[1]
            let prefix: [UInt8] =
                switch scan.codec {
                case .vorbis: [3] + Array("vorbis".utf8)
                case .opus: Array("OpusTags".utf8)
                case .theora: [0x81] + Array("theora".utf8)
                default: []
                }
            guard packet.starts(with: prefix) else {
                warn(.malformed, "the comment packet does not start as it should; no tags read", packet: 1, position: 0)
                return ([], nil, warnings)
            }
            var reader = ByteReader(storage: packet, position: prefix.count, end: packet.count, base: 0)
            let framing = scan.codec == .vorbis
            guard let comment = try? VorbisComment(parsing: &reader, framingBit: framing, forgiving: true) else {
                warn(.truncated, "the comment packet ends before its vendor length; no tags read", packet: 1, position: 0)
                return ([], nil, warnings)
            }
            mapped(comment, packet: 1)
            let location = CommentLocation(
                packet: 1, prefix: prefix, comment: comment, suffix: reader.readRemainingBytes(), framingBit: framing)
            return (comment.items(), location, warnings)
        case .flac:
            var fields: [MetadataItem] = [], pictures: [MetadataItem] = []
            var location: CommentLocation?
            for (index, packet) in scan.packets.enumerated().dropFirst() {
                var reader = ByteReader(packet)
                guard packet.count >= 4 else {
                    warn(.truncated, "a FLAC metadata block packet of \(packet.count) bytes", packet: index, position: 0)
                    continue
                }
                let type = try reader.readUInt8() & 0x7F
                var length = Int(try reader.readUInt24())
                if length > reader.remaining {
                    warn(
                        .sizeOutOfRange,
                        "FLAC metadata block of \(length) bytes in a \(packet.count)-byte packet; reading the "
                            + "\(reader.remaining) there are", packet: index, position: 1)
                    length = reader.remaining
                }
                var body = try reader.readReader(count: length)
                if type == FLACBlock.Kind.vorbisComment.rawValue {
                    guard let comment = try? VorbisComment(parsing: &body, framingBit: false, forgiving: true) else {
                        warn(.truncated, "a VORBIS_COMMENT block too short for its vendor length", packet: index, position: 4)
                        continue
                    }
                    mapped(comment, packet: index)
                    fields += comment.items()
                    if location == nil {
                        location = CommentLocation(
                            packet: index, prefix: Array(packet[..<4]), comment: comment, suffix: [], framingBit: false)
                    }
                } else if type == FLACBlock.Kind.picture.rawValue {
                    do {
                        let artwork = try FLACPicture(parsing: &body).artwork()
                        pictures.append(
                            MetadataItem(
                                keySpace: .vorbis, key: VorbisComment.pictureKey, value: .picture(artwork),
                                dataType: FLACPicture.dataType(of: artwork)))
                    } catch let error as MediaError {
                        warn(
                            error.code, "a PICTURE block that doesn't parse (\(error.reason)); skipped", packet: index,
                            position: error.offset ?? 4)
                    }
                }
            }
            return (FLACParser.merged(fields + pictures), location, warnings)
        }
    }

    /// Properties from the id header.
    static func properties(of scan: OggHeaderScan) throws -> MediaProperties {
        var properties = MediaProperties()
        properties.codec = scan.codec.rawValue
        var reader = ByteReader(scan.packets[0])
        switch scan.codec {
        case .vorbis:
            // "\x01vorbis", version u32, channels u8, rate u32, bitrate max/nominal/min i32 (Vorbis I §4.2.2), LE.
            try reader.skip(7)
            guard try reader.readUInt32(.little) == 0 else {
                throw MediaError(.unsupportedFeature, "Vorbis version is not 0")
            }
            properties.channels = Int(try reader.readUInt8())
            properties.sampleRate = Int(try reader.readUInt32(.little))
            try reader.skip(4)
            let nominal = try reader.readInt32(.little)
            if nominal > 0 { properties.bitrate = Int(nominal) }
        case .opus:
            // "OpusHead", version u8, channels u8, pre-skip u16, input rate u32, gain i16, mapping u8 (RFC 7845 §5.1), LE.
            try reader.skip(9)
            properties.channels = Int(try reader.readUInt8())
            properties.sampleRate = 48000
            // The output gain, Q7.8 dB; a header cut before it has none.
            let head = scan.packets[0]
            if head.count >= 18 {
                let gain = Int16(bitPattern: UInt16(head[head.startIndex + 16]) | UInt16(head[head.startIndex + 17]) << 8)
                properties.opusOutputGain = Double(gain) / 256
            }
        case .speex:
            // "Speex   ", version[20], version id, header size, rate, mode, mode version, channels, bitrate (u32 LE each).
            try reader.skip(36)
            properties.sampleRate = Int(try reader.readUInt32(.little))
            try reader.skip(8)
            properties.channels = Int(try reader.readUInt32(.little))
            let bitrate = try reader.readInt32(.little)
            if bitrate > 0 { properties.bitrate = Int(bitrate) }
        case .flac:
            // 0x7F "FLAC", version (2), header count (2), "fLaC", STREAMINFO block header (4) and body (34).
            try reader.skip(9)
            guard try reader.readBytes(4) == Array("fLaC".utf8) else {
                throw MediaError(.malformed, "FLAC-in-Ogg first packet without 'fLaC'")
            }
            try reader.skip(4)
            var body = try reader.readReader(count: 34)
            let info = try FLACStreamInfo(parsing: &body)
            properties = info.properties(audioBytes: nil)
        case .theora:
            properties = try OggTheora.properties(idHeader: scan.packets[0])
        }
        if let rate = properties.sampleRate, rate <= 0 { properties.sampleRate = nil }
        return properties
    }

    /// Seconds from a granule position (samples; for Opus 48 kHz samples after the pre-skip).
    static func duration(granule: UInt64, scan: OggHeaderScan, properties: MediaProperties) -> Double? {
        guard granule < 1 << 62 else { return nil }
        if scan.codec == .opus {
            let preSkip = scan.packets[0].count >= 12 ? UInt64(scan.packets[0][10]) | UInt64(scan.packets[0][11]) << 8 : 0
            return Double(granule > preSkip ? granule - preSkip : 0) / 48000
        }
        if scan.codec == .flac, let duration = properties.duration { return duration }
        if scan.codec == .theora { return try? TheoraIdentification(parsing: scan.packets[0]).duration(granule: granule) }
        guard let rate = properties.sampleRate, rate > 0 else { return nil }
        return Double(granule) / Double(rate)
    }
}
