#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads WAV files: RIFF/WAVE, RF64 and BW64.
///
/// - Properties from `fmt ` (``WAVFormatChunk``) and the `data` size: duration is
///   the whole sample frames in `data` (bytes / block align) over the sample
///   rate for PCM; for compressed formats the `fact` sample count (or the
///   `ds64` one) over the rate, else bytes over the average byte rate. The
///   bit rate is the average byte rate × 8.
/// - Tags: `LIST`/`INFO` subchunks as ``MetadataKeySpace/riff`` items
///   (``RIFFInfo``; several INFO lists are read in order), and the first
///   `id3 `/`ID3 ` chunk as ``MetadataKeySpace/id3`` items (``IFFID3Chunk``).
///   The Broadcast Wave `bext`, `iXML` and `cart` chunks give their items
///   (``BroadcastWAV``); an XMP packet in a `_PMX` chunk is an
///   ``MetadataKeySpace/xmp`` item (``XMPChunk``). Items are listed in chunk
///   order. Where both hold a field, ID3 wins
///   (``MetadataKeyMap``).
/// - A file that ends inside `data` loads read-only (``IFFChunkWalker``), as
///   does one whose INFO list has a subchunk running past it (the subchunks
///   before it are read, with a warning; a save would have to rewrite it),
///   and one with no `data` chunk (properties from `fmt `, a duration
///   of 0 s, as mutagen reads it; a warning).
///   Other damage — a RIFF size that disagrees with the file, a chunk past
///   the RIFF end, a chunk cut off after `data`, a missing pad byte, an ID3
///   tag larger than its chunk — is read around and reported in
///   ``ParsedFile/warnings``; such files stay editable (the save keeps the
///   damaged bytes or writes the sizes right, as each warning says).
enum WAVParser {
    static func parse(_ source: FileSource, _ url: URL) throws -> ParsedFile {
        let wav = try WAVStructure(parsing: source)
        guard let fmtChunk = wav.structure.first("fmt ") else {
            throw wav.structure.cutChunk ?? MediaError(.malformed, "the WAVE file has no 'fmt ' chunk", offset: 12)
        }
        let format = try WAVFormatChunk(source.reader(at: fmtChunk.payloadOffset, count: Int(min(fmtChunk.size, 64))))
        var items: [MetadataItem] = []
        var warnings = wav.structure.warnings
        let data = wav.structure.first("data")
        // A chunk the file cuts before any `data`: the audio may be past the damage; nothing sensible to report.
        if data == nil, let cut = wav.structure.cutChunk { throw cut }
        if data == nil {
            warnings.append(
                MediaWarning(
                    .malformed, "the WAVE file has no 'data' chunk (in its RIFF size); no audio, and the file is read-only",
                    offset: wav.structure.containerEnd))
        }
        var damagedInfo = false
        let id3 = try IFFID3Chunk.read(in: wav.chunks, source: source, url: url)
        for chunk in wav.chunks {
            if let id3, chunk == id3.chunk {
                items += id3.items
                warnings += id3.warnings
            } else if try XMPChunk.holds(chunk, XMPChunk.wav, source: source) {
                let xmp = try XMPChunk.read(chunk, XMPChunk.wav, source: source)
                items.append(xmp.item)
                warnings += xmp.warnings
            } else if try RIFFInfo.isInfoList(chunk, source: source) {
                let (entries, damage) = try RIFFInfo.readableEntries(in: chunk, source: source)
                items += entries.compactMap(\.item)
                if let damage {
                    damagedInfo = true
                    warnings.append(
                        MediaWarning(
                            damage.code, damage.reason + "; the rest of the list is not read, and the file is read-only",
                            offset: damage.offset))
                }
            } else if let broadcast = try BroadcastWAV.items(of: chunk, in: wav.chunks, source: source, sampleRate: format.sampleRate) {
                items += broadcast.items
                warnings += broadcast.warnings
            }
        }

        var properties = MediaProperties()
        properties.codec = format.codec
        properties.channels = format.channels
        properties.sampleRate = format.sampleRate
        properties.bitsPerSample = format.reportedBitsPerSample
        if format.averageBytesPerSecond > 0 { properties.bitrate = format.averageBytesPerSecond * 8 }
        let dataBytes = data.map { min($0.size, source.size - $0.payloadOffset) } ?? 0
        var frames: Int64?
        if format.isPCM {
            frames = dataBytes / Int64(format.blockAlign)
        } else if let count = try sampleCount(wav, source: source), count > 0 {
            frames = count
        }
        if let frames {
            properties.duration = Double(frames) / Double(format.sampleRate)
        } else if format.averageBytesPerSecond > 0 {
            properties.duration = Double(dataBytes) / Double(format.averageBytesPerSecond)
        }
        warnings.sort { ($0.offset ?? 0) < ($1.offset ?? 0) }
        return ParsedFile(
            fileType: .wav, items: items, properties: properties, isEditable: !wav.structure.isTruncated && !damagedInfo && data != nil,
            warnings: warnings, chapterTables: id3?.chapterTables ?? [])
    }

    /// The sample count of the `fact` chunk (the `ds64` one when `fact` holds 0xFFFFFFFF).
    private static func sampleCount(_ wav: WAVStructure, source: FileSource) throws -> Int64? {
        guard let fact = wav.structure.first("fact"), fact.size >= 4 else { return nil }
        var reader = try source.reader(at: fact.payloadOffset, count: 4)
        let count = try reader.readUInt32(.little)
        if count == UInt32.max, let ds64 = wav.ds64 { return ds64.sampleCount }
        return Int64(count)
    }
}
