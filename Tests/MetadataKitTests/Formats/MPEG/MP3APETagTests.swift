import Foundation
import Testing

@testable import MetadataKit

/// An APEv2 tag on an MP3 beside ID3 (issue 11): read as `ape` items (ID3v2
/// wins where both hold a field, as in TagLib), updated when the file has
/// one, never added; untouched APE items and the audio keep their bytes.
@Suite struct MP3APETagTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func file() throws -> (URL, audio: [UInt8], custom: [UInt8]) {
        var id3 = ID3Builder(version: 4)
        id3.frames = [ID3Builder.frame("TIT2", ID3Builder.text(["id3 title"], encoding: 3))]
        id3.padding = 64
        let audio = ID3Builder.mpegFrames(8)
        let custom = APEBuilder.text("Custom", "keep ü", flags: 1)
        let tag = APEBuilder.tag([APEBuilder.text("Title", "ape title"), APEBuilder.text("Album", "ape album"), custom])
        let url = directory.appendingPathComponent("a.mp3")
        try Data(id3.bytes() + audio + tag + APEBuilder.id3v1(title: "v1")).write(to: url)
        return (url, audio, custom)
    }

    @Test func apeItemsAreReadAndUpdatedBesideID3() async throws {
        let (url, audio, custom) = try file()
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "id3 title", "ID3v2 wins")
        #expect(item.metadata.album == "ape album", "APE before ID3v1")
        #expect(item.metadata.items.contains { $0.keySpace == .ape && $0.key == "CUSTOM" && $0.value == .string("keep ü") })
        #expect(item.warnings.isEmpty)
        item.metadata.title = "Néw"
        item.metadata.album = "Älbum"
        try await item.save()

        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.firstRange(of: audio) != nil, "the audio moved or changed")
        #expect(bytes.firstRange(of: custom) != nil, "an untouched APE item lost its bytes")
        #expect(bytes.suffix(128).starts(with: Array("TAG".utf8)))
        let reread = try await MediaItem.loaded(url)
        func ape(_ key: String) -> MetadataValue? { reread.metadata.items.first { $0.keySpace == .ape && $0.key == key }?.value }
        #expect(reread.metadata.title == "Néw" && ape("TITLE") == .string("Néw"))
        #expect(reread.metadata.album == "Älbum" && ape("ALBUM") == .string("Älbum"))
        #expect(reread.properties.duration == item.properties.duration)
    }

    /// A 131-byte APE tag at the very end puts the "TAG" of its "APETAGEX"
    /// header 128 bytes from the end: that is no ID3v1 tag (the same holds
    /// for AAC and AC-3 streams, which share this trailer scan).
    @Test func anAPETagOf131BytesIsNoID3v1() async throws {
        let tag = APEBuilder.tag([APEBuilder.text("Title", String(repeating: "t", count: 53))])
        #expect(tag.count == 131)
        let url = directory.appendingPathComponent("short-ape.mp3")
        try Data(ID3Builder.mpegFrames(8) + tag).write(to: url)
        let item = try await MediaItem.loaded(url)
        #expect(!item.metadata.items.contains { $0.keySpace == .id3v1 })
        #expect(item.metadata.title == String(repeating: "t", count: 53) && item.warnings.isEmpty)
    }

    @Test func anUnchangedAPETagIsCopiedAsItIs() async throws {
        let (url, _, _) = try file()
        let before = [UInt8](try Data(contentsOf: url))
        var item = try await MediaItem.loaded(url)
        item.metadata.artist = "Only ID3"
        try await item.save()
        let after = [UInt8](try Data(contentsOf: url))
        let start = try #require(before.firstRange(of: Array("APETAGEX".utf8))?.lowerBound)
        let tagBytes = Array(before[start..<(before.count - 128)])
        #expect(after.firstRange(of: tagBytes) != nil, "the APE tag changed")
        #expect(try await MediaItem.loaded(url).metadata.artist == "Only ID3")
    }

    @Test func anMP3WithoutAnAPETagGetsNone() async throws {
        let url = directory.appendingPathComponent("b.mp3")
        try Data(ID3Builder.mpegFrames(8)).write(to: url)
        let original = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .ape, key: "TITLE", value: .string("x"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == original)
        item.metadata.items.removeAll { $0.keySpace == .ape }
        item.metadata.title = "id3 only"
        try await item.save()
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: Array("APETAGEX".utf8)) == nil)
    }
}
