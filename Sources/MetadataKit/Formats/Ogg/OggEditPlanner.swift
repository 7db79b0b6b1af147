#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of an Ogg file's main stream (``OggHeaderScan``): a leading
/// Theora stream's comment packet, else the first Vorbis, Opus, Speex or FLAC
/// stream's (the first Theora stream's when it has none of those).
///
/// - The comment packet is updated from the `.vorbis` items with the file's
///   vendor string (and, for Opus and Speex, any bytes that followed the
///   comment): the fields of unchanged items keep their bytes, case and place
///   (``VorbisComment/updated(for:picturesAsFields:)``), and a comment nobody
///   changed keeps its packet byte for byte; every other header packet is kept
///   byte for byte (for Vorbis, the setup packet that often shares the
///   comment's pages). Pictures are `METADATA_BLOCK_PICTURE` fields; an
///   unchanged picture keeps its field text. In FLAC-in-Ogg the
///   VORBIS_COMMENT block packet is updated the same way; pictures stay where
///   they are (comment fields or PICTURE block packets, the latter where the
///   first one was) and new ones go to PICTURE blocks when the file has any
///   (the header count in the first packet is updated; RFC 9639 §10.1).
/// - The header packets after the first are laid out on new pages with as
///   many lacing values as the old pages had (the last old page, then new
///   ones, up to 255), so small changes keep the page count; when that
///   needs more pages, they are re-laced over the same number of pages (up to
///   255 lacing values each) when they fit; granule position 0 where a packet ends, −1 elsewhere. They
///   go where the stream's first such page was; the first (BOS) page is
///   rebuilt only when its packet changes.
/// - On a file of 1 MiB or more, a Vorbis or Opus comment that grows gets
///   zero padding after it (what mutagen writes; RFC 7845 §5.2 for Opus)
///   that makes the header pages grow by whole file system blocks, so the
///   save inserts blocks before the audio pages instead of copying them, and
///   the next small edits are made in place.
/// - When the page count changes, every later page of the stream gets its
///   sequence number shifted and its CRC recomputed (RFC 3533 §6); granule
///   positions and packet data are not touched, and pages of other logical
///   streams are copied as they are.
/// - Same page count and same page sizes, or the same total size over header
///   pages that follow one another: in-place patches of the changed bytes,
///   and no audio page is touched. Otherwise a rewrite from runs of the
///   original file and new bytes — unavoidable when the header pages' total
///   size changes (the audio pages move; on a large file only by inserted
///   blocks) or their count changes (every later page of the stream is
///   renumbered and its CRC recomputed): a comment that outgrows its pages,
///   a FLAC-in-Ogg or Speex comment that grows (no padding is kept there),
///   other streams' pages between ours.
///
/// Only that stream's comment is written: other streams' pages are copied as
/// they are, and a change to their comments (``MetadataKeySpace/oggStream``
/// items) is refused before anything is written; removing all tags empties
/// the main stream's comment and keeps theirs.
///
/// A Theora comment that would grow past 65,535 bytes is refused
/// (``theoraHeaderLimit``): ffmpeg can't decode the video after it.
///
/// The last header packet must end its page (Vorbis I §A.2, RFC 7845 §3);
/// other files are refused with `unsupportedFeature`. Damage: junk and
/// damaged pages between pages are kept byte for byte where they were;
/// header packets that end early (`truncated`) or are damaged (`malformed`)
/// are not rewritten — the save is refused before anything is written.
enum OggEditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let scan = try OggHeaderScan.read(source)
        guard scan.isComplete else {
            throw MediaError(
                .truncated, "the stream's header packets end early; not rewriting them",
                offset: scan.warnings.last { $0.code == .truncated }?.offset)
        }
        guard scan.endsOnPageBoundary else {
            throw MediaError(.unsupportedFeature, "the stream's last header packet does not end its page")
        }
        if let damaged = scan.wrongChecksums.first {
            throw MediaError(.malformed, "a header page's CRC is wrong (its bytes may be damaged); not rewriting it", offset: damaged)
        }
        // Other streams' comments are kept as they are (also when all tags are removed).
        if !options.removesAllTags { try OggLogicalStreams.refuseChanges(in: items, source: source, main: scan) }
        let kept = options.removesAllTags ? [] : items
        let (packets, paddable) = try newPackets(scan, items: kept)
        try refuseOversizedTheoraHeaders(packets, scan: scan)

        let oldPages = scan.headerPages.map { scan.pages[$0] }
        var newPages = try pages(for: packets, scan: scan, source: source)
        if let paddable, packets[paddable] != scan.packets[paddable] {
            newPages = try padded(newPages, packets: packets, at: paddable, scan: scan, source: source)
        }

        if newPages.count == oldPages.count {
            if zip(newPages, oldPages).allSatisfy({ $0.count == $1.length }) {
                var patches: [(offset: Int64, bytes: [UInt8])] = []
                for (bytes, page) in zip(newPages, oldPages) {
                    let old = try source.getBytes(at: page.offset, count: page.length)
                    guard let first = bytes.indices.first(where: { bytes[$0] != old[$0] }),
                        let last = bytes.indices.last(where: { bytes[$0] != old[$0] })
                    else { continue }
                    patches.append((page.offset + Int64(first), Array(bytes[first...last])))
                }
                return .inPlace(patches)
            }
            // Pages of other sizes but the same total, one after another: one patch over them.
            let contiguous = zip(oldPages, oldPages.dropFirst()).allSatisfy { $0.end == $1.offset }
            let newTotal = newPages.reduce(0) { $0 + $1.count }, oldTotal = oldPages.reduce(0) { $0 + $1.length }
            if contiguous, newTotal == oldTotal, let first = oldPages.first {
                let bytes = newPages.flatMap { $0 }
                if let patch = try FileEditPlan.changedPatch(of: bytes, at: first.offset, in: source) { return .inPlace([patch]) }
                return .inPlace([])
            }
        }
        // The header region: other streams' pages as they were, ours replaced.
        var segments: [FileEditPlan.Segment] = []
        let ours = Set(scan.headerPages)
        var gaps = scan.gaps[...]
        for (index, page) in scan.pages.enumerated() {
            // Junk and damaged pages between the pages stay, byte for byte, where they were.
            while let gap = gaps.first, gap.offset < page.offset {
                segments.append(.original(offset: gap.offset, length: gap.length))
                gaps = gaps.dropFirst()
            }
            if index == scan.headerPages[0] {
                segments.append(.bytes(newPages[0]))
            } else if index == scan.headerPages.dropFirst().first {
                segments += newPages.dropFirst().map { .bytes($0) }
            } else if !ours.contains(index) {
                segments.append(.original(offset: page.offset, length: Int64(page.length)))
            }
        }
        if scan.headerPages.count == 1 { segments += newPages.dropFirst().map { .bytes($0) } }
        // The rest: renumber our pages when the count changed.
        let shift = Int64(newPages.count) - Int64(oldPages.count)
        if shift == 0 {
            segments.append(.original(offset: scan.end, length: source.size - scan.end))
        } else {
            segments += try renumbered(source, from: scan.end, serial: scan.serial, shift: shift)
        }
        return .rewrite(FileEditPlan.coalesced(segments))
    }

    /// The pages of the header packets: the first (BOS) page as it was when
    /// its packet is unchanged; the others following the old pages' lacing
    /// counts (the last one may fill up), so a small change keeps the page
    /// count and page sizes; when that needs more pages, re-laced over
    /// the same number of pages (the lacing values spread evenly, at most 255
    /// a page, RFC 3533 §6) when they fit — then no page after the headers is
    /// renumbered.
    static func pages(for packets: [[UInt8]], scan: OggHeaderScan, source: FileSource) throws -> [[UInt8]] {
        let oldPages = scan.headerPages.map { scan.pages[$0] }
        let bos = oldPages[0]
        var first: [[UInt8]] = []
        if packets[0] == scan.packets[0] {
            first.append(try source.getBytes(at: bos.offset, count: bos.length))
        } else {
            first += OggPage.paginate(
                [packets[0]], serial: scan.serial, firstSequence: bos.sequence,
                firstFlags: OggPage.beginning, granule: bos.granulePosition)
        }
        var capacities = oldPages.dropFirst().map(\.segments.count)
        if !capacities.isEmpty { capacities[capacities.count - 1] = 255 }
        let rest = Array(packets.dropFirst())
        let sequence = bos.sequence &+ UInt32(first.count)
        let following = OggPage.paginate(rest, serial: scan.serial, firstSequence: sequence, capacities: capacities)
        // Packets that outgrow the old lacing counts are re-laced over the same
        // number of pages, the lacing values spread evenly. (Packets that
        // shrink take fewer pages, as before: the stream is renumbered down.)
        let count = oldPages.count - first.count
        let laces = rest.reduce(0) { $0 + $1.count / 255 + 1 }
        if first.count + following.count > oldPages.count, count > 0, laces >= count, laces <= 255 * count {
            let even = (0..<count).map { laces / count + ($0 < laces % count ? 1 : 0) }
            let relaced = OggPage.paginate(rest, serial: scan.serial, firstSequence: sequence, capacities: even)
            if relaced.count == count { return first + relaced }
        }
        return first + following
    }

    /// The header pages when the comment packet (at `index`) grew, on a file
    /// of 1 MiB or more: zero padding after it (``PaddingPolicy``: 1 KiB plus
    /// 256 bytes per MiB of audio, then up to whole file system blocks), so
    /// that the header pages grow by a whole number of blocks — the save then
    /// inserts blocks before the audio pages instead of copying them — and
    /// the next edits fit in place. Smaller files are written without padding,
    /// as before. Padding that would change the page count (when the packet
    /// alone doesn't) is not added.
    static func padded(_ pages: [[UInt8]], packets: [[UInt8]], at index: Int, scan: OggHeaderScan, source: FileSource) throws
        -> [[UInt8]]
    {
        let oldCount = scan.headerPages.count
        let oldTotal = Int64(scan.headerPages.reduce(0) { $0 + scan.pages[$1].length })
        func total(_ pages: [[UInt8]]) -> Int64 { Int64(pages.reduce(0) { $0 + $1.count }) }
        guard total(pages) > oldTotal, let block = MP4EditPlanner.insertionBlock(for: source) else { return pages }
        func layout(padding: Int) throws -> [[UInt8]] {
            var padded = packets
            padded[index] += [UInt8](repeating: 0, count: padding)
            return try self.pages(for: padded, scan: scan, source: source)
        }
        let base = PaddingPolicy.standard.padding(audioBytes: source.size - scan.end)
        let best = try layout(padding: base)
        if best.count != oldCount, pages.count == oldCount { return pages }
        guard best.count == oldCount else { return best }
        // The total grows by one byte per padding byte plus a lacing value per 255:
        // search the padding whose growth is the next multiple of the block.
        var target = (total(best) - oldTotal + block - 1) / block * block
        for _ in 0..<2 {
            var low = base, high = base + Int(target - (total(best) - oldTotal))
            while low <= high {
                let middle = (low + high) / 2
                let candidate = try layout(padding: middle)
                let grown = total(candidate) - oldTotal
                if grown == target {
                    return candidate.count == oldCount ? candidate : best
                } else if grown < target {
                    low = middle + 1
                } else {
                    high = middle - 1
                }
            }
            target += block
        }
        return best
    }

    /// The header packets with the new comment (and, for FLAC, pictures),
    /// and the index of the comment packet when zero bytes may follow it as
    /// padding (Vorbis, Opus).
    /// The largest Theora header packet ffmpeg decodes: it passes the three
    /// header packets to its decoder with 16-bit lengths (Xiph extradata), so
    /// a longer one leaves the video undecodable there ("Invalid extradata").
    static let theoraHeaderLimit = 65_535

    /// Refuses a Theora comment that grows past ``theoraHeaderLimit`` (a
    /// large picture), before anything is written: mutagen writes it, and the
    /// file no longer plays in ffmpeg-based players. A packet that was over
    /// the limit already may stay so.
    static func refuseOversizedTheoraHeaders(_ packets: [[UInt8]], scan: OggHeaderScan) throws {
        guard scan.codec == .theora else { return }
        for (new, old) in zip(packets, scan.packets) where new.count > theoraHeaderLimit && old.count <= theoraHeaderLimit {
            throw MediaError(
                .sizeOutOfRange,
                "the Theora comment header would be \(new.count) bytes; ffmpeg can't decode a Theora stream whose header "
                    + "packet is over \(theoraHeaderLimit) bytes (store a smaller picture)")
        }
    }

    static func newPackets(_ scan: OggHeaderScan, items: [MetadataItem]) throws -> (packets: [[UInt8]], paddable: Int?) {
        let (_, found, damage) = try OggParser.comment(of: scan)
        if let first = damage.first {
            throw MediaError(.malformed, "the header packets are damaged (\(first.message)); not rewriting them", offset: first.offset)
        }
        switch scan.codec {
        case .vorbis, .opus, .speex, .theora:
            guard let location = found else { throw MediaError(.malformed, "no comment packet") }
            let comment = try location.comment.updated(for: items, picturesAsFields: true).comment
            var packets = scan.packets
            // A comment nobody changed keeps its packet byte for byte.
            if comment.storedFields == location.comment.storedFields { return (packets, nil) }
            let body = location.prefix + (try comment.serialized(framingBit: location.framingBit))
            var suffix = location.suffix
            // Zero bytes after a Vorbis comment (after its framing bit) or
            // OpusTags (RFC 7845 §5.2: trailing data whose first byte has bit 0
            // clear is padding) are padding: resize them so the packet, its
            // pages and everything after keep their size — a save in place —
            // as long as that leaves no more than 4 KiB (or the old padding).
            let oldSize = scan.packets[location.packet].count
            if scan.codec != .speex, suffix.allSatisfy({ $0 == 0 }), body.count <= oldSize,
                oldSize - body.count <= max(suffix.count, 4096)
            {
                suffix = [UInt8](repeating: 0, count: oldSize - body.count)
            }
            packets[location.packet] = body + suffix
            let paddable = scan.codec != .speex && suffix.allSatisfy { $0 == 0 }
            return (packets, paddable ? location.packet : nil)
        case .flac:
            return (try newFLACPackets(scan, items: items, location: found), nil)
        }
    }

    /// FLAC-in-Ogg: the first packet (header count updated), the comment block
    /// where it was, other blocks kept. Pictures go where the file keeps them:
    /// PICTURE block packets (where the first one was) when it has any, else
    /// `METADATA_BLOCK_PICTURE` comment fields (what mutagen and ffmpeg read).
    private static func newFLACPackets(_ scan: OggHeaderScan, items: [MetadataItem], location: OggParser.CommentLocation?) throws
        -> [[UInt8]]
    {
        let pictureType = FLACBlock.Kind.picture.rawValue
        let hasPictureBlocks = scan.packets.dropFirst().contains { ($0.first ?? 0) & 0x7F == pictureType }
        let old = location?.comment ?? VorbisComment(vendor: VorbisComment.defaultVendor)
        let (updated, pictureItems) = try old.updated(for: items, picturesAsFields: !hasPictureBlocks)
        let comment =
            try location.map { updated.storedFields == $0.comment.storedFields } == true
            ? Array(scan.packets[location!.packet].dropFirst(4)) : updated.serialized()
        // Unchanged pictures keep their block bytes: pictures here are decoded copies, so compare by value.
        var oldPictures: [Artwork: [UInt8]] = [:]
        for packet in scan.packets.dropFirst() where packet.first.map({ $0 & 0x7F }) == FLACBlock.Kind.picture.rawValue {
            var reader = ByteReader(Array(packet.dropFirst(4)))
            if let artwork = try? FLACPicture(parsing: &reader).artwork() { oldPictures[artwork] = Array(packet.dropFirst(4)) }
        }
        var pictures: [[UInt8]] = []
        for (index, item) in items.enumerated() where item.keySpace == .vorbis && !pictureItems.contains(index) {
            guard case .picture(let artwork) = item.value else { continue }
            pictures.append(try oldPictures[artwork] ?? FLACPicture(artwork: artwork).serialized())
        }
        var blocks: [(type: UInt8, body: [UInt8])] = []
        var placedComment = false, placedPictures = false
        for packet in scan.packets.dropFirst() {
            let type = (packet.first ?? 0) & 0x7F
            switch type {
            case FLACBlock.Kind.vorbisComment.rawValue:
                if !placedComment { blocks.append((type, comment)) }
                placedComment = true
            case FLACBlock.Kind.picture.rawValue:
                if !placedPictures { blocks += pictures.map { (type, $0) } }
                placedPictures = true
            case FLACBlock.Kind.padding.rawValue:
                break
            default:
                blocks.append((type, Array(packet.dropFirst(4))))
            }
        }
        if !placedComment { blocks.insert((FLACBlock.Kind.vorbisComment.rawValue, comment), at: 0) }
        if !placedPictures { blocks += pictures.map { (FLACBlock.Kind.picture.rawValue, $0) } }
        var packets = [scan.packets[0]]
        for (index, block) in blocks.enumerated() {
            guard block.body.count <= FLACBlock.maximumLength else {
                throw MediaError(.invalidValue, "a FLAC metadata block of \(block.body.count) bytes is over 16 MiB")
            }
            packets.append(FLACBlock.header(type: block.type, isLast: index == blocks.count - 1, length: block.body.count) + block.body)
        }
        guard blocks.count <= 0xFFFF, packets[0].count >= 9 else { throw MediaError(.invalidValue, "too many FLAC metadata blocks") }
        packets[0][7] = UInt8(blocks.count >> 8)
        packets[0][8] = UInt8(blocks.count & 0xFF)
        return packets
    }

    /// Every page from `offset` to the end: pages of `serial` with their
    /// sequence number shifted by `shift` (new header bytes, CRC recomputed
    /// over the unchanged body), others as runs of the original file. Pages
    /// after the stream's last (EOS) page belong to a later link of a chained
    /// file (RFC 3533 §4) even if it reuses the serial number: they are kept.
    /// Junk and damaged pages (a wrong CRC) between the pages are kept byte
    /// for byte, unnumbered, and the walk goes on at the next good page
    /// (``OggResync``).
    static func renumbered(_ source: FileSource, from offset: Int64, serial: UInt32, shift: Int64) throws -> [FileEditPlan.Segment] {
        var segments: [FileEditPlan.Segment] = []
        var position = offset
        var ended = false
        while position < source.size {
            let (found, gap, _, _) = try OggResync.page(at: position, in: source)
            if let gap { segments.append(.original(offset: gap.offset, length: gap.length)) }
            guard var page = found else { break }
            if page.serial == serial && !ended {
                ended = page.headerType & OggPage.ending != 0
                page.sequence = UInt32(truncatingIfNeeded: Int64(page.sequence) + shift)
                var header = page.headerBytes(checksum: 0)
                let body = try source.getBytes(at: page.bodyOffset, count: page.bodyLength)
                let crc = OggCRC.update(OggCRC.update(0, header), body)
                header.replaceSubrange(
                    22..<26, with: [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
                segments.append(.bytes(header))
                segments.append(.original(offset: page.bodyOffset, length: Int64(page.bodyLength)))
            } else {
                segments.append(.original(offset: page.offset, length: Int64(page.length)))
            }
            position = page.end
        }
        return segments
    }
}
