#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The codecs whose tags MetadataKit reads in Ogg, told apart by the first
/// packet of their logical stream.
enum OggCodec: String, Sendable {
    /// "\x01vorbis" (Vorbis I §4.2.2).
    case vorbis = "Vorbis"
    /// "OpusHead" (RFC 7845 §5.1).
    case opus = "Opus"
    /// "Speex   " (Speex manual, "Ogg file format").
    case speex = "Speex"
    /// "\x7FFLAC" (FLAC-in-Ogg mapping, RFC 9639 §10.1).
    case flac = "FLAC"
    /// "\x80theora" (Theora I specification §6.2), a whole 42-byte header.
    case theora = "Theora"

    init?(firstPacket packet: [UInt8]) {
        if packet.starts(with: [1] + Array("vorbis".utf8)) {
            self = .vorbis
        } else if packet.starts(with: Array("OpusHead".utf8)) {
            self = .opus
        } else if packet.starts(with: Array("Speex   ".utf8)) {
            self = .speex
        } else if packet.starts(with: [0x7F] + Array("FLAC".utf8)) {
            self = .flac
        } else if packet.starts(with: TheoraIdentification.magic), packet.count >= TheoraIdentification.length {
            self = .theora
        } else {
            return nil
        }
    }
}

/// The start of an Ogg file, read page by page until the header packets of
/// its first Vorbis, Opus, Speex or FLAC stream are complete (RFC 3533 §4:
/// all first pages come first, then the streams' further header pages).
///
/// The main stream (whose comment is the file's tags, written by a save, and
/// whose granule positions give the duration) is chosen as `mutagen.File`
/// chooses its class, which scores the first 128 bytes of the file:
/// - a Theora stream whose first page's identification header ("\x80theora")
///   lies within the file's first ``mutagenWindow`` bytes is the main stream
///   (``leadingTheora(in:)``): always when it is the file's first stream,
///   and when it follows one short first page — a Vorbis (30-byte), Opus
///   (19-byte) or FLAC (51-byte) identification packet, or an Ogg Skeleton
///   3.0 `fishead` (64 bytes). Its comment is the tags; the audio streams
///   are listed in ``MediaProperties/streams`` and their comments are
///   `ogg-stream` items (``OggLogicalStreams``);
/// - else the first Vorbis, Opus, Speex or FLAC stream (e.g. a Speex stream
///   before the video, whose 80-byte header pushes the Theora page past 128
///   bytes, or a Skeleton 4.0 stream and an audio stream before it); a
///   Theora stream beside it has its identification header kept in
///   ``video``;
/// - a file with neither: its first Theora stream (read again, `video: true`).
///
/// A leading Theora stream that has no page after its first one (in the file,
/// or in ``leadingPageLimit`` pages) gives way to an audio stream whose header
/// packets are whole (`mutagen.File` refuses such files); one whose later
/// pages are damaged (a wrong CRC, a page missing) stays the main stream,
/// read only (`mutagen.File` reads its pages without checking them).
///
/// Forgiving: junk or a damaged page (wrong CRC, a header cut short) between
/// pages is skipped up to the next good page (``OggResync``) and reported in
/// ``warnings`` and ``gaps``; a stream whose header packets end early (the
/// file ends, or a page of the stream is missing) gives the packets read so
/// far (the last one possibly cut short), ``isComplete`` false and a warning.
struct OggHeaderScan: Sendable {
    /// Every good page from the start of the file through the last header page of ``serial``.
    var pages: [OggPage]
    var serial: UInt32
    var codec: OggCodec
    /// The stream's header packets, in order (id header, comment, …).
    var packets: [[UInt8]]
    /// Indices in ``pages`` of the stream's pages that hold header packets.
    var headerPages: [Int]
    /// For each of ``packets``, the file offset of the page where it starts (for error messages).
    var packetOffsets: [Int64]
    /// For each of ``packets``, where its bytes are in the file, in order.
    var packetSpans: [[(offset: Int64, count: Int)]]
    /// Whether the last header packet ends its page (the audio starts on a fresh page).
    var endsOnPageBoundary: Bool
    /// Whether every header packet was read whole.
    var isComplete = true
    /// Bytes skipped between the pages (junk, damaged pages).
    var gaps: [OggResync.Gap] = []
    /// What was read around.
    var warnings: [MediaWarning] = []
    /// The first Theora stream's identification header, when the main stream is an audio stream.
    var video: OggVideoHeader?
    /// Whether a page of the stream other than its first was read (for headers that end early).
    var hasLaterPages = true
    /// Where header pages whose CRC is wrong were read anyway (their
    /// structure whole and in sequence, as mutagen and TagLib read them,
    /// which check no CRC): the file reads, a save is refused.
    var wrongChecksums: [Int64] = []

    /// How many bytes at the start of the file `mutagen.File` looks at to choose the class (`OggTheora` scores 2
    /// when "\x80theora" is among them, more than any Ogg audio class but `OggFLAC`, which it beats on the name).
    static let mutagenWindow: Int64 = 128

    /// The serial number of the Theora stream that is the file's main stream
    /// when the file has audio streams too: the first pages (BOS) of the file
    /// are read in turn while they start in the first ``mutagenWindow`` bytes;
    /// the first one that holds a whole Theora identification header whose
    /// "\x80theora" marker ends within those bytes is it. Nil otherwise (and
    /// for a file whose first pages don't read: the scan reports that).
    static func leadingTheora(in source: FileSource) -> UInt32? {
        var offset: Int64 = 0
        let marker = Int64(TheoraIdentification.magic.count)
        while offset + Int64(OggPage.fixedHeaderLength) + 1 + marker <= mutagenWindow {
            guard let page = try? OggPage.read(from: source, at: offset), page.isBeginning else { return nil }
            if page.bodyOffset + marker <= mutagenWindow, let body = try? source.getBytes(at: page.bodyOffset, count: page.bodyLength),
                OggCodec(firstPacket: body) == .theora
            {
                return page.serial
            }
            offset = page.end
        }
        return nil
    }

    /// Most pages read for a leading Theora stream's headers (other streams' header pages may come between them).
    static let leadingPageLimit = 1 << 13

    /// Largest total size of the header packets read (pictures live in the comment).
    static let maximumHeaderBytes = 128 << 20
    /// Most first (BOS) pages, i.e. multiplexed streams, looked at.
    static let maximumStreams = 64

    var end: Int64 { max(pages.last?.end ?? 0, gaps.last?.end ?? 0) }

    /// The file offset of byte `position` of header packet `packet` (nil when out of range).
    func fileOffset(packet: Int, position: Int64) -> Int64? {
        guard packet < packetSpans.count, position >= 0 else { return nil }
        var left = position
        for span in packetSpans[packet] {
            if left < Int64(span.count) { return span.offset + left }
            left -= Int64(span.count)
        }
        return left == 0 ? packetSpans[packet].last.map { $0.offset + Int64($0.count) } : nil
    }

    /// Reads the header packets of the file's main stream (see the type's
    /// documentation; a leading Theora stream is read as `serial`), or with `serial` those of that logical stream of the
    /// first link, whatever its codec, giving up (as headers that end early)
    /// after `pageLimit` pages.
    static func read(
        _ source: FileSource, video: Bool = false, serial wanted: UInt32? = nil, pageLimit: Int = .max, leading: Bool = true
    ) throws -> OggHeaderScan {
        // A Theora stream at the start of the file is the main one (see the type's documentation) ...
        if leading, !video, wanted == nil, let theora = leadingTheora(in: source) {
            let scan = try read(source, serial: theora, pageLimit: leadingPageLimit)
            // ... unless it has no page after its first, where an audio stream's headers are whole (mutagen refuses those).
            guard !scan.isComplete, !scan.hasLaterPages, let audio = try? read(source, leading: false), audio.isComplete,
                audio.codec != .theora
            else {
                return scan
            }
            return audio
        }
        var reader = OggHeaderReader(source: source, video: video, wanted: wanted, pageLimit: pageLimit)
        return try reader.read()
    }

    /// The granule position of the stream's last page that has one, searched
    /// backwards from the end of the file (at most `limit` bytes back, pages
    /// whose CRC is right, and at most `maximumChecks` CRCs are computed, so
    /// a file full of fake page headers can't make it slow). Nil when none
    /// is found.
    ///
    /// A page of the stream after that one whose CRC is wrong (its bytes
    /// damaged) gives the granule instead, as mutagen reads it, when it is
    /// the next page in sequence and its granule goes on at most eight times
    /// as fast per byte as the stream's before it; `wrongChecksumAt` is then
    /// its offset. With no right page of the stream, a damaged last page (its
    /// end-of-stream flag set) counts when its granule is below 2000 per byte
    /// after the headers.
    static func lastGranule(
        of serial: UInt32, in source: FileSource, after floor: Int64, limit: Int64 = 1 << 20,
        maximumChecks: Int = 64
    ) throws -> (granule: UInt64, wrongChecksumAt: Int64?)? {
        var damaged: OggPage?
        let good = try lastPage(
            in: source, after: floor, limit: limit, maximumChecks: maximumChecks, wrongChecksum: { damaged = $0 }
        ) {
            $0.serial == serial && $0.granulePosition != OggPage.noGranule
        }
        guard let good else {
            // No right page to compare with: a damaged last page (end-of-stream flag) counts
            // when its granule is below 2000 per byte of the stream (no codec runs at under
            // 1 kbit/s at 192 kHz).
            guard let damaged, damaged.headerType & OggPage.ending != 0,
                damaged.granulePosition <= 2000 * UInt64(max(0, damaged.end - floor))
            else { return nil }
            return (damaged.granulePosition, damaged.offset)
        }
        if let damaged, damaged.offset > good.offset, damaged.sequence == good.sequence &+ 1,
            damaged.granulePosition >= good.granulePosition
        {
            let perByte = Double(good.granulePosition) / Double(max(1, good.end - floor))
            let allowed = 8 * perByte * Double(damaged.end - good.end)
            if Double(damaged.granulePosition - good.granulePosition) <= allowed {
                return (damaged.granulePosition, damaged.offset)
            }
        }
        return (good.granulePosition, nil)
    }

    /// The last page that `matches` and whose CRC is right, searched
    /// backwards from the end of the file, at most `limit` bytes back (not
    /// before `floor`), computing at most `maximumChecks` CRCs.
    static func lastPage(
        in source: FileSource, after floor: Int64, limit: Int64, maximumChecks: Int,
        wrongChecksum: (OggPage) -> Void = { _ in }, where matches: (OggPage) -> Bool = { _ in true }
    ) throws -> OggPage? {
        let window: Int64 = 64 * 1024
        var checks = 0
        var windowEnd = source.size
        let lowest = max(floor, source.size - limit)
        while windowEnd > lowest {
            let start = max(lowest, windowEnd - window)
            let bytes = try source.getBytes(at: start, count: Int(min(source.size - start, windowEnd - start + 3)))
            var index = Int(windowEnd - start) - 1
            while index >= 0 {
                defer { index -= 1 }
                guard bytes[index] == 0x4F, index + 3 < bytes.count, bytes[index + 1] == 0x67, bytes[index + 2] == 0x67,
                    bytes[index + 3] == 0x53
                else { continue }
                let offset = start + Int64(index)
                guard let page = try? OggPage.read(from: source, at: offset), matches(page) else { continue }
                checks += 1
                guard checks <= maximumChecks else { return nil }
                guard (try? OggCRC.checksum(of: page, in: source)) == page.checksum else {
                    wrongChecksum(page)
                    continue
                }
                return page
            }
            windowEnd = start
        }
        return nil
    }

    /// The granule position of the last page of `serial` that has one,
    /// walking the page headers forward from `offset` to the end of the file
    /// (other streams' pages by their headers only; a page of the stream
    /// counts when its CRC is right; after bytes that are not a page the walk
    /// goes on at the next good page, ``OggResync``), as mutagen does when the end
    /// of the file holds no page of the stream: the first link of a chained
    /// file followed by long links, an audio stream that ends long before the
    /// video. At most `maximumPages` pages; nil when none is found.
    static func lastGranuleWalking(of serial: UInt32, in source: FileSource, from offset: Int64, maximumPages: Int = 1 << 20) throws
        -> UInt64?
    {
        var position = offset
        var last: UInt64?
        var count = 0
        while position < source.size, count < maximumPages {
            count += 1
            var found = try? OggPage.read(from: source, at: position)
            if found == nil { found = try OggResync.nextPage(after: position, in: source) }
            guard let page = found else { break }
            if page.serial == serial, page.granulePosition != OggPage.noGranule,
                (try? OggCRC.checksum(of: page, in: source)) == page.checksum
            {
                last = page.granulePosition
            }
            position = page.end
        }
        return last
    }
}
