#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The movie as the metadata reader and writer see it: the top-level layout
/// and the `moov` tree, read around the damage that metadata can do without,
/// and the one judgement of whether a save can be made.
///
/// Read around (each a ``MediaWarning``):
/// - a `moov` that runs past the end of the file: cut there, and its last
///   boxes with it (as ffmpeg reads them); a child of `moov` that runs past
///   it: cut at its end;
/// - a box in `moov`, `udta` or `meta` that can't be read: that box and the
///   rest of its container are its damaged tail, kept byte for byte;
/// - a top-level box after `moov` that can't be read (a cut `mdat`): the
///   rest of the file, kept byte for byte.
struct MP4Movie {
    var layout: MP4Parser.TopLevel
    var moov: MP4Box
    /// What was read around, in file order.
    var warnings: [MediaWarning] = []
    /// The metadata items of `moov` (``MP4MetadataParser``) as a load read
    /// them; nil when the movie was not read by a load.
    var moovItems: [MetadataItem]?
    let source: FileSource

    /// What was read, without the source it was read from: a load keeps it
    /// as its edit basis (``ParsedFile/editBasis``) without keeping the file
    /// open.
    struct Reading: Sendable {
        var layout: MP4Parser.TopLevel
        var moov: MP4Box
        var warnings: [MediaWarning]
        /// The metadata items of `moov` the load read.
        var moovItems: [MetadataItem]?
    }

    /// The movie `reading` describes, read further from `source` (the same
    /// file, unchanged since).
    init(_ reading: Reading, source: FileSource) {
        self.source = source
        layout = reading.layout
        moov = reading.moov
        warnings = reading.warnings
        moovItems = reading.moovItems
    }

    /// Reads the layout and the `moov` tree; throws when there is no `moov`,
    /// it is compressed, or damage leaves nothing sensible.
    init(_ source: FileSource) throws {
        self.source = source
        layout = try MP4Parser.TopLevel(source, clipsMovie: true)
        guard let moovHeader = layout.moov else {
            throw MediaError(.malformed, "no 'moov' box: not a complete MP4/QuickTime file", offset: 0)
        }
        if layout.isMovieClipped, let declared = layout.declaredMovieSize {
            warnings.append(
                MediaWarning(
                    .truncated,
                    "the 'moov' box claims \(declared) bytes but the file ends after "
                        + "\(moovHeader.size): read up to the end of the file", offset: moovHeader.offset))
        }
        if let damage = layout.damage {
            warnings.append(
                MediaWarning(
                    damage.error.code,
                    "\(damage.error.reason); the last \(source.size - damage.offset) "
                        + "bytes of the file were not read and are kept as they are", offset: damage.offset))
        }
        var builder = MP4TreeBuilder(source: source, isLenient: true)
        moov = try builder.build(moovHeader, depth: 0, isClipped: layout.isMovieClipped)
        warnings += builder.warnings
        if let cmov = moov.child("cmov") {
            throw MediaError(.unsupportedFeature, "compressed movie header ('cmov') is not supported", offset: cmov.header.offset)
        }
    }

    /// `warnings` sorted by offset (stable; warnings without one last).
    static func inFileOrder(_ warnings: [MediaWarning]) -> [MediaWarning] {
        warnings.enumerated().sorted { a, b in
            let (left, right) = (a.element.offset ?? .max, b.element.offset ?? .max)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element)
    }

    /// Why a save of this file would be refused, known before anything is
    /// planned; nil when a save can be made. ``MP4Parser`` reports it as
    /// `isEditable = false` with a warning; ``MP4EditPlanner`` throws it.
    ///
    /// - a cut `moov`, or a box cut at the end of `moov`: what is missing
    ///   can't be kept byte for byte;
    /// - unreadable bytes in `moov` itself: they may be a track whose chunk
    ///   offsets a save would have to move;
    /// - a fragmented movie whose top-level boxes can't all be read, or
    ///   whose `moof`/`traf`/`tfhd` boxes don't parse: their base data
    ///   offsets (ISO/IEC 14496-12 §8.8.7) could not be moved;
    /// - a `stco`/`co64` whose entry count runs past its box (§8.7.5).
    func saveRefusal() throws -> MediaError? {
        let moovHeader = moov.header
        if layout.isMovieClipped {
            return MediaError(
                .truncated, "the 'moov' box runs past the end of the file; a save can't keep what is missing",
                offset: moovHeader.offset)
        }
        if let clipped = Self.firstClipped(in: moov) {
            return MediaError(
                .sizeOutOfRange,
                "box '\(clipped.type)' runs past the end of its container; a save can't keep "
                    + "what is missing", offset: clipped.offset)
        }
        if let tail = moov.damagedTailOffset {
            return MediaError(
                .malformed,
                "bytes in the 'moov' box that are not boxes could hold chunk offsets a save would "
                    + "have to move", offset: tail)
        }
        let fragments = layout.boxes.filter { $0.type == "moof" }
        let isFragmented = moov.child("mvex") != nil || !fragments.isEmpty
        if isFragmented, let damage = layout.damage {
            return MediaError(
                damage.error.code,
                "a fragmented movie whose boxes after byte \(damage.offset) can't be read: "
                    + "a save could not move their fragment offsets", offset: damage.offset)
        }
        for moof in fragments {
            if let error = fragmentProblem(moof) { return error }
        }
        for trak in moov.children("trak") {
            guard let stbl = trak.descendant("mdia", "minf", "stbl") else { continue }
            for table in stbl.children where table.type == "stco" || table.type == "co64" {
                var reader = try source.mp4Payload(of: table.header, upTo: 8)
                let width: Int64 = table.type == "co64" ? 8 : 4
                guard reader.remaining == 8 else {
                    return MediaError(.malformed, "'\(table.type)' box too small for its entry count", offset: table.header.offset)
                }
                try reader.skip(4)
                let count = Int64(try reader.readUInt32())
                if count * width > table.header.payloadSize - 8 {
                    return MediaError(
                        .sizeOutOfRange,
                        "'\(table.type)' claims \(count) chunk offsets but holds "
                            + "\(table.header.payloadSize - 8) bytes", offset: table.header.offset)
                }
            }
        }
        return nil
    }

    /// The first box below `box` that was cut to fit its container.
    static func firstClipped(in box: MP4Box) -> MP4BoxHeader? {
        for child in box.children {
            if child.isClipped { return child.header }
            if let inner = firstClipped(in: child) { return inner }
        }
        return nil
    }

    /// Why the base data offsets of `moof` could not be moved, or nil.
    private func fragmentProblem(_ moof: MP4BoxHeader) -> MediaError? {
        do {
            for traf in try source.mp4Children(of: moof, depth: 1) where traf.type == "traf" {
                for tfhd in try source.mp4Children(of: traf, depth: 2) where tfhd.type == "tfhd" {
                    var reader = try source.mp4Payload(of: tfhd, upTo: 16)
                    let flags = try reader.readUInt32() & 0x00FF_FFFF
                    if flags & 0x1 != 0 { try reader.skip(12) } // track_ID, base_data_offset
                }
            }
            return nil
        } catch let error as MediaError {
            return MediaError(
                error.code,
                "a movie fragment can't be read (\(error.reason)): a save could not move its "
                    + "offsets", offset: error.offset ?? moof.offset)
        } catch {
            return MediaError(.malformed, "a movie fragment can't be read: a save could not move its offsets", offset: moof.offset)
        }
    }
}

extension MP4Movie {
    /// The types of the top-level boxes, in file order, up to the first
    /// box that can't be read (at most ``MP4Limits/maxChildren``).
    static func topLevelTypes(in source: FileSource) throws -> [FourCC] {
        var types: [FourCC] = []
        var offset: Int64 = 0
        while offset < source.size, types.count < MP4Limits.maxChildren {
            guard let header = try? MP4BoxHeader(parsing: source, at: offset, containerEnd: source.size, isTopLevel: true) else { break }
            types.append(header.type)
            offset = header.end
        }
        return types
    }

    /// True when `moov` comes before the first `mdat` ("fast start"), or
    /// there is no `mdat`; false without `moov`.
    static func isMovieHeaderFirst(in source: FileSource) throws -> Bool {
        let types = try topLevelTypes(in: source)
        guard let moov = types.firstIndex(of: "moov") else { return false }
        return types.firstIndex(of: "mdat").map { moov < $0 } ?? true
    }
}
