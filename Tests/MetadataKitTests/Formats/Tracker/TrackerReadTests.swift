import Foundation
import Testing

@testable import MetadataKit

/// Tracker modules read: the title, the comment (names and the IT song
/// message) and the tracker's properties, as TagLib and libopenmpt read them.
@Suite struct TrackerReadTests {
    @Test(arguments: TrackerFixtures.all) func readsTitleCommentAndProperties(_ expected: TrackerFixtures.Expected) async throws {
        let item = try await MediaItem.loaded(TrackerFixtures.url(expected.file))
        #expect(item.format?.identifier == expected.format)
        #expect(item.isEditable && item.warnings.isEmpty)
        #expect(item.metadata.title == expected.title)
        #expect(item.metadata.comments == expected.comment)
        #expect(
            item.metadata.items.map { "\($0.keySpace):\($0.key)" } == ["module:title", "module:comment"])
        let module = try #require(item.properties.module)
        #expect(item.properties.channels == expected.channels)
        #expect(module.trackerName == expected.trackerName && module.trackerVersion == expected.trackerVersion)
        #expect(module.lengthInPatterns == expected.lengthInPatterns && module.patternCount == expected.patternCount)
        #expect(module.instrumentCount == expected.instrumentCount && module.sampleCount == expected.sampleCount)
        #expect(item.properties.duration == nil && item.properties.bitrate == nil)
    }

    /// The content decides: a module named `.wav` is still read as a module.
    @Test(arguments: TrackerFixtures.all) func detectedByContent(_ expected: TrackerFixtures.Expected) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TrackerFixtures.copy(expected.file, to: directory, as: "misnamed.wav")
        #expect(try await MediaItem.loaded(url).format?.identifier == expected.format)
    }

    /// TagLib reads the same title, tracker name and counts; its comment is
    /// ours with the empty names at the end (a MOD's 29 unnamed instruments).
    @Test(.enabled(if: TrackerFixtures.hasTagLib, "needs g++ and TagLib's development files"))
    func taglibAgrees() async throws {
        for expected in TrackerFixtures.all {
            let url = TrackerFixtures.url(expected.file)
            let item = try await MediaItem.loaded(url)
            let taglib = try TrackerFixtures.taglib(url)
            let module = try #require(item.properties.module)
            #expect(taglib["title"] as? String == item.metadata.title, "\(expected)")
            let comment = try #require(taglib["comment"] as? String)
            #expect(String(comment.reversed().drop { $0 == "\n" }.reversed()) == item.metadata.comments, "\(expected)")
            #expect(taglib["trackerName"] as? String == module.trackerName, "\(expected)")
            #expect(taglib["channels"] as? Int == item.properties.channels, "\(expected)")
            #expect(taglib["lengthInPatterns"] as? Int == module.lengthInPatterns, "\(expected)")
            if let count = taglib["patternCount"] as? Int { #expect(count == module.patternCount, "\(expected)") }
            if let count = taglib["instrumentCount"] as? Int { #expect(count == module.instrumentCount, "\(expected)") }
            if let count = taglib["sampleCount"] as? Int { #expect(count == module.sampleCount, "\(expected)") }
        }
    }

    /// ffmpeg's libopenmpt demuxer reads the same title.
    @Test(.enabled(if: TestSupport.hasTool("ffprobe"), "needs ffprobe"))
    func libopenmptReadsTheTitle() async throws {
        for expected in TrackerFixtures.all {
            let url = TrackerFixtures.url(expected.file)
            let output = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_format", "-of", "json", url.path])
            let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
            let format = try #require(json["format"] as? [String: Any])
            #expect(format["format_name"] as? String == "libopenmpt", "\(expected)")
            #expect((format["tags"] as? [String: Any])?["title"] as? String == expected.title, "\(expected)")
        }
    }

    /// TagLib's tracker names for the MOD tags (checked against TagLib 1.13
    /// with taglib-tracker), and the tags no 31-instrument MOD has.
    @Test func modTags() {
        let cases: [(String, Int, String)] = [
            ("M.K.", 4, "ProTracker"), ("M!K!", 4, "ProTracker"), ("N.T.", 4, "ProTracker"), ("FLT8", 8, "StarTrekker"),
            ("TDZ6", 6, "StarTrekker"), ("6CHN", 6, "StarTrekker"), ("10CH", 10, "TakeTracker"), ("16CN", 16, "TakeTracker"),
            ("CD81", 8, "Atari Oktalyzer"), ("OKTA", 8, "Atari Oktalyzer"),
        ]
        for (tag, channels, tracker) in cases {
            let kind = ProTrackerModule.kind(ofTag: Array(tag.utf8))
            #expect(kind?.channels == channels && kind?.tracker == tracker, "\(tag)")
        }
        for tag in ["OCTA", "XXXX", "0CHN", "00CH", "M.K"] {
            #expect(ProTrackerModule.kind(ofTag: Array(tag.utf8)) == nil, "\(tag)")
        }
    }
}
