#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Nero chapter list, `moov/udta/chpl` (no public specification; the
/// layout ffmpeg's mov demuxer and muxer, mutagen and VLC agree on): a
/// FullBox; in version 1 four reserved bytes; an 8-bit chapter count; per
/// chapter a 64-bit start in 100 ns units, an 8-bit title length and that
/// many bytes of UTF-8 title.
///
/// Read forgivingly: entries that run past the box are left out (reported by
/// ``isCut``). At most 255 chapters, each title at most 255 bytes, fit.
struct MP4ChapterList: Equatable {
    struct Entry: Equatable {
        /// Start in 100 ns units.
        var start: UInt64
        var title: String
    }

    var entries: [Entry]
    /// True when the box ended before its last announced entry.
    var isCut = false

    /// The units of ``Entry/start`` per second.
    static let unitsPerSecond: Double = 10_000_000

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// Reads the payload of a `chpl` box (at most 64 KiB of it: 255 chapters
    /// of at most 264 bytes each fit).
    init(parsing header: MP4BoxHeader, in source: FileSource) throws {
        var reader = try source.mp4Payload(of: header, upTo: 5 + 4 + 255 * (9 + 255))
        let version = try reader.readUInt8()
        try reader.skip(3 + (version == 0 ? 0 : 4))
        let count = Int(try reader.readUInt8())
        entries = []
        for _ in 0..<count {
            guard reader.remaining >= 9 else {
                isCut = true
                break
            }
            let start = try reader.readUInt64()
            let length = Int(try reader.readUInt8())
            guard reader.remaining >= length else {
                isCut = true
                break
            }
            entries.append(Entry(start: start, title: MP4Text.utf8(try reader.readBytes(length))))
        }
    }

    /// The chapters, each ending where the next starts and the last at
    /// `duration` (seconds) when known.
    func chapters(duration: Double?) -> [Chapter] {
        entries.enumerated().map { index, entry in
            let start = Double(entry.start) / Self.unitsPerSecond
            let end = index + 1 < entries.count ? Double(entries[index + 1].start) / Self.unitsPerSecond : duration
            return Chapter(start: start, end: end.map { max($0, start) }, titles: [Chapter.Title(entry.title)])
        }
    }

    /// The list for `chapters`: the first 255, titles cut to 255 bytes at a
    /// character boundary, starts rounded to 100 ns.
    init(chapters: [Chapter]) {
        entries = chapters.prefix(255).map { chapter in
            let units = (max(0, chapter.start) * Self.unitsPerSecond).rounded()
            return Entry(start: units < 1.8e19 ? UInt64(units) : UInt64.max, title: Self.cut(chapter.title ?? "", to: 255))
        }
    }

    /// `text` as UTF-8 of at most `limit` bytes, cut before a character.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// The whole `chpl` box, version 1 (as ffmpeg writes it).
    var box: [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(0x0100_0000)) // version 1, flags 0
        writer.write(UInt32(0)) // reserved
        writer.write(UInt8(entries.count))
        for entry in entries {
            writer.write(entry.start)
            let title = Array(entry.title.utf8.prefix(255))
            writer.write(UInt8(title.count))
            writer.write(title)
        }
        return MP4MetadataEncoder.box("chpl", writer.bytes)
    }
}
