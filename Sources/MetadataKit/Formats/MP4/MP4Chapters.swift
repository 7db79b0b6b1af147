#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The chapters of an MP4/QuickTime file, read from its QuickTime chapter
/// track (``MP4ChapterTrack``) or its Nero chapter list (``MP4ChapterList``).
///
/// Files from ffmpeg, iTunes and audiobook tools usually hold both with the
/// same chapters; one table is made (default), from the chapter track when
/// it holds any — it keeps each chapter's end and titles longer than 255
/// bytes — else from `chpl`. A picture track named by `tref/chap` gives the
/// chapters their pictures (``MP4ChapterImages``). Damage in any of them is
/// read around with a warning.
enum MP4Chapters {
    static func tables(in moov: MP4Box, source: FileSource, warnings: inout [MediaWarning]) -> [ChapterTable] {
        let ids = MP4ChapterTrack.referencedIDs(in: moov, source: source)
        var chapters = chapterList(in: moov, ids: ids, source: source, warnings: &warnings)
        if !ids.isEmpty, let trak = MP4ChapterImages.imageTrack(in: moov, ids: ids, source: source) {
            MP4ChapterImages.attach(to: &chapters, from: trak, source: source, warnings: &warnings)
        }
        return chapters.isEmpty ? [] : [ChapterTable(isDefault: true, chapters: chapters)]
    }

    /// The chapters of the text chapter track among `ids`, else of `chpl`.
    private static func chapterList(in moov: MP4Box, ids: [UInt32], source: FileSource, warnings: inout [MediaWarning]) -> [Chapter] {
        let duration = movieTiming(moov, source: source)?.seconds
        if !ids.isEmpty, let trak = MP4ChapterTrack.textTrack(in: moov, ids: ids, source: source) {
            do {
                let chapters = try MP4ChapterTrack.chapters(of: trak, source: source, warnings: &warnings)
                if !chapters.isEmpty { return chapters }
            } catch let error as MediaError {
                warnings.append(MediaWarning(error.code, "chapter track: \(error.reason)", offset: error.offset ?? trak.header.offset))
            } catch {}
        }
        guard let chpl = moov.child("udta")?.child("chpl") else { return [] }
        do {
            let list = try MP4ChapterList(parsing: chpl.header, in: source)
            if list.isCut {
                warnings.append(
                    MediaWarning(.truncated, "'chpl' box ends inside its chapter list: the rest is not read", offset: chpl.header.offset))
            }
            return list.chapters(duration: duration)
        } catch let error as MediaError {
            warnings.append(MediaWarning(error.code, "'chpl' box: \(error.reason)", offset: error.offset ?? chpl.header.offset))
            return []
        } catch {
            return []
        }
    }

    /// `mvhd`'s timescale and duration; nil without a readable one.
    static func movieTiming(_ moov: MP4Box, source: FileSource) -> MP4HeaderTiming? {
        guard let mvhd = moov.child("mvhd"), var reader = try? source.mp4Payload(of: mvhd.header, upTo: 32) else { return nil }
        return try? MP4HeaderTiming(parsing: &reader)
    }
}
