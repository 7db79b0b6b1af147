#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the MP4 family (.mp4 .m4a .m4b .m4v .mov .3gp): ISO/IEC 14496-12
/// base media files and Apple QuickTime movies.
///
/// The top-level boxes are walked by their headers; only `ftyp` and the
/// `moov` tree are read (`moov` may come before or after `mdat`), and of
/// `moov` only the small boxes that hold properties and metadata. Media
/// data, sample tables and picture bytes stay on disk.
enum MP4Parser {
    /// Box types that may open an MP4/QuickTime file (a list: format
    /// detection asks it for every file, and a set would cost the first
    /// detection a runtime conformance lookup).
    static let topLevelTypes: [FourCC] = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"]

    /// Reads the file's metadata and properties. Damage the metadata can
    /// do without (see ``MP4Movie``) is read around and reported as
    /// warnings; the file is editable when ``MP4Movie/saveRefusal()`` finds
    /// nothing a save would refuse, and a warning says why when it is not.
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let movie = try MP4Movie(source)
        var warnings = movie.warnings
        let (properties, hasVideo) = try MP4PropertiesParser(source: source)
            .properties(moov: movie.moov, fileSize: source.size, mediaDataSize: movie.layout.mediaDataSize, warnings: &warnings)
        let moovItems = try MP4MetadataParser(source: source, url: url).items(in: movie.moov, warnings: &warnings)
        let items =
            moovItems
            + MP4AssetBoxes.items(in: movie.moov, source: source)
            + MP4XMP.items(topLevel: movie.layout.boxes, moov: movie.moov, source: source, warnings: &warnings)
        let refusal = try movie.saveRefusal()
        if let refusal {
            warnings.append(MediaWarning(refusal.code, "not editable: \(refusal.reason)", offset: refusal.offset))
        }
        let fileType = FileType(identifier: "mp4", mimeType: mimeType(brands: movie.layout.brands, hasVideo: hasVideo))
        let chapterTables = MP4Chapters.tables(in: movie.moov, source: source, warnings: &warnings)
        return ParsedFile(
            fileType: fileType, items: items, properties: properties, isEditable: refusal == nil,
            warnings: MP4Movie.inFileOrder(warnings), chapterTables: chapterTables,
            editBasis: MP4Movie.Reading(layout: movie.layout, moov: movie.moov, warnings: movie.warnings, moovItems: moovItems))
    }

    /// The MIME type from the `ftyp` brands (major brand first) and content:
    /// `qt  ` (or no `ftyp`) → QuickTime; `3gp*` → 3GPP; `3g2*` → 3GPP2;
    /// `M4A `/`M4B `/`M4P ` or no video track → audio/mp4; else video/mp4.
    static func mimeType(brands: [FourCC]?, hasVideo: Bool) -> String {
        guard let brands, let major = brands.first else { return "video/quicktime" }
        func kind(_ brand: FourCC) -> String? {
            let text = brand.description
            if brand == "qt  " { return "video/quicktime" }
            if text.hasPrefix("3gp") { return "video/3gpp" }
            if text.hasPrefix("3g2") { return "video/3gpp2" }
            if ["M4A ", "M4B ", "M4P "].contains(text) { return "audio/mp4" }
            return nil
        }
        if let type = kind(major) ?? brands.dropFirst().lazy.compactMap(kind).first {
            return type
        }
        return hasVideo ? "video/mp4" : "audio/mp4"
    }

    /// What the walk over the top-level boxes found.
    struct TopLevel {
        /// Major brand then compatible brands of `ftyp`; nil without `ftyp`.
        var brands: [FourCC]?
        var moov: MP4BoxHeader?
        /// Total payload bytes of the `mdat` boxes seen.
        var mediaDataSize: Int64 = 0
        /// Every top-level box read, in file order (the `moov` as cut when
        /// ``isMovieClipped``).
        var boxes: [MP4BoxHeader] = []
        /// The first top-level box after `moov` that could not be read: its
        /// offset and why. The bytes from there to the end are not read.
        var damage: (offset: Int64, error: MediaError)?
        /// True when `moov` ran past the end of the file and was cut there
        /// (only when the walk is forgiving).
        var isMovieClipped = false
        /// The size `moov` claims when it was cut.
        var declaredMovieSize: Int64?

        /// Walks the top-level boxes. A box that runs past the end of the file
        /// is an error (`truncated`) until `moov` has been found; after it, the
        /// walk stops at such a box (recorded in ``damage``), since nothing
        /// after `moov` is needed except the `mdat` sizes for the bit rate.
        /// With `clipsMovie`, a `moov` that runs past the end of the file is
        /// cut there instead of failing the walk.
        init(_ source: FileSource, clipsMovie: Bool = false) throws {
            var offset: Int64 = 0
            var count = 0
            while offset < source.size {
                var header: MP4BoxHeader
                do {
                    guard count < MP4Limits.maxChildren else {
                        throw MediaError(.sizeOutOfRange, "more than \(MP4Limits.maxChildren) top-level boxes", offset: offset)
                    }
                    header = try MP4BoxHeader(parsing: source, at: offset, containerEnd: source.size, isTopLevel: true)
                } catch let error as MediaError {
                    if moov != nil {
                        damage = (offset, error)
                        break
                    }
                    guard clipsMovie, error.code == .truncated,
                        let whole = try? MP4BoxHeader(parsing: source, at: offset, containerEnd: Int64.max / 2, isTopLevel: true),
                        whole.type == "moov", source.size - offset >= Int64(whole.headerSize)
                    else { throw error }
                    header = whole
                    declaredMovieSize = whole.size
                    header.size = source.size - offset
                    isMovieClipped = true
                }
                boxes.append(header)
                switch header.type {
                case "ftyp" where brands == nil:
                    brands = try Self.brands(header, source)
                case "moov":
                    guard moov == nil else {
                        throw MediaError(.malformed, "a second 'moov' box", offset: header.offset)
                    }
                    moov = header
                case "mdat":
                    mediaDataSize += header.payloadSize
                default:
                    break
                }
                offset = header.end
                count += 1
            }
        }

        /// `ftyp` (ISO/IEC 14496-12 §4.3): u32 major brand, u32 minor version,
        /// u32 compatible brands to the end. At most 64 brands are read.
        static func brands(_ header: MP4BoxHeader, _ source: FileSource) throws -> [FourCC] {
            var reader = try source.mp4Payload(of: header, upTo: 8 + 64 * 4)
            guard reader.remaining >= 8 else {
                throw MediaError(.malformed, "'ftyp' box too small for its brands", offset: header.offset)
            }
            var brands = [try reader.readFourCC()]
            try reader.skip(4)
            while reader.remaining >= 4 { brands.append(try reader.readFourCC()) }
            return brands.filter { $0.rawValue != 0 }
        }
    }
}
