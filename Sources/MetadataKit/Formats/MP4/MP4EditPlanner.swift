#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Plans a metadata save of an MP4/QuickTime file.
///
/// The new `moov` (see ``MP4MoovRebuilder``) is placed by the cheapest safe
/// layout, in this order:
/// 1. Same size as before (the change was absorbed by a `free` box after
///    `ilst`): the changed bytes are patched in place.
/// 2. A `free`/`skip` box right after `moov` absorbs the difference: patched
///    in place, the free box shrinks or grows.
/// 3. `moov` is the last box (only free space after it): the file is cut at
///    `moov` and the new one written there, in place, with the old tail in the
///    undo journal. A padding `free` box is left after `ilst` for next time.
/// 4. Otherwise (`moov` before `mdat`): the file is rewritten through a
///    temporary file, with padding, and every `stco`/`co64` chunk offset —
///    and the `tfhd` base data offsets of a fragmented file — moved by the
///    change in size.
///
/// A file that ``MP4Movie/saveRefusal()`` finds unsafe to save (the reader
/// loads it with `isEditable == false`) is refused before anything is
/// planned. Damage the reader read around is kept byte for byte: the
/// damaged tail of a `udta`, `meta` or `ilst`, an item atom that can't be
/// read (unless a new item of its type replaces it), and the unreadable rest
/// of the file after `moov` (a cut `mdat`), which moves with the rewrite.
enum MP4EditPlanner {
    static let keySpaces: [MetadataKeySpace] = [.iTunes, .quickTimeMetadata, .quickTimeUserData, .threeGPP, .xmp]

    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        try plan(source, basis: nil, items, options)
    }

    /// The plan from the load's reading of the movie (``MP4Parser`` gives
    /// it as the edit basis) when there is one, else from a new reading of
    /// `source`.
    static func plan(
        _ source: FileSource, basis: (any Sendable)?, _ items: [MetadataItem], _ options: SaveOptions
    ) throws -> FileEditPlan {
        let movie = try (basis as? MP4Movie.Reading).map { MP4Movie($0, source: source) } ?? MP4Movie(source)
        if let refusal = try movie.saveRefusal() { throw refusal }
        try MP4XMP.refuseOtherKeys(items)
        let plan = try planMovie(source, items, options, movie: movie)
        // A top-level XMP box (see MP4XMP) is edited beside the movie box.
        let kept = options.removesAllTags ? [] : items
        return try MP4XMP.adjusting(plan, source: source, items: kept, layout: movie.layout)
    }

    private static func planMovie(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions, movie: MP4Movie) throws
        -> FileEditPlan
    {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let topLevel = movie.layout.boxes
        guard let moovIndex = topLevel.firstIndex(where: { $0.type == "moov" }) else {
            throw MediaError(.malformed, "no 'moov' box to write metadata into", offset: 0)
        }
        let moovHeader = topLevel[moovIndex]
        let moov = movie.moov
        let kept =
            options.removesAllTags
            ? items.filter { !keySpaces.contains($0.keySpace) }
            : try MP4MetadataMirror(source: source, url: url).mirroringChanges(items, moov: moov, loaded: movie.moovItems)
        var rebuilder = MP4MoovRebuilder(source: source, url: url, items: kept)
        // New chapters: a chapter track's samples go in a new 'mdat' (see the type).
        if let tables = options.chapterTables {
            try Self.refuseNewChapterPictures(tables, url: url)
            var edit = try MP4ChapterEdit(tables: tables, moov: moov, source: source)
            edit.usesLargeOffsets = source.size + 2 * moovHeader.size + edit.mediaDataSize + (1 << 20) > Int64(UInt32.max)
            edit.dataOffset = moovHeader.offset + 8
            rebuilder.chapters = edit
        }
        let chapterData = rebuilder.chapters?.mediaData ?? []

        // 1–2: in place.
        let compact = try rebuilder.moov(moov)
        if compact.isOriginal { return .inPlace([]) }
        let delta = compact.size - moovHeader.size
        if !chapterData.isEmpty {
            // New sample data can't be patched in: on to 3–4.
        } else if delta == 0 {
            return .inPlace(try FileEditPlan.patches(writing: compact.segments, at: moovHeader.offset, source: source))
        }
        let after = topLevel[(moovIndex + 1)...]
        if chapterData.isEmpty, let next = after.first, next.type == "free" || next.type == "skip", next.headerSize == 8 {
            let remaining = next.size - delta
            if remaining == 0 || (remaining >= 8 && remaining <= Int64(UInt32.max)) {
                var segments = compact.segments
                if remaining > 0 {
                    var header = ByteWriter()
                    header.write(UInt32(remaining))
                    header.write(next.type)
                    segments.append(.bytes(header.bytes))
                }
                return .inPlace(try FileEditPlan.patches(writing: segments, at: moovHeader.offset, source: source))
            }
        }

        // 3–4: with padding for the next save.
        rebuilder.padding = padding(forFileSize: source.size)
        var padded = try rebuilder.moov(moov)
        // The unreadable rest of the file (a cut 'mdat') is kept byte for byte.
        let damagedTail: [FileEditPlan.Segment] =
            movie.layout.damage.map {
                [.original(offset: $0.offset, length: source.size - $0.offset)]
            } ?? []
        if damagedTail.isEmpty, after.allSatisfy({ $0.type == "free" || $0.type == "skip" }) {
            // The chapter samples go before the movie box, which stays last.
            return .tail(offset: moovHeader.offset, bytes: chapterData + (try FileEditPlan.materialize(padded.segments, source: source)))
        }
        // 4 on a large file: more padding, up to a whole number of file system
        // blocks, so the save can insert blocks instead of moving the data.
        if let block = insertionBlock(for: source), let padding = rebuilder.padding {
            let extra = (block - (padded.size - moovHeader.size) % block) % block
            if extra > 0 {
                rebuilder.padding = padding + Int(extra)
                let aligned = try rebuilder.moov(moov)
                if (aligned.size - moovHeader.size) % block == 0 { padded = aligned } else { rebuilder.padding = padding }
            }
        }
        let shift = padded.size - moovHeader.size
        rebuilder.shift = (from: moovHeader.offset, by: shift)
        var moved = try rebuilder.moov(moov)
        if !chapterData.isEmpty {
            // The chapter samples go in a new 'mdat' at the end of the file.
            let rest = after.reduce(Int64(0)) { $0 + $1.size } + damagedTail.reduce(Int64(0)) { $0 + $1.length }
            rebuilder.chapters?.dataOffset = moovHeader.offset + moved.size + rest + 8
            moved = try rebuilder.moov(moov)
        }
        var segments: [FileEditPlan.Segment] = [.original(offset: 0, length: moovHeader.offset)] + moved.segments
        for box in after {
            if box.type == "moof", shift != 0 {
                segments.append(.bytes(try shiftedFragment(box, source: source, from: moovHeader.offset, by: shift)))
            } else {
                segments.append(.original(offset: box.offset, length: box.size))
            }
        }
        segments += damagedTail
        if !chapterData.isEmpty { segments.append(.bytes(chapterData)) }
        return .rewrite(FileEditPlan.coalesced(segments))
    }

    /// The file system block size when a save can insert space into the
    /// source's file instead of rewriting it (``FileEditPlan/insertionBlock(forFileAt:size:)``).
    static func insertionBlock(for source: FileSource) -> Int64? {
        FileEditPlan.insertionBlock(forFileAt: source.path, size: source.size)
    }

    /// Free space left after `ilst` when the movie box has to move anyway:
    /// 1 KiB plus 1 KiB per 10 MB of file, at most 64 KiB.
    static func padding(forFileSize size: Int64) -> Int {
        Int(min(64 * 1024, 1024 + size / 10_000_000 * 1024))
    }

    /// A `moof` whose `tfhd` base data offsets (ISO/IEC 14496-12 §8.8.7, flag
    /// 0x000001) at or after `from` move by `by`.
    static func shiftedFragment(_ moof: MP4BoxHeader, source: FileSource, from: Int64, by: Int64) throws -> [UInt8] {
        var bytes = try source.getBytes(at: moof.offset, count: Int(moof.size))
        for traf in try source.mp4Children(of: moof, depth: 1) where traf.type == "traf" {
            for tfhd in try source.mp4Children(of: traf, depth: 2) where tfhd.type == "tfhd" {
                var reader = try source.mp4Payload(of: tfhd)
                let flags = try reader.readUInt32() & 0x00FF_FFFF
                guard flags & 0x1 != 0 else { continue }
                try reader.skip(4) // track_ID
                let position = Int(reader.offset - moof.offset)
                let base = Int64(bitPattern: try reader.readUInt64())
                guard base >= from else { continue }
                let moved = UInt64(base + by)
                for index in 0..<8 { bytes[position + index] = UInt8(moved >> UInt64(56 - 8 * index) & 0xFF) }
            }
        }
        return bytes
    }

    /// Chapter pictures are not written to MP4 (a file's own picture track is
    /// kept as it is): a chapter picture that is not one of this file's would
    /// be dropped, so the save is refused before anything is written.
    static func refuseNewChapterPictures(_ tables: [ChapterTable], url: URL) throws {
        func check(_ chapters: [Chapter]) throws {
            for chapter in chapters {
                if let artwork = chapter.artwork {
                    let fromThisFile: Bool
                    if case .file(let pictureURL, _) = artwork.storage {
                        fromThisFile = Platform.isSameFile(pictureURL, url)
                    } else {
                        fromThisFile = false
                    }
                    guard fromThisFile else {
                        throw MediaError(
                            .unsupportedFeature,
                            "MP4 chapter pictures are not written: remove the picture of chapter '\(chapter.titles.first?.text ?? "")' (or keep the file's own)"
                        )
                    }
                }
                try check(chapter.chapters)
            }
        }
        for table in tables { try check(table.chapters) }
    }
}
