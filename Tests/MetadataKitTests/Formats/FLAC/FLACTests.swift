import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Native FLAC files built byte by byte: reading, hostile input, and the writer's layouts.
@Suite struct FLACTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func file(_ bytes: [UInt8], _ name: String = "x.flac") throws -> URL {
        try B.write(bytes, name, in: directory)
    }

    func read(_ bytes: [UInt8]) throws -> ParsedFile {
        let url = try file(bytes, "r.flac")
        return try FLACParser.parse(FileSource(url: url), url)
    }

    static let tagged: [(UInt8, [UInt8])] = [
        (4, B.comment(vendor: "reference libFLAC", ["TITLE=Tïtle", "artist=One", "ARTIST=Two", "TRACKNUMBER=3", "TRACKTOTAL=12"])),
        (6, B.picture(type: 3, description: "front")),
        (6, B.picture(type: 4, mime: "image/png", description: "back")),
        (1, [UInt8](repeating: 0, count: 200)),
    ]

    @Test func readsStreamInfoCommentAndPictures() async throws {
        let url = try file(
            B.flac(
                Self.tagged, info: B.streamInfo(sampleRate: 48000, channels: 6, bitsPerSample: 24, totalSamples: 96000),
                audio: B.fakeAudio(12000)))
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType?.identifier == "flac" && item.fileType?.mimeType == "audio/flac")
        #expect(item.properties.codec == "FLAC")
        #expect(item.properties.sampleRate == 48000 && item.properties.channels == 6 && item.properties.bitsPerSample == 24)
        #expect(item.properties.duration == 2)
        #expect(item.properties.bitrate == 48000) // 12000 bytes over 2 s
        #expect(item.metadata.title == "Tïtle")
        #expect(item.metadata.artist == "One; Two")
        #expect(item.metadata.trackNumber == 3 && item.metadata.trackCount == 12)
        #expect(item.metadata.artwork.map(\.pictureType) == [.frontCover, .backCover])
        #expect(item.metadata.artwork.map(\.description) == ["front", "back"])
        let front = try #require(item.metadata.artwork.first)
        #expect(front.fileOffset != nil) // read lazily from the file
        #expect(try await front.data() == Data(ID3Builder.tinyPNG))
        #expect(front.width == 3 && front.height == 2)
    }

    @Test(arguments: ["sample.flac", "sample.ogg", "sample.opus"])
    func validSamplesLoad(name: String) async throws {
        // Made by ffmpeg (8 kHz mono sine, 0.25 s, bitexact), tagged title and artist.
        let item = try await MediaItem.loaded(TestSupport.fixtures.appendingPathComponent("valid/\(name)"))
        #expect(item.metadata.title == "Sine in A" && item.metadata.artist == "MetadataKit")
        #expect(item.properties.channels == 1 && abs((item.properties.duration ?? 0) - 0.25) < 0.001)
        #expect(item.properties.codec == ["flac": "FLAC", "ogg": "Vorbis", "opus": "Opus"][String(name.split(separator: ".")[1])])
    }

    @Test func id3v2BeforeTheMarkerIsSkippedAndKept() async throws {
        var builder = ID3Builder(version: 3)
        builder.frames = [ID3Builder.frame("TIT2", ID3Builder.text(["id3 title"], encoding: 0), version: 3)]
        let id3 = builder.bytes()
        let url = try file(B.flac(Self.tagged, prefix: id3))
        var item = try await MediaItem.loaded(url)
        #expect(item.fileType?.identifier == "flac")
        #expect(item.metadata.title == "Tïtle")
        item.metadata.title = "New"
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes[..<id3.count]) == id3)
        #expect(try await MediaItem.loaded(url).metadata.title == "New")
        // Removing all tags removes the ID3v2 tag too.
        item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true))
        #expect([UInt8](try Data(contentsOf: url)).starts(with: Array("fLaC".utf8)))
        #expect(try await MediaItem.loaded(url).metadata.items.isEmpty)
    }

    @Test func everyPrefixOfTheMetadataThrows() throws {
        let bytes = B.flac(Self.tagged, audio: [])
        for length in 0..<bytes.count {
            #expect(throws: MediaError.self, "prefix \(length)") { try read(Array(bytes[..<length])) }
        }
        #expect(try read(bytes).items.count == 6)
    }

    @Test func hostileBlocksThrow() throws {
        func code(_ bytes: [UInt8]) -> MediaError.Code? {
            do {
                _ = try read(bytes)
                return nil
            } catch let error as MediaError { return error.code } catch { return nil }
        }
        // A block length past the end of the file (an APPLICATION block: a
        // VORBIS_COMMENT or PICTURE is read by its fields instead, see
        // FLACWrongBlockLengthTests).
        var long = B.flac([(2, Array("abcd".utf8) + [1, 2, 3])])
        long[4 + 38 + 1] = 0xFF
        #expect(code(long) == .sizeOutOfRange)
        var comment = B.flac([(4, B.comment(["A=b"]))])
        comment[4 + 38 + 1] = 0xFF
        #expect(code(comment) == nil)
        // Type 127, STREAMINFO missing, STREAMINFO of the wrong size.
        #expect(code(B.flac([(127, [])])) == .malformed)
        #expect(code(Array("fLaC".utf8) + FLACBlock.header(type: 4, isLast: true, length: 8) + B.comment([])) == .malformed)
        #expect(code(Array("fLaC".utf8) + FLACBlock.header(type: 0, isLast: true, length: 30) + B.streamInfo().prefix(30)) == .malformed)
        // Damage inside a picture or comment block, and a second STREAMINFO,
        // are read around with warnings: see FLACForgivingReadTests.
        // Not FLAC at all.
        #expect(code(Array("fLaX".utf8) + [UInt8](repeating: 0, count: 60)) == .unsupportedFormat)
    }

    /// Random byte changes in the metadata: every result reads and plans a
    /// save, or throws a MediaError — never crashes or hangs.
    @Test func randomCorruptionNeverCrashes() throws {
        let file = B.flac(Self.tagged, audio: B.fakeAudio(200))
        let outcomes = try B.corruptionOutcomes(
            file, range: 4..<file.count - 200, count: 800, in: directory,
            read: FLACParser.parse, plan: { try FLACEditPlanner.plan($0, $1, SaveOptions()) })
        #expect(outcomes["non-MediaError"] == nil)
        #expect(outcomes["parsed", default: 0] > 0 && outcomes["planned", default: 0] > 0)
    }

    @Test func smallChangeIsPatchedInPlaceUsingPadding() async throws {
        let url = try file(B.flac(Self.tagged, audio: B.fakeAudio(5000)))
        let audio = B.fakeAudio(5000)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A longer title than before, still fits in the padding"
        item.metadata.album = "Album ✓"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: [.vorbis])
        let plan = try FLACEditPlanner.plan(FileSource(url: url), items, SaveOptions())
        guard case .inPlace = plan else {
            Issue.record("expected an in-place plan, got \(plan)")
            return
        }
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.count == size)
        #expect(Array(bytes.suffix(audio.count)) == audio)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "A longer title than before, still fits in the padding")
        #expect(reread.metadata.album == "Album ✓")
        #expect(reread.metadata.artist == "One; Two")
        #expect(reread.metadata.artwork.count == 2)
    }

    @Test func growingPastThePaddingRewritesAndKeepsOtherBlocks() async throws {
        let seekTable = (0..<36).map { UInt8($0) }
        let application = Array("TEST".utf8) + [1, 2, 3]
        let cueSheet = [UInt8](repeating: 7, count: 40)
        let blocks: [(UInt8, [UInt8])] = [
            (3, seekTable), (4, B.comment(vendor: "keep me", ["TITLE=t"])), (2, application),
            (5, cueSheet), (6, B.picture()), (1, [0, 0, 0, 0]),
        ]
        let audio = B.fakeAudio(3000)
        let url = try file(B.flac(blocks, audio: audio))
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "long comment ", count: 100)
        item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .artist, description: "new"))
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        #expect(layout.blocks.map(\.type) == [0, 3, 4, 2, 5, 6, 6, 1])
        #expect(layout.blocks.map(\.isLast) == [false, false, false, false, false, false, false, true])
        #expect(try source.getBytes(at: layout.blocks[1].bodyOffset, count: 36) == seekTable)
        #expect(try source.getBytes(at: layout.blocks[3].bodyOffset, count: application.count) == application)
        #expect(try source.getBytes(at: layout.blocks[4].bodyOffset, count: 40) == cueSheet)
        #expect(layout.blocks[7].length == 1024) // standard padding for a small file
        #expect(try source.getBytes(at: layout.audioStart, count: audio.count) == audio)
        #expect(layout.audioStart + Int64(audio.count) == source.size)
        var reader = try source.reader(at: layout.blocks[2].bodyOffset, count: layout.blocks[2].length)
        #expect(try VorbisComment(parsing: &reader).vendor == "keep me")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.artwork.map(\.pictureType) == [.frontCover, .artist])
        #expect(reread.metadata.artwork.last?.description == "new")
        #expect(reread.metadata.title == "t")
    }

    @Test func unchangedPictureBlocksAreCopiedVerbatim() async throws {
        // width 30 in the original block; a re-encoded block would have the image's 3.
        let block = B.picture(type: 3, description: "d", width: 30)
        let url = try file(B.flac([(4, B.comment(["TITLE=a"])), (6, block)]))
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "b", count: 500) // no padding: rewrite
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        let picture = try #require(layout.blocks.first { $0.kind == .picture })
        #expect(try source.getBytes(at: picture.bodyOffset, count: picture.length) == block)
    }

    @Test func aPictureFromAnotherFileAtTheSameOffsetIsWrittenFromItsOwnBytes() async throws {
        var other = ID3Builder.tinyPNG
        other[other.count - 13] ^= 0xFF // same length and header, other bytes
        let mine = try file(B.flac([(4, B.comment(["TITLE=a"])), (6, B.picture())]), "mine.flac")
        let theirs = try file(B.flac([(4, B.comment(["TITLE=a"])), (6, B.picture(data: other))]), "theirs.flac")
        var item = try await MediaItem.loaded(mine)
        item.metadata.artwork = try await MediaItem.loaded(theirs).metadata.artwork
        #expect(item.metadata.artwork.first?.fileOffset == (try await MediaItem.loaded(mine)).metadata.artwork.first?.fileOffset)
        try await item.save()
        #expect(try await MediaItem.loaded(mine).metadata.artwork.first?.data() == Data(other))
    }

    @Test func exactFitLeavesNoPaddingAndRemovingAllTagsKeepsTheVendor() async throws {
        let url = try file(B.flac([(4, B.comment(vendor: "v", ["TITLE=abcdef"])), (1, [0, 0, 0])], audio: B.fakeAudio(100)))
        // A 3-byte padding block takes 7 bytes: a value 7 characters longer fills them exactly.
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "abcdefghijklm"
        try await item.save()
        var layout = try FLACLayout(parsing: FileSource(url: url))
        #expect(layout.blocks.map(\.type) == [0, 4])
        #expect(layout.blocks.last?.isLast == true)
        item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true))
        let source = try FileSource(url: url)
        layout = try FLACLayout(parsing: source)
        let comment = try #require(layout.blocks.first { $0.kind == .vorbisComment })
        var reader = try source.reader(at: comment.bodyOffset, count: comment.length)
        let parsed = try VorbisComment(parsing: &reader)
        #expect(parsed.vendor == "v" && parsed.fields.isEmpty)
        #expect(try await MediaItem.loaded(url).metadata.items.isEmpty)
    }

    @Test func aFileWithoutTagsGetsACommentAfterStreamInfo() async throws {
        let url = try file(B.flac([(3, [UInt8](repeating: 1, count: 18))]))
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.isEmpty)
        item.metadata.title = "First"
        item.metadata.artwork = [Artwork(data: Data(ID3Builder.tinyPNG))]
        try await item.save()
        let layout = try FLACLayout(parsing: FileSource(url: url))
        #expect(layout.blocks.map(\.type) == [0, 4, 6, 3, 1])
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "First" && reread.metadata.artwork.count == 1)
    }
}
