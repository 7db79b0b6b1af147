#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Chapter pictures: a video track of still images named, beside the text
/// chapter track, by a `tref/chap` box (QTFF "Chapter lists"; Apple's
/// audiobooks, Subler, mp4chaps and AtomicParsley-style tools write it).
/// Each sample is one JPEG or PNG image (sample entry `jpeg`, `png ` or
/// `mp4v` holding JPEG data); the sample playing at a chapter's start is
/// that chapter's ``Chapter/artwork``.
///
/// The pictures are not loaded: each ``Artwork`` records where its sample
/// lies and reads the image header for its size; the bytes are read when
/// asked for. At most ``MP4ChapterTrack/maxChapters`` samples are looked
/// at; a sample that lies past the end of the file, or is neither JPEG nor
/// PNG, gives no picture.
enum MP4ChapterImages {
    /// Sample entry types of a chapter picture track.
    static let imageEntries: Set<FourCC> = ["jpeg", "png ", "mp4v"]

    /// The picture track among `ids`, if any: its `trak`.
    static func imageTrack(in moov: MP4Box, ids: [UInt32], source: FileSource) -> MP4Box? {
        for trak in moov.children("trak") {
            let boxes = MP4TrackBoxes(trak: trak, source: source)
            guard let header = try? boxes.trackHeader(), ids.contains(header.trackID),
                let entry = try? boxes.sampleDescriptions()?.firstEntry(in: source, depth: MP4TrackBoxes.sampleEntryDepth),
                imageEntries.contains(entry.type)
            else { continue }
            return trak
        }
        return nil
    }

    /// Gives each chapter the picture of the sample playing at its start;
    /// problems are added to `warnings`.
    static func attach(to chapters: inout [Chapter], from trak: MP4Box, source: FileSource, warnings: inout [MediaWarning]) {
        let boxes = MP4TrackBoxes(trak: trak, source: source)
        guard !chapters.isEmpty, let timing = try? boxes.mediaTiming(), timing.timescale > 0, let stbl = boxes.sampleTableBox
        else { return }
        let table: SampleTable
        do {
            table = try SampleTable(parsing: stbl, in: source)
        } catch let error as MediaError {
            warnings.append(MediaWarning(error.code, "chapter pictures: \(error.reason)", offset: error.offset ?? trak.header.offset))
            return
        } catch {
            return
        }
        warnings += table.warnings.map { MediaWarning($0.code, "chapter pictures: \($0.message)", offset: $0.offset) }
        let scale = Double(timing.timescale)
        var samples: [(start: Double, sample: SampleInfo)] = []
        var cursor = table.makeCursor()
        while let sample = cursor.next() {
            guard samples.count < MP4ChapterTrack.maxChapters else {
                warnings.append(
                    MediaWarning(
                        .sizeOutOfRange, "chapter pictures: only the first \(MP4ChapterTrack.maxChapters) are read",
                        offset: trak.header.offset))
                break
            }
            samples.append((Double(sample.decodeTime) / scale, sample))
        }
        let url = URL(fileURLWithPath: source.path)
        for index in chapters.indices {
            // The last sample starting at or before the chapter (a thousandth of a second early counts).
            let time = chapters[index].start + 0.001
            var low = 0
            var high = samples.count
            while low < high {
                let middle = (low + high) / 2
                if samples[middle].start <= time { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { continue }
            chapters[index].artwork = picture(samples[low - 1].sample, source: source, url: url, warnings: &warnings)
        }
    }

    /// The picture of one sample; nil when it lies past the end of the file
    /// or is neither JPEG nor PNG.
    static func picture(_ sample: SampleInfo, source: FileSource, url: URL, warnings: inout [MediaWarning]) -> Artwork? {
        guard sample.size >= 8, sample.offset >= 0, sample.offset <= source.size - Int64(sample.size) else {
            warnings.append(
                MediaWarning(
                    .truncated, "chapter pictures: sample \(sample.index + 1) lies past the end of the file", offset: sample.offset))
            return nil
        }
        guard let head = try? source.getBytes(at: sample.offset, count: 8) else { return nil }
        let mimeType: String
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            mimeType = "image/jpeg"
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            mimeType = "image/png"
        } else {
            return nil
        }
        return Artwork(
            source: source, url: url, offset: sample.offset, byteCount: sample.size, mimeType: mimeType, pictureType: .other,
            description: "")
    }
}
