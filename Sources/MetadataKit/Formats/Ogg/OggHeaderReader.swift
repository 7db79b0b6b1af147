#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One pass of ``OggHeaderScan/read(_:video:serial:pageLimit:leading:)``
/// over the pages from the start of the file: the first (BOS) pages are
/// listed until the stream to read is chosen, then that stream's pages are
/// taken apart into its header packets (``HeaderPackets``) until it has
/// them all, the file or the page limit ends, or a page of it is missing.
struct OggHeaderReader {
    let source: FileSource
    /// Whether a Theora stream may be the main stream (the second pass over a file with no audio stream).
    let video: Bool
    /// The serial number of the stream asked for; nil for the main stream.
    let wanted: UInt32?
    /// Most pages read before giving up (as headers that end early).
    let pageLimit: Int

    /// Every good page read so far.
    private var pages: [OggPage] = []
    private var gaps: [OggResync.Gap] = []
    private var warnings: [MediaWarning] = []
    /// Offsets of header pages read although their CRC is wrong.
    private var wrongChecksums: [Int64] = []
    /// Where the next page is looked for.
    private var offset: Int64 = 0
    /// The first Theora stream's identification header, seen while listing the streams.
    private var videoHeader: OggVideoHeader?
    /// The stream whose headers are read, once its first page is read.
    private var chosen: (serial: UInt32, codec: OggCodec)?
    /// The sequence number of the chosen stream's last page.
    private var lastSequence: UInt32 = 0
    /// Whether a page of the chosen stream other than its first was read.
    private var hasLaterPages = false
    /// Indices in ``pages`` of the chosen stream's pages.
    private var headerPages: [Int] = []
    /// How many header packets the stream has; 0 for a FLAC stream that
    /// doesn't say (until the block with the last-block flag).
    private var needed = 2
    private var headers = HeaderPackets()

    init(source: FileSource, video: Bool, wanted: UInt32?, pageLimit: Int) {
        self.source = source
        self.video = video
        self.wanted = wanted
        self.pageLimit = pageLimit
    }

    /// Reads pages until the scan is done (see the type's documentation).
    mutating func read() throws -> OggHeaderScan {
        while true {
            guard offset < source.size, pages.count < pageLimit else {
                guard chosen != nil else { return try noStream(at: 0) }
                guard offset < source.size else { return early("the file ends", at: offset) }
                return early("no more than \(pageLimit) pages are read for it", at: offset)
            }
            let (found, body) = try nextPage()
            guard let page = found else {
                guard chosen != nil else { return try noStream(at: 0) }
                return early("the file ends", at: source.size)
            }
            pages.append(page)
            offset = page.end
            guard let chosen else {
                guard page.isBeginning else { return try noStream(at: page.offset) }
                try listStream(page, body: body)
                continue
            }
            guard page.serial == chosen.serial else { continue }
            if let scan = try takeHeaderPage(page, body: body, codec: chosen.codec) { return scan }
        }
    }

    /// The page at ``offset`` and its body when it was read: the file's first
    /// page strictly (there is no stream to resynchronise in before it),
    /// later ones past junk and damaged pages (``OggResync``), with warnings.
    private mutating func nextPage() throws -> (page: OggPage?, body: [UInt8]?) {
        if pages.isEmpty {
            guard let first = try OggPage.read(from: source, at: offset) else {
                throw MediaError(.unsupportedFormat, "no Ogg page at the start of the file", offset: offset)
            }
            let body = try source.getBytes(at: first.bodyOffset, count: first.bodyLength)
            if OggCRC.checksum(of: first, body: body) != first.checksum {
                warnings.append(MediaWarning(.malformed, "the first Ogg page's CRC is wrong; read anyway", offset: offset))
            }
            return (first, body)
        }
        // A whole page whose CRC is wrong is read anyway (as mutagen and TagLib
        // do) when it is the page the scan waits for: a first page while the
        // streams are listed, or the next page in sequence of the chosen stream.
        let (chosenSerial, next) = (chosen?.serial, lastSequence &+ 1)
        let read = try OggResync.page(at: offset, in: source) { page in
            guard let chosenSerial else { return page.isBeginning }
            return page.serial == chosenSerial && !page.isBeginning && page.sequence == next
        }
        if read.wrongChecksum {
            wrongChecksums.append(offset)
            warnings.append(
                MediaWarning(
                    .malformed,
                    "an Ogg header page whose CRC is wrong, read anyway (as mutagen and TagLib do); "
                        + "a save is refused", offset: offset))
        }
        if let gap = read.gap {
            gaps.append(gap)
            warnings.append(
                MediaWarning(
                    .malformed,
                    "\(gap.length) bytes of \(gap.reason) between pages skipped"
                        + (read.page == nil ? " (to the end of the file)" : ", read on at the next page"), offset: gap.offset))
        }
        return (read.page, read.body)
    }

    /// A first (BOS) page while no stream is chosen: chooses its stream when
    /// it is the one wanted, or the first audio stream (a Theora stream's
    /// identification header is kept as ``videoHeader`` instead).
    private mutating func listStream(_ page: OggPage, body readBody: [UInt8]?) throws {
        guard pages.count <= OggHeaderScan.maximumStreams else {
            throw MediaError(.sizeOutOfRange, "more than \(OggHeaderScan.maximumStreams) logical streams", offset: page.offset)
        }
        let body = try readBody ?? source.getBytes(at: page.bodyOffset, count: page.bodyLength)
        if let wanted, page.serial != wanted { return }
        guard let codec = OggCodec(firstPacket: body), let first = page.segments.firstIndex(where: { $0 < 255 }) else { return }
        let length = page.segments[...first].reduce(0) { $0 + Int($1) }
        if codec == .theora, !video, wanted == nil {
            if videoHeader == nil { videoHeader = OggVideoHeader(serial: page.serial, packet: Array(body[..<length])) }
            return
        }
        guard first == page.segments.count - 1 else {
            throw MediaError(
                .malformed, "the first page of a \(codec.rawValue) stream holds more than its first packet", offset: page.offset)
        }
        chosen = (page.serial, codec)
        headers = HeaderPackets(first: Array(body[..<length]), at: page.bodyOffset, pageOffset: page.offset)
        headerPages = [pages.count - 1]
        lastSequence = page.sequence
        needed = try Self.neededPackets(codec: codec, firstPacket: headers.packets[0])
    }

    /// A later page of the chosen stream: its lacing values add to the header
    /// packets. The scan when that completes them, nil to read on.
    private mutating func takeHeaderPage(_ page: OggPage, body readBody: [UInt8]?, codec: OggCodec) throws -> OggHeaderScan? {
        hasLaterPages = true
        guard !page.isBeginning else { throw MediaError(.malformed, "a second first page for one stream", offset: page.offset) }
        guard page.sequence == lastSequence &+ 1 else {
            pages.removeLast()
            return early("page \(lastSequence &+ 1) of the stream is missing (page \(page.sequence) follows)", at: page.offset)
        }
        lastSequence = page.sequence
        headerPages.append(pages.count - 1)
        let body = try readBody ?? source.getBytes(at: page.bodyOffset, count: page.bodyLength)
        var position = 0
        for (index, lace) in page.segments.enumerated() {
            try headers.append(body[position..<position + Int(lace)], at: page.bodyOffset + Int64(position), pageOffset: page.offset)
            position += Int(lace)
            guard lace < 255 else { continue }
            headers.endPacket()
            let packets = headers.packets
            if codec == .flac, packets.count > 1, needed == 0, let first = packets.last?.first, first & 0x80 != 0 {
                needed = packets.count // header count 0 ("unknown"): the block with the last-block flag ends them
            }
            if needed > 0 && packets.count == needed {
                return scan(endsOnPageBoundary: index == page.segments.count - 1, isComplete: true)
            }
        }
        return nil
    }

    /// No audio stream: read again with the video stream as the main one.
    private func noStream(at position: Int64) throws -> OggHeaderScan {
        guard !video, wanted == nil, videoHeader != nil else {
            throw MediaError(.unsupportedFormat, "no Vorbis, Opus, Speex, FLAC or Theora stream in this Ogg file", offset: position)
        }
        return try OggHeaderScan.read(source, video: true)
    }

    /// The headers read so far (the packet cut short included), incomplete, with a warning saying `why`.
    private mutating func early(_ why: String, at position: Int64) -> OggHeaderScan {
        let codec = chosen!.codec
        let cut = headers.endCutPacket()
        let count = needed > 0 ? "\(needed)" : "its"
        warnings.append(
            MediaWarning(
                .truncated,
                "\(why) after \(headers.packets.count - (cut ? 1 : 0)) of \(count) header packets "
                    + "of the \(codec.rawValue) stream\(cut ? ", inside the next one" : ""); "
                    + "what was read is reported", offset: position))
        return scan(endsOnPageBoundary: false, isComplete: false)
    }

    private func scan(endsOnPageBoundary: Bool, isComplete: Bool) -> OggHeaderScan {
        OggHeaderScan(
            pages: pages, serial: chosen!.serial, codec: chosen!.codec, packets: headers.packets, headerPages: headerPages,
            packetOffsets: headers.packetOffsets, packetSpans: headers.spans, endsOnPageBoundary: endsOnPageBoundary,
            isComplete: isComplete, gaps: gaps, warnings: warnings, video: videoHeader, hasLaterPages: hasLaterPages,
            wrongChecksums: wrongChecksums)
    }

    /// How many header packets `codec` has; 0 for a FLAC stream that doesn't say.
    private static func neededPackets(codec: OggCodec, firstPacket: [UInt8]) throws -> Int {
        switch codec {
        case .vorbis, .theora: return 3 // id, comment, setup (Vorbis I §4.2.1, Theora I §6.1)
        case .opus: return 2 // OpusHead, OpusTags (RFC 7845 §3)
        case .speex:
            // Header packet, comment packet, then `extra_headers` more (field at byte 68, LE).
            var reader = ByteReader(firstPacket)
            try reader.skip(68)
            let extra = Int(try reader.readUInt32(.little))
            guard extra <= 16 else { throw MediaError(.sizeOutOfRange, "Speex header announces \(extra) extra headers") }
            return 2 + extra
        case .flac:
            // 0x7F "FLAC", major, minor, number of header packets after this one (u16 BE).
            var reader = ByteReader(firstPacket)
            try reader.skip(7)
            let count = Int(try reader.readUInt16())
            return count == 0 ? 0 : 1 + count
        }
    }
}

/// The header packets of a stream being put together from the lacing
/// values of its pages: the whole ones, where their bytes are in the file,
/// and the one in progress.
private struct HeaderPackets {
    /// The whole packets, in order.
    private(set) var packets: [[UInt8]] = []
    /// For each packet, where its bytes are in the file, in order.
    private(set) var spans: [[(offset: Int64, count: Int)]] = []
    /// For each packet (and the one in progress), the offset of the page where it starts.
    private(set) var packetOffsets: [Int64] = []
    private var partial = PacketPieces()
    private var partialSpans: [(offset: Int64, count: Int)] = []
    /// Bytes of all the packets, bounded by ``OggHeaderScan/maximumHeaderBytes``.
    private var total = 0

    init() {}

    /// The stream's first packet, whole on its first page.
    init(first packet: [UInt8], at fileOffset: Int64, pageOffset: Int64) {
        packets = [packet]
        spans = [[(fileOffset, packet.count)]]
        packetOffsets = [pageOffset]
        total = packet.count
    }

    /// Adds the bytes of one lacing value (at `fileOffset`, on the page at `pageOffset`) to the packet in progress.
    mutating func append(_ bytes: ArraySlice<UInt8>, at fileOffset: Int64, pageOffset: Int64) throws {
        if partial.isEmpty && packetOffsets.count == packets.count { packetOffsets.append(pageOffset) }
        partial.append(bytes)
        if !bytes.isEmpty {
            if let last = partialSpans.last, last.offset + Int64(last.count) == fileOffset {
                partialSpans[partialSpans.count - 1].count += bytes.count
            } else {
                partialSpans.append((fileOffset, bytes.count))
            }
        }
        total += bytes.count
        guard total <= OggHeaderScan.maximumHeaderBytes else {
            throw MediaError(
                .sizeOutOfRange, "Ogg header packets larger than \(OggHeaderScan.maximumHeaderBytes >> 20) MiB", offset: pageOffset)
        }
    }

    /// Ends the packet in progress (a lacing value below 255).
    mutating func endPacket() {
        packets.append(partial.joined)
        spans.append(partialSpans)
        partial = PacketPieces()
        partialSpans = []
    }

    /// Ends the packet in progress where the headers end early; whether there was one (cut short).
    mutating func endCutPacket() -> Bool {
        guard !partial.isEmpty else { return false }
        endPacket()
        return true
    }
}

/// A packet being put together from the pages it spans: slices of their
/// bodies, joined once at its end (appending page after page would copy a
/// packet of tens of kilobytes, a cover, again each time the array grows).
private struct PacketPieces {
    private var pieces: [ArraySlice<UInt8>] = []
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        pieces.append(bytes)
        count += bytes.count
    }

    var joined: [UInt8] {
        var packet: [UInt8] = []
        packet.reserveCapacity(count)
        for piece in pieces { packet += piece }
        return packet
    }
}
