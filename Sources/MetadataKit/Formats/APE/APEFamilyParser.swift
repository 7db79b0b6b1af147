#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the files whose main tag is APEv2: Monkey's Audio, WavPack,
/// Musepack, TrueAudio, OptimFROG and TAK. The tags come from
/// ``APEFileLayout`` (the APE tag as ``MetadataKeySpace/ape`` items, then
/// ID3v1 as ``MetadataKeySpace/id3v1`` items); the properties from the
/// codec's header at the start of the stream.
///
/// With `readsID3v2` (every format of the family: TagLib and mutagen read
/// TrueAudio's so, exiftool and players the others'), the leading ID3v2
/// tags are read too (merged as in MP3 files, ``MP3Layout``), their
/// ``MetadataKeySpace/id3`` items first; otherwise they are skipped.
///
/// Forgiving: a damaged APE tag is read as far as it goes (the file is then
/// not editable, see ``APEFamilyEditPlanner``); a codec header that can't be
/// read is a warning and leaves the properties it could not give empty; a
/// stream cut short (``APEStreamCut``) is a warning and makes the file
/// read-only.
enum APEFamilyParser {
    /// Reads a codec header at `start`, the stream ending at `end` (where the
    /// trailing tags begin). Throws `unsupportedFormat` when the header is not
    /// this codec's.
    typealias HeaderParser = (_ source: FileSource, _ start: Int64, _ end: Int64) throws -> MediaProperties

    static func parse(
        _ source: FileSource, url: URL, fileType: FileType, codec: String, readsID3v2: Bool = false, header: HeaderParser
    ) throws -> ParsedFile {
        let layout = try APEFileLayout(parsing: source)
        var warnings = layout.warnings
        var properties = MediaProperties()
        do {
            properties = try header(source, layout.audioStart, layout.audioEnd)
        } catch let partial as PartialHeader {
            properties = partial.properties
            warnings.append(partial.warning)
        } catch let error as MediaError where error.code != .unsupportedFormat {
            warnings.append(MediaWarning(error))
            properties.codec = codec
        }
        var items = try layout.tag?.metadataItems(source: source, url: url) ?? []
        items += layout.id3v1Items ?? []
        var isEditable = layout.tag?.isDamaged != true
        // A stream cut short: a warning at the cut, and read-only (a tag after it would be decoded as audio).
        if let cut = try? APEStreamCut.check(source, layout.audioStart, layout.audioEnd) {
            if !warnings.contains(where: { $0.code == .truncated && $0.offset == cut.offset }) { warnings.append(cut) }
            isEditable = false
        }
        if readsID3v2, layout.audioStart > 0 {
            do {
                let id3 = try MP3Layout(parsing: source, url: url)
                items = id3.frames.items + items
                warnings = id3.warnings + warnings
                isEditable = isEditable && id3.obstacle(version: id3.version(for: .keep), source: source) == nil
            } catch let error as MediaError {
                warnings.insert(MediaWarning(error), at: 0)
                isEditable = false
            }
        }
        return ParsedFile(fileType: fileType, items: items, properties: properties, isEditable: isEditable, warnings: warnings)
    }

    /// Thrown by a ``HeaderParser`` that read a damaged header as far as it
    /// goes: the properties it could give, and the warning for the damage.
    struct PartialHeader: Error {
        var properties: MediaProperties
        var warning: MediaWarning
    }

    /// Properties from a header's numbers: the duration from `samples` (per
    /// channel) over the rate, the bit rate from the stream's bytes over the
    /// duration.
    static func properties(
        codec: String, sampleRate: Int, channels: Int, bitsPerSample: Int?, samples: UInt64?, streamBytes: Int64
    ) -> MediaProperties {
        var properties = MediaProperties()
        properties.codec = codec
        properties.sampleRate = sampleRate > 0 ? sampleRate : nil
        properties.channels = channels > 0 ? channels : nil
        properties.bitsPerSample = bitsPerSample.flatMap { $0 > 0 ? $0 : nil }
        if let samples, samples > 0, sampleRate > 0 {
            let duration = Double(samples) / Double(sampleRate)
            properties.duration = duration
            if streamBytes > 0 { properties.bitrate = Int((Double(streamBytes) * 8 / duration).rounded()) }
        }
        return properties
    }
}
