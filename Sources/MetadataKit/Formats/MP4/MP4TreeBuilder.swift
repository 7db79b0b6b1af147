#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What ``FileSource/mp4ReadableChildren(from:to:depth:clipping:)`` found.
struct MP4ChildWalk {
    var headers: [MP4BoxHeader] = []
    /// The first child that could not be read: its offset and why.
    var damage: (offset: Int64, error: MediaError)?
    /// Children cut to the end of their container.
    var clipped: [MP4BoxHeader] = []
}

/// Builds the box tree of `moov`: containers are descended, every other box
/// is kept as a header whose payload stays on disk.
///
/// Strict by default: any box that doesn't fit throws. A lenient builder
/// (the metadata reader's and writer's) reads around damage in the metadata
/// containers (`moov`, `udta`, `meta`): the unreadable rest of such a box is
/// its damaged tail, reported in ``warnings``. A child of `moov` that runs
/// past it, and in a box already cut short (a `moov` running past the end
/// of the file) any child that runs past it, is cut at its end and read as
/// far as it goes, as ffmpeg does (such a movie is not editable).
struct MP4TreeBuilder {
    let source: FileSource
    private var boxCount = 0
    /// Read around damage in the metadata containers instead of throwing.
    var isLenient = false
    /// What a lenient build read around, in file order.
    private(set) var warnings: [MediaWarning] = []
    /// Containers whose damaged tail a lenient build keeps.
    static let metadataContainers: Set<FourCC> = ["moov", "udta", "meta"]

    /// Container boxes (ISO/IEC 14496-12 §8.2–8.11, QTFF "Movie atoms").
    static let containers: Set<FourCC> = [
        "moov", "trak", "mdia", "minf", "stbl", "udta", "meta", "edts", "dinf", "mvex", "tref",
    ]

    init(source: FileSource, isLenient: Bool = false) {
        self.source = source
        self.isLenient = isLenient
    }

    /// The tree under `header`, which sits `depth` levels below the file.
    /// `isClipped` says that `header` was cut to fit its container.
    mutating func build(_ header: MP4BoxHeader, depth: Int, parent: FourCC? = nil, isClipped: Bool = false) throws -> MP4Box {
        var box = MP4Box(header: header, isClipped: isClipped)
        guard Self.containers.contains(header.type) else { return box }
        // Track-level user data and metadata are not read; not descending them
        // also keeps odd camera atoms in them from failing the whole file.
        if parent == "trak", header.type == "udta" || header.type == "meta" { return box }
        let prefix = header.type == "meta" ? try metaPrefix(header) : 0
        guard prefix <= header.payloadSize else {
            throw MediaError(.malformed, "box '\(header.type)' is too small for its fields", offset: header.offset)
        }
        let walk = try source.mp4ReadableChildren(
            from: header.payloadOffset + prefix, to: header.end, depth: depth + 1,
            clipping: isLenient && (isClipped || header.type == "moov"))
        if let damage = walk.damage {
            guard isLenient, Self.metadataContainers.contains(header.type) else { throw damage.error }
            box.damagedTailOffset = damage.offset
            warnings.append(
                MediaWarning(
                    damage.error.code,
                    "'\(header.type)' box: \(damage.error.reason); its last "
                        + "\(header.end - damage.offset) bytes were not read and are kept as they are",
                    offset: damage.offset))
        }
        for clipped in walk.clipped {
            warnings.append(
                MediaWarning(
                    .sizeOutOfRange,
                    "box '\(clipped.type)' runs past the end of its container "
                        + "'\(header.type)': read up to where that ends", offset: clipped.offset))
        }
        boxCount += walk.headers.count
        guard boxCount <= MP4Limits.maxTreeBoxes else {
            throw MediaError(.sizeOutOfRange, "more than \(MP4Limits.maxTreeBoxes) boxes in the movie box", offset: header.offset)
        }
        box.children = try walk.headers.map { child in
            try build(child, depth: depth + 1, parent: header.type, isClipped: walk.clipped.contains(child))
        }
        return box
    }

    /// Bytes before the first child of a `meta` box: 4 for the FullBox
    /// version/flags of ISO/IEC 14496-12 §8.11.1, 0 for the plain atom
    /// QuickTime writes in `moov/meta`. As mutagen and exiftool do, a `meta`
    /// whose first 4 bytes are not zero and whose next 4 look like a box type
    /// is taken to have no version/flags.
    func metaPrefix(_ header: MP4BoxHeader) throws -> Int64 {
        guard header.payloadSize >= 8 else { return header.payloadSize >= 4 ? 4 : 0 }
        let head = try source.getBytes(at: header.payloadOffset, count: 8)
        let first = head[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let type = FourCC(head[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        return first != 0 && type.isPrintable ? 0 : 4
    }
}
