import Foundation

/// Reads MP3 (and MP2/MP1) files: the ID3v2 tag at the start, an ID3v2 tag
/// appended at the end, ID3v1, and the MPEG audio properties. APEv2 tags and
/// Lyrics3 v2 blocks at the end are recognised only to keep them out of the
/// audio range.
///
/// Layout handled:
///
///     [ID3v2 …] [junk] audio frames [ID3v2 with footer] [APEv2] [Lyrics3v2] [TAG+] [ID3v1]
enum MP3Reader {
    /// Leading ID3v2 tags skipped after the first (whose items are read).
    private static let maximumLeadingTags = 8

    static func read(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        var items: [MetadataItem] = []
        var audioStart: Int64 = 0
        var hasTag = false

        if let header = try ID3v2Header.read(from: source, at: 0) {
            items += try ID3v2TagReader(source: source, url: url, header: header).read()
            audioStart = header.end
            hasTag = true
            // Further tags right after the first (rare): skipped, not read.
            for _ in 0..<maximumLeadingTags {
                guard let next = try? ID3v2Header.read(from: source, at: audioStart) else { break }
                audioStart = next.end
            }
        }

        let trailer = try MP3Trailer.scan(source, floor: audioStart)
        if let appended = trailer.appendedID3v2 {
            items += try ID3v2TagReader(source: source, url: url, header: appended).read()
            hasTag = true
        }
        if let v1 = trailer.id3v1Items {
            items += v1
            hasTag = true
        }

        let properties = try MPEGAudioScanner.properties(in: source, from: audioStart, to: trailer.audioEnd)
        guard properties != nil || hasTag else {
            throw MediaError(.unsupportedFormat, "no ID3 tag and no MPEG audio frame found", offset: audioStart)
        }
        return ParsedFile(fileType: .mp3, items: items, properties: properties ?? MediaProperties(), isEditable: true)
    }
}
