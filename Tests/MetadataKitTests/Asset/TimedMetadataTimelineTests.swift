import Foundation
import Testing

@testable import MetadataKit

/// Timed metadata times, exactly and on the movie timeline, in movies built
/// like an iPhone writes them (movie timescale 600, metadata steps of 1/15 s,
/// edit lists that move the metadata track); `mdkit timed` then `annotate`
/// then `timed` gives the same bytes.
@Suite struct TimedMetadataTimelineTests {
    typealias B = MP4Builder

    func mdkit(_ arguments: [String]) throws -> TestSupport.Output {
        try TestSupport.run(try #require(TestSupport.mdkitExecutable).path, arguments)
    }

    /// 2 s of video in 1/15 s frames (timescale 600).
    let video = MovieBuilder.Track(
        id: 1, handler: "vide", entry: MovieBuilder.videoEntry(), timescale: 600,
        samples: (0..<30).map { [UInt8](repeating: UInt8($0), count: 20) },
        durations: Array(repeating: 40, count: 30), samplesPerChunk: 5, width: 64, height: 48)

    func group(_ value: Double) throws -> TimedMetadataGroup {
        TimedMetadataGroup(
            items: [
                try TimedMetadataItem(
                    identifier: "mdta/com.example.face.confidence", dataType: .float64,
                    value: .number(value))
            ], start: 0)
    }

    /// `timed --json` of `url`; then `annotate` of its output onto `url` and
    /// `timed` again of the new track (the last: the source's are copied
    /// first) must print the same bytes. Returns the first output and the
    /// annotated file.
    func roundTrip(_ url: URL, in directory: URL) async throws -> (json: Data, annotated: URL) {
        let first = try mdkit(["timed", "--json", url.path])
        #expect(first.status == 0, "\(first.standardError)")
        let json = directory.appendingPathComponent("timed.json")
        try first.standardOutput.write(to: json)
        let annotated = directory.appendingPathComponent("annotated.mov")
        let annotate = try mdkit(["annotate", url.path, annotated.path, "--annotations", json.path])
        #expect(annotate.status == 0, "\(annotate.standardError)")
        let written = try #require(try await Asset.load(url: annotated).tracks.last)
        #expect(written.mediaType == .metadata && written.handlerName == "Core Media Metadata")
        let second = try mdkit(["timed", "--json", "--track", String(written.id), annotated.path])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.text == first.text)
        return (first.standardOutput, annotated)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func stepsOf1Over15SecondRoundTripExactly() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let groups = try (0..<29).map { try group(Double($0) / 29) }
        let meta = try MovieBuilder.metadataTrack(id: 2, groups: groups, timescale: 600, durations: Array(repeating: 40, count: 29))
        let url = try MovieBuilder.write(MovieBuilder.movie([video, meta], movieTimescale: 600), to: directory, name: "iphone.mov")

        let (json, annotated) = try await roundTrip(url, in: directory)
        let document = try TimedMetadataDocument(json: json)
        #expect(document.timescale == 600 && document.describes == 1)
        #expect(document.groups.map(\.start) == (0..<29).map { Double(40 * $0) / 600 })
        #expect(document.groups.allSatisfy { $0.duration == 40.0 / 600 && $0.mediaStart == nil })
        #expect(document.groups.map(\.items) == groups.map(\.items))
        // Written in the same timescale, sample for sample.
        let track = try #require(try await Asset.load(url: annotated).tracks.last)
        #expect(track.timescale == 600 && track.sampleCount == 29 && track.editList.isEmpty)
        var cursor = track.sampleTable.makeCursor()
        while let sample = cursor.next() { #expect(sample.duration == 40) }
    }

    /// An iPhone live photo's `still-image-time`: media time 0, shown at 0.48 s by an empty edit.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func anEmptyEditMovesGroupsOnTheMovieTimeline() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let still = TimedMetadataGroup(
            items: [
                try TimedMetadataItem(
                    identifier: "mdta/com.apple.quicktime.still-image-time",
                    dataType: .int8, value: .integer(-1))
            ], start: 0)
        var meta = try MovieBuilder.metadataTrack(id: 2, groups: [still, try group(0.5)], timescale: 600, durations: [40, 40])
        meta.editList = [(duration: 288, mediaTime: -1), (duration: 80, mediaTime: 0)]
        let url = try MovieBuilder.write(MovieBuilder.movie([video, meta], movieTimescale: 600), to: directory, name: "live.mov")

        let asset = try await Asset.load(url: url)
        let document = try await TimedMetadataTrack.document(of: asset)
        #expect(document.groups.map(\.start) == [0.48, 328.0 / 600])
        #expect(document.groups.map(\.mediaStart) == [0, 40.0 / 600] as [Double?])
        let step: Double = 40.0 / 600
        #expect(document.groups.map(\.duration) == [step, step])

        let (_, annotated) = try await roundTrip(url, in: directory)
        let track = try #require(try await Asset.load(url: annotated).tracks.last)
        #expect(track.editList == [EditListEntry(segmentDuration: 288, mediaTime: -1), EditListEntry(segmentDuration: 80, mediaTime: 0)])
    }

    /// An edit whose media_time skips the first half second: the group there is not shown.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func aMediaTimeOffsetHidesEarlierMedia() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let groups = try [group(1), group(2), group(3)]
        var meta = try MovieBuilder.metadataTrack(id: 2, groups: groups, timescale: 600, durations: [300, 300, 300])
        meta.editList = [(duration: 600, mediaTime: 300)]
        let url = try MovieBuilder.write(MovieBuilder.movie([video, meta], movieTimescale: 600), to: directory, name: "offset.mov")

        let document = try await TimedMetadataTrack.document(of: try await Asset.load(url: url))
        #expect(document.groups.map(\.items) == [groups[1].items, groups[2].items])
        #expect(document.groups.map(\.start) == [0, 0.5])
        #expect(document.groups.map(\.mediaStart) == [0.5, 1])

        let (_, annotated) = try await roundTrip(url, in: directory)
        let track = try #require(try await Asset.load(url: annotated).tracks.last)
        #expect(track.editList == [EditListEntry(segmentDuration: 600, mediaTime: 300)])
    }

    /// Our own files have no edit list on the metadata track: media time is movie time.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func openEndedLastGroupComesBackOpenEnded() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try MovieBuilder.write(MovieBuilder.movie([video], movieTimescale: 600), to: directory, name: "clip.mov")
        let input = TimedMetadataDocument(
            describes: 1,
            groups: [
                TimedMetadataGroup(items: try group(1).items, start: 0.25, duration: 0.5),
                TimedMetadataGroup(items: try group(2).items, start: 1.2),
            ])
        let json = directory.appendingPathComponent("in.json")
        try input.jsonData().write(to: json)
        let movie = directory.appendingPathComponent("movie.mov")
        #expect(try mdkit(["annotate", url.path, movie.path, "--annotations", json.path]).status == 0)
        let asset = try await Asset.load(url: movie)
        #expect(asset.durationSeconds == 2)
        let back = try await TimedMetadataTrack.document(of: asset)
        #expect(back.groups == input.groups && back.timescale == 1000)
        _ = try await roundTrip(movie, in: directory)
    }

    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func groupsAfterTheEndOfTheMovieAreRefused() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try MovieBuilder.write(MovieBuilder.movie([video], movieTimescale: 600), to: directory, name: "clip.mov")
        for (start, duration) in [(2.0, nil), (5.0, 1.0), (1.5, 0.75)] as [(Double, Double?)] {
            let document = TimedMetadataDocument(
                describes: 1, groups: [TimedMetadataGroup(items: try group(1).items, start: start, duration: duration)])
            let json = directory.appendingPathComponent("late.json")
            try document.jsonData().write(to: json)
            let out = directory.appendingPathComponent("late.mov")
            let result = try mdkit(["annotate", url.path, out.path, "--annotations", json.path])
            #expect(
                result.status == 1 && result.standardError.contains("invalidValue")
                    && result.standardError.contains("after the end of the movie"),
                "start \(start): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// Edit lists with times near 2^63 (version 1) are read around, never trapped on: by
    /// `timed` (groups outside what is shown are left out) and by a cut export.
    @Test(arguments: [
        [EditListEntry(segmentDuration: .max, mediaTime: -1), EditListEntry(segmentDuration: 1 << 62, mediaTime: 1 << 62)],
        [EditListEntry(segmentDuration: 1 << 62, mediaTime: -1), EditListEntry(segmentDuration: 1 << 62, mediaTime: 0)],
        [EditListEntry(segmentDuration: 600, mediaTime: .max)], [EditListEntry(segmentDuration: -600, mediaTime: -5)],
    ])
    func hostileEditListsAreReadAround(entries: [EditListEntry]) async throws {
        let edits = entries.map { (duration: $0.segmentDuration, mediaTime: $0.mediaTime) }
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var meta = try MovieBuilder.metadataTrack(id: 2, groups: [group(1), group(2)], timescale: 600, durations: [300, 300])
        meta.editList = edits
        meta.version = 1
        var clip = video
        clip.version = 1
        clip.editList = edits
        let url = try MovieBuilder.write(
            MovieBuilder.movie([clip, meta], movieTimescale: 600, movieDuration: 1200, mvhdVersion: 1),
            to: directory, name: "edits.mov")
        let asset = try await Asset.load(url: url)
        let groups = try await TimedMetadataTrack.document(of: asset).groups
        #expect(groups.count <= 2)
        // Copied whole, the edit lists come back as they were.
        let whole = ExportSession(asset: asset)
        whole.outputURL = directory.appendingPathComponent("whole.mov")
        try await whole.export()
        #expect(try await Asset.load(url: whole.outputURL!).tracks.map(\.editList) == [entries, entries])
        let cut = ExportSession(asset: asset)
        cut.outputURL = directory.appendingPathComponent("cut.mov")
        cut.timeRange = ExportTimeRange(start: 0.5, end: 1.5)
        do { try await cut.export() } catch {}
    }

    @Test func layoutErrorsAreInvalidValues() throws {
        let late = [TimedMetadataGroup(items: try group(1).items, start: 3)]
        let error = #expect(throws: MediaError.self) { try TimedMetadataTrack.samples(for: late, movieDuration: 2) }
        #expect(error?.code == .invalidValue)
        // Groups that disagree on how far media time lies from movie time.
        let mixed = TimedMetadataDocument(
            describes: nil,
            groups: [
                TimedMetadataGroup(items: try group(1).items, start: 0.5, duration: 0.1, mediaStart: 0),
                TimedMetadataGroup(items: try group(2).items, start: 1, duration: 0.1, mediaStart: 0.75),
            ])
        let mixedError = #expect(throws: MediaError.self) {
            try TimedMetadataTrack.layout(for: mixed, movieDuration: 2, movieTimescale: 600)
        }
        #expect(mixedError?.code == .invalidValue)
    }

    @Test func theWrittenTimescaleFitsTheTimes() throws {
        func document(_ times: [Double], timescale: UInt32? = nil) throws -> TimedMetadataDocument {
            TimedMetadataDocument(
                describes: nil, groups: try times.map { TimedMetadataGroup(items: try group(0).items, start: $0) },
                timescale: timescale)
        }
        #expect(TimedMetadataTrack.timescale(for: try document([0, 0.5, 1.25])) == 1000)
        #expect(TimedMetadataTrack.timescale(for: try document([0, 1.0 / 15, 2.0 / 15])) == 600)
        #expect(TimedMetadataTrack.timescale(for: try document([0, 1.0 / 15], timescale: 30)) == 30)
        #expect(TimedMetadataTrack.timescale(for: try document([1.0 / 7])) == 1000)
        // Every 1/15 s step in 600 ticks comes back as the same Double.
        let layout = try TimedMetadataTrack.layout(
            for: try document((0..<30).map { Double(40 * $0) / 600 }),
            movieDuration: 2, movieTimescale: 600)
        #expect(layout.timescale == 600 && layout.editList.isEmpty)
        #expect(layout.samples.map(\.duration) == Array(repeating: 40, count: 30))
    }
}
