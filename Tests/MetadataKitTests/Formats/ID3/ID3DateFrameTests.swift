import Foundation
import Testing

@testable import MetadataKit

/// Date frames in the "wrong" version: some taggers (and mutagen when asked
/// to) put v2.4's `TDRC` into a v2.3 tag. A save keeping v2.3 stores the date
/// as `TYER` and must not be refused for "altering" the `TDRC` nobody changed.
@Suite struct ID3DateFrameTests {
    func tag(version: UInt8, frames: [(String, String)]) -> [UInt8] {
        var builder = ID3Builder(version: version)
        builder.frames = frames.map { ID3Builder.frame($0.0, ID3Builder.text([$0.1], encoding: 1), version: version) }
        builder.padding = 64
        return builder.bytes() + ID3Builder.mpegFrames(8)
    }

    @Test(arguments: [(UInt8(3), "TDRC", "1961"), (UInt8(4), "TYER", "1961"), (UInt8(3), "TDRC", "1961-05-03")])
    func aDateFrameOfTheOtherVersionSurvivesASave(version: UInt8, frame: String, date: String) async throws {
        let url = try ID3Builder.file(tag(version: version, frames: [("TIT2", "Old"), (frame, date), ("TPE1", "Artist")]))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.date == date)
        item.metadata.title = "New"
        try await item.save(options: SaveOptions(durability: .noSync))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "New")
        #expect(reread.metadata.date == date, "the date is kept, in the frames of the tag's version")
        #expect(reread.metadata.artist == "Artist")
        let keys = Set(reread.metadata.items.filter { $0.keySpace == .id3 }.map(\.key))
        #expect(version == 3 ? !keys.contains("TDRC") : keys.contains("TDRC"), "\(keys.sorted())")
    }
}
