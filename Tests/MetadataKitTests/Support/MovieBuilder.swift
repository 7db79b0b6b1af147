import Foundation

@testable import MetadataKit

/// Builds whole movies with real sample tables and media: `ftyp`, `mdat`
/// holding every track's samples, then `moov` with `mvhd` and one `trak` per
/// track (`tkhd`, optional `edts/elst`, `tref`, `mdia` with `mdhd`, `hdlr`,
/// `minf/stbl`). Headers can be written in version 0 or 1, and any `stbl`
/// child can be replaced by hand-made bytes (hostile tables).
enum MovieBuilder {
    typealias B = MP4Builder

    struct Track {
        var id: UInt32
        var handler: FourCC
        /// The `stsd` entry (a whole box).
        var entry: [UInt8]
        var timescale: Int
        /// The bytes of each sample, in decode order.
        var samples: [[UInt8]]
        /// Each sample's `stts` delta.
        var durations: [Int]
        var samplesPerChunk = 1
        /// `elst` entries: segment duration (movie timescale), media time (-1: empty).
        var editList: [(duration: Int64, mediaTime: Int64)] = []
        var references: [(type: FourCC, ids: [UInt32])] = []
        /// Version of `tkhd`, `mdhd` and `elst` (1: 64-bit times and durations).
        var version: UInt8 = 0
        var width = 0, height = 0
        /// `stbl` children to write instead of the computed ones, by type
        /// (an empty array leaves the box out); more are appended.
        var replacing: [FourCC: [UInt8]] = [:]

        var mediaDuration: Int64 { durations.reduce(0) { $0 + Int64($1) } }
    }

    /// A visual sample entry of `width` × `height`.
    static func videoEntry(_ format: FourCC = "avc1", width: Int = 64, height: Int = 48) -> [UInt8] {
        B.videoEntry(format, width: width, height: height)
    }

    /// A timed metadata track of `groups`, one sample each, `duration` ticks apiece.
    static func metadataTrack(
        id: UInt32, groups: [TimedMetadataGroup], timescale: Int, durations: [Int],
        describes: UInt32? = 1
    ) throws -> Track {
        let format = MetadataSampleFormat(groups: groups)
        return Track(
            id: id, handler: "meta", entry: format.sampleEntry(), timescale: timescale,
            samples: try groups.map { try format.sample(for: $0) }, durations: durations,
            references: describes.map { [(type: "cdsc", ids: [$0])] } ?? [])
    }

    /// A UTF-8 group (start and duration are not used by the builder).
    static func textGroup(_ text: String, key: String = "com.example.note") throws -> TimedMetadataGroup {
        TimedMetadataGroup(items: [try TimedMetadataItem(identifier: "mdta/\(key)", dataType: .utf8, value: .string(text))], start: 0)
    }

    /// The movie's bytes.
    static func movie(
        _ tracks: [Track], movieTimescale: Int, movieDuration: Int64? = nil, mvhdVersion: UInt8 = 0,
        brand: FourCC = "qt  "
    ) -> [UInt8] {
        let ftyp = B.ftyp(brand, [brand, "isom"])
        var media: [UInt8] = []
        var chunkOffsets: [[Int]] = []
        let mdatStart = ftyp.count + 8
        for track in tracks {
            var offsets: [Int] = []
            for (index, sample) in track.samples.enumerated() {
                if index % max(1, track.samplesPerChunk) == 0 { offsets.append(mdatStart + media.count) }
                media += sample
            }
            chunkOffsets.append(offsets)
        }
        let duration =
            movieDuration ?? tracks.map { track -> Int64 in
                if !track.editList.isEmpty { return track.editList.reduce(0) { $0 &+ $1.duration } }
                return track.mediaDuration * Int64(movieTimescale) / Int64(track.timescale)
            }.max() ?? 0
        let traks = zip(tracks, chunkOffsets).map { trak($0, offsets: $1, movieTimescale: movieTimescale) }
        let moov = B.box(
            "moov", children: [B.mvhd(timescale: movieTimescale, duration: UInt64(bitPattern: duration), version: mvhdVersion)] + traks)
        return ftyp + B.box("mdat", media) + moov
    }

    static func trak(_ track: Track, offsets: [Int], movieTimescale: Int) -> [UInt8] {
        let v1 = track.version == 1
        let trackDuration =
            track.editList.isEmpty
            ? UInt64(track.mediaDuration * Int64(movieTimescale) / Int64(track.timescale))
            : UInt64(bitPattern: track.editList.reduce(0) { $0 &+ $1.duration })
        // tkhd (§8.3.2).
        let times =
            v1
            ? B.u64(3_600_000_000) + B.u64(3_600_000_001) + B.u32(track.id) + B.u32(0) + B.u64(trackDuration)
            : B.u32(1) + B.u32(2) + B.u32(track.id) + B.u32(0) + B.u32(UInt32(truncatingIfNeeded: trackDuration))
        let matrix =
            B.u32(0x0001_0000) + B.u32(0) + B.u32(0) + B.u32(0) + B.u32(0x0001_0000) + B.u32(0) + B.u32(0) + B.u32(0) + B.u32(0x4000_0000)
        let tkhd = B.fullBox(
            "tkhd", version: track.version, flags: 3,
            times + B.u32(0) + B.u32(0) + B.u16(0) + B.u16(0)
                + B.u16(0) + B.u16(0) + matrix + B.u32(UInt32(track.width << 16)) + B.u32(UInt32(track.height << 16)))
        var children = [tkhd]
        if !track.editList.isEmpty {
            let entries = track.editList.flatMap { edit -> [UInt8] in
                (v1
                    ? B.u64(UInt64(bitPattern: edit.duration)) + B.u64(UInt64(bitPattern: edit.mediaTime))
                    : B.u32(UInt32(truncatingIfNeeded: edit.duration)) + B.u32(UInt32(truncatingIfNeeded: edit.mediaTime))) + B.u16(1)
                    + B.u16(0)
            }
            children.append(B.box("edts", B.fullBox("elst", version: track.version, B.u32(track.editList.count) + entries)))
        }
        if !track.references.isEmpty {
            children.append(B.box("tref", track.references.flatMap { B.box($0.type, $0.ids.flatMap { B.u32($0) }) }))
        }
        let mdhd = B.mdhd(timescale: track.timescale, duration: UInt64(track.mediaDuration), version: track.version)
        let header: [UInt8] =
            track.handler == "vide"
            ? B.fullBox("vmhd", flags: 1, [UInt8](repeating: 0, count: 8))
            : track.handler == "soun" ? B.fullBox("smhd", [0, 0, 0, 0]) : B.fullBox("nmhd", [])
        let minf = B.box("minf", children: [header, stbl(track, offsets: offsets)])
        children.append(B.box("mdia", children: [mdhd, B.hdlr(track.handler, name: "Builder"), minf]))
        return B.box("trak", children: children)
    }

    static func stbl(_ track: Track, offsets: [Int]) -> [UInt8] {
        var stts: [(count: Int, delta: Int)] = []
        for delta in track.durations {
            if let last = stts.last, last.delta == delta { stts[stts.count - 1].count += 1 } else { stts.append((1, delta)) }
        }
        let sizes = track.samples.map(\.count)
        let perChunk = max(1, track.samplesPerChunk)
        var computed: [(FourCC, [UInt8])] = [
            ("stsd", B.stsd([track.entry])),
            ("stts", B.fullBox("stts", B.u32(stts.count) + stts.flatMap { B.u32($0.count) + B.u32($0.delta) })),
            ("stsc", B.fullBox("stsc", B.u32(1) + B.u32(1) + B.u32(perChunk) + B.u32(1))),
            ("stsz", B.fullBox("stsz", B.u32(0) + B.u32(sizes.count) + sizes.flatMap { B.u32($0) })),
            ("stco", B.fullBox("stco", B.u32(offsets.count) + offsets.flatMap { B.u32($0) })),
        ]
        for (index, (type, _)) in computed.enumerated() {
            if let replacement = track.replacing[type] { computed[index].1 = replacement }
        }
        let known = Set(computed.map(\.0))
        let extra = track.replacing.filter { !known.contains($0.key) }.sorted { $0.key.description < $1.key.description }.map(\.value)
        return B.box("stbl", children: computed.map(\.1) + extra)
    }

    /// Writes `bytes` to a new file in `directory`.
    static func write(_ bytes: [UInt8], to directory: URL, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
