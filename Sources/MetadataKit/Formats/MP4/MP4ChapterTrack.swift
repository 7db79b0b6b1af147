#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A QuickTime chapter track (QTFF "Chapter lists"; Apple's apps,
/// AVFoundation and ffmpeg use it): a text track that another track names in
/// its `tref/chap` box. Each sample is one chapter: a 16-bit length, that
/// many bytes of title (UTF-8, or UTF-16 after a byte-order mark) and
/// optional atoms (`encd`, style boxes) after it; its time and duration come
/// from the track's `stts` and `mdhd` timescale.
///
/// Read forgivingly and bounded: at most ``maxChapters`` samples and
/// ``maxTitleBytes`` of each are read; a sample whose bytes lie past the end
/// of the file, or whose length runs past its sample, ends the list there.
enum MP4ChapterTrack {
    static let maxChapters = 10_000
    static let maxTitleBytes = 4096
    /// Sample entry types of a text chapter track: QuickTime text, 3GPP timed text.
    static let textEntries: Set<FourCC> = ["text", "tx3g"]
    /// The `encd` atom ffmpeg and Apple append to a sample: text encoding 0x100 (UTF-8).
    static let encodingAtom: [UInt8] = [0, 0, 0, 12, 0x65, 0x6E, 0x63, 0x64, 0, 0, 1, 0]

    /// The IDs that `tref/chap` boxes name, in track order, without repeats.
    static func referencedIDs(in moov: MP4Box, source: FileSource) -> [UInt32] {
        var ids: [UInt32] = []
        for trak in moov.children("trak") where trak.child("tref")?.child("chap") != nil {
            let references = (try? MP4TrackBoxes(trak: trak, source: source).references()) ?? []
            for reference in references where reference.type == "chap" {
                for id in reference.trackIDs where id != 0 && !ids.contains(id) { ids.append(id) }
            }
        }
        return ids
    }

    /// The IDs of the text chapter tracks (named by a `tref/chap`).
    static func textTrackIDs(in moov: MP4Box, source: FileSource) -> Set<UInt32> {
        let ids = referencedIDs(in: moov, source: source)
        guard !ids.isEmpty else { return [] }
        var result = Set<UInt32>()
        for trak in moov.children("trak") {
            let boxes = MP4TrackBoxes(trak: trak, source: source)
            guard let id = try? boxes.trackHeader()?.trackID, ids.contains(id),
                let entry = try? boxes.sampleDescriptions()?.firstEntry(in: source, depth: MP4TrackBoxes.sampleEntryDepth),
                textEntries.contains(entry.type)
            else { continue }
            result.insert(id)
        }
        return result
    }

    /// The text track among `ids`, if any: its `trak`.
    static func textTrack(in moov: MP4Box, ids: [UInt32], source: FileSource) -> MP4Box? {
        for trak in moov.children("trak") {
            let boxes = MP4TrackBoxes(trak: trak, source: source)
            guard let header = try? boxes.trackHeader(), ids.contains(header.trackID) else { continue }
            guard let entry = try? boxes.sampleDescriptions()?.firstEntry(in: source, depth: MP4TrackBoxes.sampleEntryDepth),
                textEntries.contains(entry.type)
            else { continue }
            return trak
        }
        return nil
    }

    /// The chapters of a text chapter track; problems are added to `warnings`.
    static func chapters(of trak: MP4Box, source: FileSource, warnings: inout [MediaWarning]) throws -> [Chapter] {
        let boxes = MP4TrackBoxes(trak: trak, source: source)
        guard let timing = try boxes.mediaTiming(), timing.timescale > 0, let stbl = boxes.sampleTableBox else { return [] }
        let table = try SampleTable(parsing: stbl, in: source)
        warnings += table.warnings.map { MediaWarning($0.code, "chapter track: \($0.message)", offset: $0.offset) }
        let scale = Double(timing.timescale)
        var chapters: [Chapter] = []
        var cursor = table.makeCursor()
        while let sample = cursor.next() {
            guard chapters.count < maxChapters else {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "chapter track: only the first \(maxChapters) chapters are read", offset: trak.header.offset))
                break
            }
            guard sample.size >= 2, sample.offset >= 0, sample.offset <= source.size - Int64(sample.size) else {
                warnings.append(
                    MediaWarning(
                        .truncated, "chapter track: sample \(sample.index + 1) lies past the end of the file", offset: sample.offset))
                break
            }
            let head = try source.getBytes(at: sample.offset, count: min(sample.size, 2 + maxTitleBytes))
            let length = Int(head[0]) << 8 | Int(head[1])
            guard length <= sample.size - 2 else {
                warnings.append(
                    MediaWarning(
                        .malformed, "chapter track: sample \(sample.index + 1) holds \(sample.size - 2) bytes, not \(length)",
                        offset: sample.offset))
                break
            }
            let start = Double(sample.decodeTime) / scale
            let end = Double(sample.decodeTime + sample.duration) / scale
            chapters.append(Chapter(start: start, end: end, titles: [Chapter.Title(title(Array(head[2..<min(head.count, 2 + length)])))]))
        }
        return chapters
    }

    /// A sample's title: UTF-16 after a byte-order mark, else UTF-8.
    static func title(_ bytes: [UInt8]) -> String {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return MP4Text.utf16BigEndian(bytes)
        }
        return MP4Text.utf8(bytes)
    }
}
