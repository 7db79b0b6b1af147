import Foundation

/// Writing and reading timed metadata tracks: a `meta` handler track whose
/// `mebx` sample entry declares the keys, one sample per group, and a `cdsc`
/// track reference to the track it describes (QTFF "Timed Metadata Media";
/// what AVFoundation's metadata adaptor writes).
public enum TimedMetadataTrack {
    /// Samples are timed in milliseconds.
    public static let timescale: UInt32 = 1000

    /// A writer input for `groups`, describing the track `describedTrackID`
    /// of the output.
    public static func input(for groups: [TimedMetadataGroup], describing describedTrackID: UInt32?) -> AssetWriterInput {
        let format = MetadataSampleFormat(groups: groups)
        return AssetWriterInput(mediaType: .metadata, sampleDescriptions: [format.sampleEntry()], timescale: timescale,
                                handlerType: "meta", handlerName: "Core Media Metadata",
                                references: describedTrackID.map { [TrackReference(type: "cdsc", trackIDs: [$0])] } ?? [])
    }

    /// The samples of `groups`: one per group in start order, an empty group
    /// (the 8-byte empty sample) for every gap, the last open-ended group lasting
    /// until `movieDuration` seconds. Throws `invalidValue` for groups out of
    /// order, with equal start times, or overlapping.
    public static func samples(for groups: [TimedMetadataGroup], movieDuration: Double, trackID: UInt32 = 0) throws -> [Sample] {
        let format = MetadataSampleFormat(groups: groups)
        func ticks(_ seconds: Double) -> Int64 { Int64((seconds * Double(timescale)).rounded()) }
        var samples: [Sample] = []
        var time: Int64 = 0
        func append(_ bytes: [UInt8], until end: Int64) {
            samples.append(Sample(trackID: trackID, data: bytes, decodeTime: time, presentationTime: time,
                                  duration: end - time, timescale: timescale))
            time = end
        }
        let empty = try format.sample(for: TimedMetadataGroup(items: [], start: 0))
        for (index, group) in groups.enumerated() {
            let start = ticks(group.start)
            guard start >= time else {
                throw MediaError(.invalidValue, "group \(index) starts at \(group.start) s, before the previous group ends; groups must be in order with distinct start times")
            }
            if start > time { append(empty, until: start) }
            let nextStart = index + 1 < groups.count ? ticks(groups[index + 1].start) : nil
            if let nextStart, nextStart <= start {
                throw MediaError(.invalidValue, "groups \(index) and \(index + 1) start at \(group.start) and \(groups[index + 1].start) s; groups must be in order with distinct start times")
            }
            var end = group.duration.map { start + ticks($0) } ?? nextStart ?? max(ticks(movieDuration), start + 1)
            if let nextStart, end > nextStart {
                guard group.duration == nil else {
                    throw MediaError(.invalidValue, "group \(index) lasts past the start of group \(index + 1)")
                }
                end = nextStart
            }
            guard end > start else { throw MediaError(.invalidValue, "group \(index) has no duration") }
            append(try format.sample(for: group), until: end)
        }
        return samples
    }

    /// The groups of a timed metadata track (a `meta` track with a `mebx`
    /// entry), in seconds of the track's media time. Empty groups (gaps) are
    /// left out, so every group has its duration.
    public static func groups(of track: AssetTrack, in asset: Asset) throws -> [TimedMetadataGroup] {
        guard track.mediaType == .metadata, let entry = track.sampleDescriptions.first,
              entry.count >= 8, Array(entry[4..<8]) == Array("mebx".utf8) else {
            throw MediaError(.unsupportedFeature, "track \(track.id) is not a timed metadata track with a 'mebx' sample entry", path: asset.url.path)
        }
        let format = try MetadataSampleFormat(sampleEntry: entry)
        let reader = try AssetReader(asset: asset)
        _ = try reader.addOutput(track: track)
        var groups: [TimedMetadataGroup] = []
        while let sample = try reader.nextSample() {
            let items = try format.items(inSample: try sample.readData())
            guard !items.isEmpty else { continue }
            groups.append(TimedMetadataGroup(items: items, start: sample.presentationTimeSeconds, duration: sample.durationSeconds))
        }
        return groups
    }

    /// The document of the first timed metadata track of `asset` (or of
    /// `trackID`): its groups and the track it describes.
    public static func document(of asset: Asset, trackID: UInt32? = nil) throws -> TimedMetadataDocument {
        let candidates = asset.tracks.filter { $0.mediaType == .metadata && (trackID == nil || $0.id == trackID) }
        guard let track = candidates.first(where: { $0.sampleDescriptions.first.map { $0.count >= 8 && Array($0[4..<8]) == Array("mebx".utf8) } ?? false }) else {
            throw MediaError(.unsupportedFeature, "no timed metadata track\(trackID.map { " \($0)" } ?? "")", path: asset.url.path)
        }
        let describes = track.references.first { $0.type == "cdsc" }?.trackIDs.first
        return TimedMetadataDocument(describes: describes.map(Int.init), groups: try groups(of: track, in: asset))
    }
}
