#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the parts of a file of the APEv2 family lie:
///
///     [ID3v2 tags] audio [APE tag] [Lyrics3 v2] [ID3v1]
///
/// Leading ID3v2 tags (which some taggers put before Musepack, TrueAudio and
/// Monkey's Audio streams) are skipped here and kept by a save (TrueAudio's
/// are read and written through ``MP3Layout``). From the end: an ID3v1 tag (the last 128 bytes, "TAG"), then an APE tag and a
/// Lyrics3 v2 block in either order (mutagen looks for an APE tag behind a
/// Lyrics3 block as well). Detection reads the first bytes and at most the
/// last few hundred.
struct APEFileLayout: Sendable {
    /// First byte after the leading ID3v2 tags: the codec's header.
    var audioStart: Int64
    /// First byte of the trailing tags.
    var audioEnd: Int64
    var tag: APETag?
    /// The ID3v1 items, when there is an ID3v1 tag.
    var id3v1Items: [MetadataItem]?
    /// A Lyrics3 v2 block, kept as it is.
    var lyrics: Range<Int64>?
    var warnings: [MediaWarning] = []

    /// Range of the ID3v1 tag, when there is one.
    func id3v1Range(fileSize: Int64) -> Range<Int64>? {
        id3v1Items == nil ? nil : fileSize - Int64(ID3v1Parser.length)..<fileSize
    }
}

extension APEFileLayout {
    init(parsing source: FileSource) throws {
        let start = try ID3v2Header.endOfLeadingTags(in: source)
        var layout = APEFileLayout(audioStart: start, audioEnd: source.size)
        var end = source.size
        let v1Length = Int64(ID3v1Parser.length)
        // "TAG" 128 bytes from the end may be the middle of an APE tag's
        // "APETAGEX" (a 131-byte tag): see `mayEndWithID3v1`.
        if try Self.mayEndWithID3v1(source, floor: start),
            let items = ID3v1Parser.items(try source.getBytes(at: end - v1Length, count: ID3v1Parser.length))
        {
            layout.id3v1Items = items
            end -= v1Length
        }
        for _ in 0..<2 {
            if layout.tag == nil, let tag = try APETag.find(in: source, endingAt: end, floor: start, warnings: &layout.warnings) {
                layout.tag = tag
                end = tag.start
            } else if layout.lyrics == nil, let lyrics = try Self.lyrics3Start(source, end: end, floor: start) {
                layout.lyrics = lyrics..<end
                end = lyrics
            } else {
                break
            }
        }
        layout.audioEnd = end
        self = layout
    }

    /// Whether the file's last 32 bytes are an APE tag footer.
    static func endsWithAPEFooter(_ source: FileSource, floor: Int64) throws -> Bool {
        guard source.size - floor >= 32 else { return false }
        return try source.holds("APETAGEX", at: source.size - 32)
    }

    /// Whether the "TAG" 128 bytes from the end may start an ID3v1 tag: not
    /// when the file ends with an APE footer, nor when the "TAG" is the middle
    /// of an "APETAGEX" (an APE header or a damaged footer there; mutagen's
    /// `find_id3v1` takes such a "TAG" for the APE tag's too).
    static func mayEndWithID3v1(_ source: FileSource, floor: Int64) throws -> Bool {
        let length = Int64(ID3v1Parser.length)
        guard source.size - floor >= length, try !endsWithAPEFooter(source, floor: floor) else { return false }
        guard source.size - floor >= length + 3 else { return true }
        return try !source.holds("APETAGEX", at: source.size - length - 3)
    }

    /// Whether the file starts with one of `magics`, or has one right after
    /// its leading ID3v2 tags (read only when the head starts with `ID3`).
    static func recognizes(_ probe: FormatProbe, _ magics: [String]) -> Bool {
        func matches(_ bytes: [UInt8]) -> Bool { magics.contains { bytes.starts(with: $0.utf8) } }
        if matches(probe.head) { return true }
        return probe.afterID3Tags.map { matches($0.bytes) } ?? false
    }

    /// Start of a Lyrics3 v2 block ending at `end`: "LYRICSBEGIN" … a
    /// 6-digit size (of everything from "LYRICSBEGIN" up to the size) and
    /// "LYRICS200" (Lyrics3 v2.00 specification).
    static func lyrics3Start(_ source: FileSource, end: Int64, floor: Int64) throws -> Int64? {
        guard end - floor >= 15 + 11 else { return nil }
        guard try source.holds("LYRICS200", at: end - 9) else { return nil }
        let tail = try source.getBytes(at: end - 15, count: 15)
        guard tail[0..<6].allSatisfy({ (0x30...0x39).contains($0) }),
            let size = Int64(String(decoding: tail[0..<6], as: UTF8.self)), size >= 11, size + 15 <= end - floor
        else { return nil }
        let start = end - 15 - size
        guard try source.holds("LYRICSBEGIN", at: start) else { return nil }
        return start
    }
}
