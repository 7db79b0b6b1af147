import Foundation

@testable import MetadataKit

/// Builds small Matroska files byte by byte for the hostile and truncation
/// tests (real files come from ffmpeg and mkvmerge).
enum MatroskaBuilder {
    typealias ID = MatroskaID

    static func element(_ id: UInt32, _ data: [UInt8]) -> [UInt8] { EBML.element(id, data) }
    static func uint(_ id: UInt32, _ value: UInt64) -> [UInt8] { EBML.element(id, unsigned: value) }
    static func string(_ id: UInt32, _ value: String) -> [UInt8] { EBML.element(id, string: value) }

    /// An EBML header of `docType`.
    static func header(docType: String = "matroska") -> [UInt8] {
        element(
            ID.ebml,
            uint(ID.ebmlVersion, 1) + uint(ID.ebmlReadVersion, 1) + uint(ID.ebmlMaxIDLength, 4) + uint(ID.ebmlMaxSizeLength, 8)
                + string(ID.docType, docType) + uint(ID.docTypeVersion, 4) + uint(ID.docTypeReadVersion, 2))
    }

    /// Info with a 1 ms scale, `duration` ticks and an optional title.
    static func info(title: String? = nil, duration: Double = 2000) -> [UInt8] {
        var data = uint(ID.timestampScale, 1_000_000)
        withUnsafeBytes(of: duration.bitPattern.bigEndian) { data += element(ID.duration, Array($0)) }
        if let title { data += string(ID.title, title) }
        data += string(ID.muxingApp, "builder") + string(ID.writingApp, "builder")
        return element(ID.info, data)
    }

    /// One audio track (A_OPUS, 48 kHz, 2 channels).
    static func tracks() -> [UInt8] {
        let audio = element(ID.audio, element(ID.samplingFrequency, [0x40, 0xE7, 0x70, 0, 0, 0, 0, 0]) + uint(ID.channels, 2))
        let entry = uint(ID.trackNumber, 1) + uint(ID.trackUID, 77) + uint(ID.trackType, 2) + string(ID.codecID, "A_OPUS") + audio
        return element(ID.tracks, element(ID.trackEntry, entry))
    }

    /// A Tag of `target` (TargetTypeValue) with `pairs` as SimpleTags.
    static func tag(target: UInt64?, _ pairs: [(String, String)]) -> [UInt8] {
        var data = element(ID.targets, target.map { uint(ID.targetTypeValue, $0) } ?? [])
        for (name, value) in pairs {
            data += element(ID.simpleTag, string(ID.tagName, name) + string(ID.tagLanguage, "und") + string(ID.tagString, value))
        }
        return element(ID.tag, data)
    }

    /// A Cluster with a timestamp and one tiny SimpleBlock.
    static func cluster() -> [UInt8] {
        element(ID.cluster, uint(0xE7, 0) + element(0xA3, [0x81, 0, 0, 0x80, 1, 2, 3, 4]))
    }

    /// A Seek entry.
    static func seek(_ id: UInt32, _ position: Int) -> [UInt8] {
        element(ID.seek, element(ID.seekID, EBML.idBytes(id)) + uint(ID.seekPosition, UInt64(position)))
    }

    /// A whole file: header, then a Segment of `children` (size known unless `unknownSize`).
    static func file(_ children: [[UInt8]], unknownSize: Bool = false, docType: String = "matroska") -> [UInt8] {
        let data = children.flatMap { $0 }
        let segment =
            unknownSize ? EBML.idBytes(ID.segment) + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + data : element(ID.segment, data)
        return header(docType: docType) + segment
    }

    /// A typical small file: SeekHead (Info, Tracks, Tags), Void, Info, Tracks, Tags, Cluster.
    static func typical(
        title: String? = "Movie",
        tags: [[UInt8]] = [tag(target: 50, [("TITLE", "Album")]), tag(target: 30, [("TITLE", "Song"), ("ARTIST", "Singer")])],
        voidSize: Int = 40
    ) -> [UInt8] {
        let info = info(title: title), tracks = tracks()
        let tagsElement = element(ID.tags, tags.flatMap { $0 })
        // The SeekHead's size depends on the positions; positions fit in 1 byte here, so one pass is enough.
        let probe = element(ID.seekHead, seek(ID.info, 0) + seek(ID.tracks, 0) + seek(ID.tags, 0))
        let start = probe.count + voidSize
        let seekHead = element(
            ID.seekHead,
            seek(ID.info, start) + seek(ID.tracks, start + info.count) + seek(ID.tags, start + info.count + tracks.count))
        precondition(seekHead.count == probe.count, "positions must fit in one byte")
        return file([seekHead, EBML.void(count: voidSize), info, tracks, tagsElement, cluster()])
    }

    static func write(_ bytes: [UInt8], _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
