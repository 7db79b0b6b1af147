import Foundation
import Testing

@testable import MetadataKit

/// Saves of MP4/QuickTime files made by ffmpeg and mutagen: every layout
/// (in place, free box, moov last, moov first with offset fix-up, fragmented).
@Suite(.enabled(if: TestSupport.hasTool("ffmpeg"), "needs ffmpeg"))
struct MP4WriterTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func ffmpeg(_ name: String, _ arguments: [String]) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try TestSupport.runChecked("ffmpeg", ["-v", "error", "-y"] + arguments + [url.path])
        return url
    }

    func audio(_ name: String, _ extra: [String] = []) throws -> URL {
        try ffmpeg(name, ["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", "-b:a", "64k"] + extra)
    }

    func video(_ name: String, _ extra: [String] = []) throws -> URL {
        try ffmpeg(
            name,
            [
                "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                "-c:v", "mpeg4", "-c:a", "aac", "-shortest",
            ] + extra)
    }

    /// Sets every normalized field, saves, and checks the values, the payload and the decoded audio.
    func roundTrip(_ url: URL, expectLayout: String? = nil) async throws {
        let md5 = try MediaChecks.decodedMD5(url)
        let chunks = try MediaChecks.chunkSignatures(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Ünïcödé title ✓"
        item.metadata.artist = "Björk"
        item.metadata.albumArtist = "Various"
        item.metadata.album = "日本語のアルバム"
        item.metadata.grouping = "Group"
        item.metadata.composer = "Composer"
        item.metadata.comments = "A comment"
        item.metadata.genre = Genre(name: "Shoegaze")
        item.metadata.date = "2024"
        item.metadata.bpm = 128
        item.metadata.trackNumber = 3
        item.metadata.trackCount = 12
        item.metadata.discNumber = 1
        item.metadata.discCount = 2
        item.metadata.artwork = [Artwork(data: Data(ImageInfoTests.png))]
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Ünïcödé title ✓")
        #expect(reread.metadata.artist == "Björk")
        #expect(reread.metadata.albumArtist == "Various")
        #expect(reread.metadata.album == "日本語のアルバム")
        #expect(reread.metadata.grouping == "Group")
        #expect(reread.metadata.composer == "Composer")
        #expect(reread.metadata.comments == "A comment")
        #expect(reread.metadata.genre?.name == "Shoegaze")
        #expect(reread.metadata.date == "2024")
        #expect(reread.metadata.bpm == 128)
        #expect(reread.metadata.trackNumber == 3 && reread.metadata.trackCount == 12)
        #expect(reread.metadata.discNumber == 1 && reread.metadata.discCount == 2)
        #expect(reread.metadata.artwork.count == 1)
        #expect(try await reread.metadata.artwork.first?.data() == Data(ImageInfoTests.png))
        #expect(try MediaChecks.chunkSignatures(url) == chunks)
        #expect(try MediaChecks.decodedMD5(url) == md5)
        let probe = try TestSupport.run("ffprobe", ["-v", "error", url.path])
        #expect(probe.standardError.isEmpty, "ffprobe: \(probe.standardError)")
    }

    @Test func moovLastFileGetsANewMoovAtTheEnd() async throws {
        let url = try audio("last.m4a")
        #expect(try MediaChecks.topLevelTypes(url).last == "moov")
        try await roundTrip(url)
        #expect(try MediaChecks.topLevelTypes(url).last == "moov")
    }

    @Test func moovFirstFileMovesItsChunkOffsets() async throws {
        let url = try audio("first.m4a", ["-movflags", "+faststart"])
        #expect(try MediaChecks.topLevelTypes(url).prefix(2) == ["ftyp", "moov"])
        try await roundTrip(url)
        #expect(try MediaChecks.topLevelTypes(url).prefix(2) == ["ftyp", "moov"])
    }

    @Test func moovFirstVideoKeepsItsFrames() async throws {
        let url = try video("video.mp4", ["-movflags", "+faststart"])
        try await roundTrip(url)
        let md5 = try MediaChecks.decodedMD5(url, map: "0:V")
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "long title ", count: 400)
        try await item.save()
        #expect(try MediaChecks.decodedMD5(url, map: "0:V") == md5)
        #expect(try await MediaItem.loaded(url).metadata.title == String(repeating: "long title ", count: 400))
    }

    /// A synthetic moov-first file whose two tracks use `stco` and `co64`.
    @Test func stcoAndCo64OffsetsBothMove() async throws {
        typealias B = MP4Builder
        func stbl(_ table: [UInt8]) -> [UInt8] { B.box("stbl", children: [B.stsd([B.audioEntry("mp4a")]), table]) }
        func trak(_ table: [UInt8]) -> [UInt8] {
            B.box(
                "trak",
                children: [
                    B.box(
                        "mdia",
                        children: [
                            B.mdhd(timescale: 1000, duration: 1000), B.hdlr("soun"),
                            B.box("minf", children: [stbl(table)]),
                        ])
                ])
        }
        let payload = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) }
        func build(base: Int) -> [UInt8] {
            let stco = B.fullBox("stco", B.u32(3) + [0, 100, 2000].flatMap { B.u32(base + $0) })
            let co64 = B.fullBox("co64", B.u32(2) + [500, 3000].flatMap { B.u64(UInt64(base + $0)) })
            return B.ftyp() + B.box("moov", children: [B.mvhd(timescale: 1000, duration: 1000), trak(stco), trak(co64)])
                + B.box("mdat", payload)
        }
        let draft = build(base: 0)
        let url = directory.appendingPathComponent("tables.m4a")
        try Data(build(base: draft.count - payload.count)).write(to: url)
        let chunks = try MediaChecks.chunkSignatures(url)
        #expect(chunks.count == 5 && chunks[1] == Array(payload[100..<132]))
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Grows the movie box"
        try await item.save()
        #expect(try MediaChecks.chunkSignatures(url) == chunks)
        #expect(try await MediaItem.loaded(url).metadata.title == "Grows the movie box")
    }

    @Test func secondSaveFitsThePaddingAndIsInPlace() async throws {
        let url = try audio("pad.m4a", ["-movflags", "+faststart"])
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "First"
        try await item.save()
        let inode = try MediaChecks.inode(url)
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        item.metadata.title = "Second, a little longer"
        item.metadata.album = "Added album"
        try await item.save()
        #expect(try MediaChecks.inode(url) == inode)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int == size)
        #expect(try await MediaItem.loaded(url).metadata.album == "Added album")
    }

    @Test func repeatedSavesDoNotDrift() async throws {
        let url = try audio("drift.m4a", ["-movflags", "+faststart"])
        var item = try await MediaItem.loaded(url)
        var sizes = Set<Int>()
        for round in 0..<100 {
            item.metadata.title = round.isMultiple(of: 2) ? String(repeating: "x", count: 300) : "short"
            try await item.save()
            if round >= 2 { sizes.insert(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int) }
        }
        #expect(sizes.count == 1, "file size drifted: \(sizes.sorted())")
    }

    @Test func fragmentedFileKeepsItsFragments() async throws {
        let url = try audio("frag.mp4", ["-movflags", "frag_keyframe+empty_moov"])
        let md5 = try MediaChecks.decodedMD5(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "fragmented ", count: 50)
        try await item.save()
        #expect(try await MediaItem.loaded(url).metadata.title == String(repeating: "fragmented ", count: 50))
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }

    @Test func quickTimeMetadataOnlyFileIsUpdatedInMdta() async throws {
        let url = try audio("mdta.mov", ["-movflags", "use_metadata_tags", "-metadata", "title=Old title"])
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.key == "title" })
        item.metadata.title = "New title"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "New title")
        #expect(reread.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.value == .string("New title") })
        // ... and, for readers of the iTunes list alone, in a new iTunes list.
        #expect(reread.metadata.items.filter { $0.keySpace == .iTunes }.map(\.key) == ["©nam"])
        // Keys ffmpeg added that we don't map survive.
        #expect(reread.metadata.items.contains { $0.key == "encoder" })
    }

    @Test func movUserDataIsUpdated() async throws {
        let url = try audio("udta.mov", ["-metadata", "title=Old", "-metadata", "artist=Someone"])
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.contains { $0.keySpace == .quickTimeUserData && $0.key == "©nam" })
        item.metadata.title = "Nouveau titre"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.items.first { $0.keySpace == .quickTimeUserData && $0.key == "©nam" }?.value == .string("Nouveau titre"))
        #expect(reread.metadata.artist == "Someone")
        let probe = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "default=nw=1:nk=1", url.path])
        #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "Nouveau titre")
    }

    @Test func artworkAddReplaceRemoveAndSeveral() async throws {
        let url = try audio("art.m4a")
        var item = try await MediaItem.loaded(url)
        let jpeg: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + [UInt8](repeating: 0, count: 14)
            + [0xFF, 0xC0, 0, 17, 8, 0, 2, 0, 3, 3] + [UInt8](repeating: 0, count: 15) + [0xFF, 0xD9]
        item.metadata.artwork = [Artwork(data: Data(ImageInfoTests.png)), Artwork(data: Data(jpeg))]
        try await item.save()
        #expect(item.metadata.artwork.map(\.mimeType) == ["image/png", "image/jpeg"])
        #expect(item.metadata.artwork.last?.width == 3 && item.metadata.artwork.last?.height == 2)
        item.metadata.artwork = [Artwork(data: Data(jpeg))]
        try await item.save()
        #expect(try await item.metadata.artwork.asyncMap { try await $0.data() } == [Data(jpeg)])
        item.metadata.artwork = []
        try await item.save()
        #expect(item.metadata.artwork.isEmpty)
    }

    @Test func unknownItemsSurviveByteForByte() async throws {
        let url = try audio("keep.m4a")
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .iTunes, key: "----:com.example:MOOD", value: .string("Calm"), dataType: .utf8))
        item.metadata.items.append(MetadataItem(keySpace: .iTunes, key: "cpil", value: .integer(1), dataType: .signedInteger))
        try await item.save()
        let before = try TestSupport.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path]).text
        item.metadata.title = "Only the title changes"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.items.contains { $0.key == "----:com.example:MOOD" && $0.value == .string("Calm") })
        #expect(reread.metadata.items.contains { $0.key == "cpil" && $0.value == .integer(1) })
        let after = try TestSupport.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path]).text
        #expect(after.contains("MOOD") && before.contains("MOOD"))
    }

    @Test func valuesMP4CannotHoldLeaveTheFileUnchanged() async throws {
        let url = try audio("limits.m4a")
        let original = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.trackNumber = 70000
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .invalidValue)
        #expect(try Data(contentsOf: url) == original)
    }

    @Test func removingAllTags() async throws {
        let url = try audio("strip.m4a", ["-metadata", "title=T", "-metadata", "artist=A"])
        var item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == nil && reread.metadata.artist == nil)
    }

    @Test func saveToAnotherFileLeavesTheOriginal() async throws {
        let url = try audio("orig.m4a")
        let original = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Copy"
        let copy = directory.appendingPathComponent("copy.m4a")
        try await item.save(to: copy)
        #expect(try Data(contentsOf: url) == original)
        #expect(try await MediaItem.loaded(copy).metadata.title == "Copy")
    }
}
