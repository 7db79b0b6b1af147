import Foundation
import Testing

@testable import MetadataKit

@Suite struct TimedMetadataTrackSampleTests {
    func group(_ start: Double, _ duration: Double?, _ text: String = "x") throws -> TimedMetadataGroup {
        TimedMetadataGroup(
            items: [try TimedMetadataItem(identifier: "mdta/com.example.comment", dataType: .utf8, value: .string(text))],
            start: start, duration: duration)
    }

    @Test func gapsBecomeEmptySamplesAndOpenEndedGroupsLastUntilTheNext() throws {
        let samples = try TimedMetadataTrack.samples(for: [group(1.5, 0.5), group(3, nil), group(4, nil)], movieDuration: 6)
        #expect(samples.map(\.decodeTime) == [0, 1500, 2000, 3000, 4000])
        #expect(samples.map(\.duration) == [1500, 500, 1000, 1000, 2000])
        #expect(samples.map(\.size) == [8, samples[1].size, 8, samples[3].size, samples[4].size])
        #expect(samples[1].size > 8)
    }

    @Test func outOfOrderOverlappingAndEqualStartsAreRefused() throws {
        for groups in [
            [try group(2, nil), try group(1, nil)], [try group(1, 2), try group(2, nil)], [try group(1, nil), try group(1, nil)],
        ] {
            let error = #expect(throws: MediaError.self) { try TimedMetadataTrack.samples(for: groups, movieDuration: 5) }
            #expect(error?.code == .invalidValue)
        }
    }
}
