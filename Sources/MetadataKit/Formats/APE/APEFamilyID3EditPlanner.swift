#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the tags of the files of the APE family (Monkey's Audio, WavPack,
/// Musepack, TrueAudio, OptimFROG, TAK) that may start with ID3v2 tags:
///
///     [ID3v2 tag] stream [APEv2 tag] [Lyrics3 v2] [ID3v1]
///
/// TagLib's `TrueAudio::File` and mutagen's `TrueAudio` keep the tags of a
/// TrueAudio file in a leading ID3v2 tag (and ID3v1); the rest of the family
/// keeps them in an APEv2 tag at the end, but some taggers put an ID3v2 tag
/// in front, which exiftool and players read. Both are read and both are
/// written, so no reader is left with a stale value:
/// - The leading ID3v2 tags (merged as in MP3 files, ``MP3Layout``) are
///   replaced by one tag holding the `.id3` items (``ID3v2TagWriter``: every
///   frame it can't re-encode kept byte for byte, or the save refused). It
///   keeps its old space when it fits there (``ID3v2PaddingPolicy``); a file
///   without one gets one only for `.id3` items; no `.id3` item left (or
///   ``SaveOptions/removesAllTags``): no ID3v2 tag.
/// - The tail (APE tag, Lyrics3 block, ID3v1) is written as for every file
///   of the APE family (``APEFamilyEditPlanner/tail(_:_:_:loaded:)``).
/// - The stream is copied untouched. When both the head and the tail keep
///   their sizes the save is a set of in-place patches, else a rewrite.
///
/// A field the file holds in both tags is changed in both; a field it holds
/// in neither goes to the format's primary key space: the ID3v2 tag for
/// TrueAudio, made when the file has none (TagLib's `TrueAudio::File` and
/// mutagen read no APE tag there, see ``MediaFormat/trueAudio``), the APE
/// tag for the others.
///
/// A file without a leading ID3v2 tag that is given no `.id3` item is saved
/// exactly as the other formats of the family. An ID3v2 tag appended at the
/// end, a leading tag cut by the end of the file or leading tags that don't
/// end where the stream starts are refused (`unsupportedFeature`,
/// `truncated`) before anything is written.
enum APEFamilyID3EditPlanner {
    static func plan(_ source: FileSource, _ items: [MetadataItem], _ options: SaveOptions) throws -> FileEditPlan {
        let url = URL(fileURLWithPath: source.path, isDirectory: false)
        let id3 = try MP3Layout(parsing: source, url: url)
        let wantsID3 = !options.removesAllTags && items.contains { $0.keySpace == .id3 }
        guard !id3.leading.isEmpty || wantsID3 else { return try APEFamilyEditPlanner.plan(source, items, options) }
        if let problem = id3.tagObstacle() { throw problem }
        if let appended = id3.appended {
            throw MediaError(
                .unsupportedFeature, "MetadataKit doesn't write a file of the APE family with an ID3v2 tag appended at its end",
                offset: appended.header.offset)
        }
        let tail = try APEFamilyEditPlanner.tail(source, items, options, loaded: id3.frames.items)
        let audioStart = id3.audioStart
        guard tail.layout.audioStart == audioStart, tail.offset >= audioStart else {
            throw MediaError(
                .unsupportedFeature, "the leading ID3v2 tags don't end where the audio stream starts", offset: audioStart)
        }

        var head: [UInt8] = []
        if wantsID3 {
            let version = id3.version(for: options.id3v2Version)
            let frames = try id3.tagWriter(source, version: version).frames(for: items)
            if !frames.isEmpty {
                let space = audioStart - Int64(ID3v2Header.length)
                let policy = ID3v2PaddingPolicy.standard
                let reuses = audioStart > 0 && policy.reuses(space: space, content: frames.count)
                var padding = reuses ? Int(space) - frames.count : policy.padding(audioBytes: tail.offset - audioStart)
                // Bytes that could not be read as frames end the tag, as in MP3 files.
                if id3.leading.first?.unparsed != nil { padding = 0 }
                head = try ID3v2TagWriter.tag(frames: frames, version: version, padding: padding)
            }
        }

        if Int64(head.count) == audioStart, Int64(tail.bytes.count) == source.size - tail.offset {
            var patches: [(offset: Int64, bytes: [UInt8])] = []
            if let patch = try FileEditPlan.changedPatch(of: head, at: 0, in: source) { patches.append(patch) }
            if let patch = try FileEditPlan.changedPatch(of: tail.bytes, at: tail.offset, in: source) { patches.append(patch) }
            return .inPlace(patches)
        }
        return .rewrite(
            FileEditPlan.coalesced([
                .bytes(head), .original(offset: audioStart, length: tail.offset - audioStart), .bytes(tail.bytes),
            ]))
    }
}
