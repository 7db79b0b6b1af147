#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// The Vorbis comments of an Ogg file's logical streams other than the
    /// one that gives the file's tags (``vorbis``): the audio streams'
    /// comments beside a leading Theora stream (one whose identification
    /// header starts in the file's first 128 bytes, as `mutagen.File`
    /// chooses), the Theora stream's comment beside an audio main stream, a
    /// second audio stream's. Keys are `<stream>/<FIELD>`: the stream is its codec (`Theora`, `Vorbis`,
    /// `Opus`, `Speex`, `FLAC`), with `#2`, `#3`, … for the second and later
    /// streams of one codec (`Theora/TITLE`, `Vorbis#2/ARTIST`); fields are
    /// uppercased as in ``vorbis``. Read only: a save that changes or removes
    /// one is refused before anything is written.
    public static let oggStream = MetadataKeySpace(rawValue: "ogg-stream")
}

/// The logical streams of an Ogg file's first link: RFC 3533 §4 puts the
/// first (BOS) page of every stream of a link before any other page, so the
/// BOS pages at the start of the file name them all. Streams that follow
/// (a chained file's later links) are not listed.
///
/// Each stream whose codec MetadataKit reads (``OggCodec``) has its header
/// packets read (``OggHeaderScan`` for that serial number): its codec,
/// audio properties (sample rate, channels, nominal bit rate) or picture
/// size go to a ``AssetTrack`` (``AssetTrack/uid`` is the serial number),
/// and its comment — for streams other than the main one — to items in the
/// ``MetadataKeySpace/oggStream`` key space. Skeleton (`fishead`, a
/// metadata stream), Kate (`\x80kate`, subtitles) and other streams are
/// listed by kind only.
///
/// Bounded: at most ``maximumReadStreams`` other streams are read, each over
/// at most ``pageLimit`` pages; a stream whose headers don't read (damage,
/// the file ends) is listed with what its first packet says and a warning,
/// streams past the limit with their codec only.
struct OggLogicalStreams: Sendable {
    var streams: [AssetTrack] = []
    /// The other streams' comments, in ``MetadataKeySpace/oggStream``.
    var items: [MetadataItem] = []
    var warnings: [MediaWarning] = []

    static let maximumReadStreams = 4
    static let pageLimit = 1024

    /// The streams of the link that begins the file; `scan` is the main
    /// stream's (its pages hold every BOS page), `main` its properties.
    static func read(_ source: FileSource, main scan: OggHeaderScan, properties main: MediaProperties) -> OggLogicalStreams {
        var result = OggLogicalStreams()
        var seen: [String: Int] = [:]
        var read = 0
        for page in scan.pages.prefix(while: \.isBeginning) {
            let first = (try? source.getBytes(at: page.bodyOffset, count: page.bodyLength)) ?? []
            let codec = OggCodec(firstPacket: first)
            var stream = AssetTrack(mediaType: kind(of: codec, firstPacket: first), codecName: codec?.rawValue ?? name(firstPacket: first))
            stream.uid = UInt64(page.serial)
            if let codec {
                seen[codec.rawValue, default: 0] += 1
                let label = seen[codec.rawValue] == 1 ? codec.rawValue : "\(codec.rawValue)#\(seen[codec.rawValue]!)"
                if page.serial == scan.serial {
                    describe(&stream, main)
                } else if read < maximumReadStreams {
                    read += 1
                    result.readOther(source, serial: page.serial, label: label, after: scan.end, into: &stream)
                }
            }
            result.streams.append(stream)
        }
        return result
    }

    /// Throws `unsupportedFeature` when `items` change, add or remove any of
    /// the other streams' comment items (they are not written): checked before
    /// anything is written.
    static func refuseChanges(in items: [MetadataItem], source: FileSource, main scan: OggHeaderScan) throws {
        let given = items.filter { $0.keySpace == .oggStream }
        let stored = read(source, main: scan, properties: MediaProperties()).items
        guard given.count != stored.count || Set(given) != Set(stored) else { return }
        let changed = (Set(given).symmetricDifference(stored)).map(\.key).sorted()
        throw MediaError(
            .unsupportedFeature,
            "the comments of Ogg streams other than the \(scan.codec.rawValue) stream are not written; "
                + "changed: \(changed.prefix(5).joined(separator: ", "))")
    }

    /// Reads the headers of another stream: its properties into `stream`, its comment into ``items``.
    private mutating func readOther(
        _ source: FileSource, serial: UInt32, label: String, after mainEnd: Int64, into stream: inout AssetTrack
    ) {
        do {
            let other = try OggHeaderScan.read(source, serial: serial, pageLimit: Self.pageLimit)
            if let properties = try? OggParser.properties(of: other) {
                Self.describe(&stream, properties)
            } else {
                warnings.append(
                    MediaWarning(.malformed, "the \(label) stream's first header packet doesn't parse", offset: other.pages.first?.offset))
            }
            // Junk between pages up to the main stream's last header page is reported by its scan already.
            for warning in other.warnings where warning.code == .truncated || (warning.offset ?? 0) >= mainEnd {
                if warning.code == .truncated || !warnings.contains(warning) { warnings.append(warning) }
            }
            let (found, _, damage) = try OggParser.comment(of: other)
            warnings += damage
            items += found.map { item in
                var item = item
                item.keySpace = .oggStream
                item.key = "\(label)/\(item.key)"
                return item
            }
        } catch let error as MediaError {
            warnings.append(MediaWarning(error.code, "the \(label) stream's headers don't read: \(error.reason)", offset: error.offset))
        } catch {
            warnings.append(MediaWarning(.malformed, "the \(label) stream's headers don't read", offset: nil))
        }
    }

    /// A stream's codec properties (not the file-wide bit rate or duration).
    private static func describe(_ stream: inout AssetTrack, _ properties: MediaProperties) {
        stream.sampleRate = properties.sampleRate
        stream.channels = properties.channels
        stream.width = properties.width
        stream.height = properties.height
        stream.bitrate = properties.bitrate
        stream.bitsPerSample = properties.bitsPerSample
    }

    private static func kind(of codec: OggCodec?, firstPacket: [UInt8]) -> AssetMediaType {
        switch codec {
        case .theora?: .video
        case .some: .audio
        case nil:
            if firstPacket.starts(with: skeleton) {
                .metadata
            } else if firstPacket.starts(with: kate) {
                .subtitle
            } else {
                .other
            }
        }
    }

    private static func name(firstPacket: [UInt8]) -> String? {
        if firstPacket.starts(with: skeleton) { return "Skeleton" }
        if firstPacket.starts(with: kate) { return "Kate" }
        return nil
    }

    /// Ogg Skeleton's fishead packet and Kate's identification header.
    private static let skeleton = Array("fishead\0".utf8)
    private static let kate = [0x80] + Array("kate\0\0\0".utf8)
}
