#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tags that may follow the audio of an MP3 file, found from the end:
/// ID3v1 (with an optional Enhanced TAG), APEv2, Lyrics3 v2 and an appended
/// ID3v2.4 tag with a footer, in any order before ID3v1.
struct MP3Trailer {
    /// Where the audio ends: the first byte of the first trailing tag.
    var audioEnd: Int64
    /// The ID3v1 items, when there is an ID3v1 tag.
    var id3v1Items: [MetadataItem]?
    /// An ID3v2 tag appended at the end (ID3v2.4.0 structure §5).
    var appendedID3v2: ID3v2Header?
    /// File ranges of APEv2 tags and Lyrics3 blocks (kept as they are).
    var skippedRanges: [Range<Int64>] = []
    /// The APE tag nearest the end, whose items are read (``APETag``).
    var apeTag: APETag?

    /// Most trailing blocks looked for before ID3v1.
    private static let maximumBlocks = 8

    /// Start of an APEv2 tag whose 32-byte footer ends at `end` ("APETAGEX",
    /// version, tag size excluding the header, item count, flags; bit 31 of
    /// the flags: a 32-byte header precedes the items).
    private static func apeTagStart(_ source: FileSource, end: Int64, floor: Int64) throws -> Int64? {
        guard end - floor >= 32, try source.holds("APETAGEX", at: end - 32) else { return nil }
        let footer = try source.getBytes(at: end - 32, count: 32)
        func le32(_ i: Int) -> Int64 {
            Int64(footer[i]) | Int64(footer[i + 1]) << 8 | Int64(footer[i + 2]) << 16 | Int64(footer[i + 3]) << 24
        }
        let size = le32(12)
        let hasHeader = footer[23] & 0x80 != 0
        let total = size + (hasHeader ? 32 : 0)
        guard size >= 32, total <= end - floor else { return nil }
        return end - total
    }

    /// Start of a Lyrics3 v2 block ending at `end`: "LYRICSBEGIN" … a 6-digit
    /// size (of everything from "LYRICSBEGIN" up to the size) and "LYRICS200".
    private static func lyrics3Start(_ source: FileSource, end: Int64, floor: Int64) throws -> Int64? {
        guard end - floor >= 15 + 11 else { return nil }
        guard try source.holds("LYRICS200", at: end - 9) else { return nil }
        let tail = try source.getBytes(at: end - 15, count: 15)
        guard let size = Int64(String(decoding: tail[0..<6], as: UTF8.self)), size >= 11, size + 15 <= end - floor
        else { return nil }
        let start = end - 15 - size
        guard try source.holds("LYRICSBEGIN", at: start) else { return nil }
        return start
    }
}

extension MP3Trailer {
    /// Scans back from the end of `source`, never below `floor` (the end of
    /// the leading ID3v2 tag). Blocks whose sizes don't fit are ignored:
    /// they are then taken as audio.
    init(parsing source: FileSource, floor: Int64) throws {
        var end = source.size
        var trailer = MP3Trailer(audioEnd: end)
        // "TAG" 128 bytes from the end may be inside the "APETAGEX" of a 131-byte
        // APE tag (see `APEFileLayout.mayEndWithID3v1`).
        if try APEFileLayout.mayEndWithID3v1(source, floor: floor), try source.holds("TAG", at: end - Int64(ID3v1Parser.length)),
            let items = ID3v1Parser.items(try source.getBytes(at: end - Int64(ID3v1Parser.length), count: ID3v1Parser.length))
        {
            trailer.id3v1Items = items
            end -= Int64(ID3v1Parser.length)
            let enhanced = end - Int64(ID3v1Parser.enhancedLength)
            if enhanced >= floor, try source.holds("TAG+", at: enhanced) {
                trailer.skippedRanges.append(enhanced..<end)
                end = enhanced
            }
        }
        for _ in 0..<Self.maximumBlocks {
            if let start = try Self.apeTagStart(source, end: end, floor: floor) {
                if trailer.apeTag == nil {
                    var ignored: [MediaWarning] = [] // a footer that doesn't fit is audio here, as before
                    trailer.apeTag = try APETag.find(in: source, endingAt: end, floor: floor, warnings: &ignored)
                }
                trailer.skippedRanges.append(start..<end)
                end = start
            } else if let start = try Self.lyrics3Start(source, end: end, floor: floor) {
                trailer.skippedRanges.append(start..<end)
                end = start
            } else if trailer.appendedID3v2 == nil,
                let tag = try ID3v2Header.appended(in: source, endingAt: end) ?? Self.appendedWithoutFooter(source, end: end, floor: floor),
                tag.offset >= floor
            {
                trailer.appendedID3v2 = tag
                end = tag.offset
            } else {
                break
            }
        }
        trailer.audioEnd = end
        self = trailer
    }

    /// How far before the end an ID3v2 tag without footer is looked for.
    static let footerlessSearch: Int64 = 256 << 10

    /// An ID3v2.3 or v2.4 tag without footer that ends exactly at `end`, as
    /// some players append one before ID3v1 (v2.3 has no footer). Looked for
    /// only when the 4 bytes before `end` are zeros (a tag's padding; audio
    /// frames seldom end so), within ``footerlessSearch`` bytes; the tag's
    /// header must give exactly the size that reaches `end`.
    static func appendedWithoutFooter(_ source: FileSource, end: Int64, floor: Int64) throws -> ID3v2Header? {
        guard end - floor >= Int64(ID3v2Header.length) + 4,
            try source.withBytes(at: end - 4, count: 4, { $0.loadUnaligned(as: UInt32.self) == 0 })
        else {
            return nil
        }
        let start = max(floor, end - footerlessSearch)
        let bytes = try source.getBytes(at: start, count: Int(end - start))
        var index = bytes.count - ID3v2Header.length
        while index >= 0 {
            if bytes[index] == 0x49, bytes[index + 1] == 0x44, bytes[index + 2] == 0x33, bytes[index + 3] == 3 || bytes[index + 3] == 4,
                let header = try? ID3v2Header(bytes: Array(bytes[index..<index + ID3v2Header.length]), offset: start + Int64(index)),
                !header.hasFooter, header.end == end
            {
                return header
            }
            index -= 1
        }
        return nil
    }
}
