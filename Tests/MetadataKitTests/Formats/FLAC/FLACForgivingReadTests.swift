import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// FLAC files whose blocks disagree with their content, or that hold a second
/// STREAMINFO: each is read around with a warning at the offset of the
/// problem; a save keeps the damaged block byte for byte while its items are
/// unchanged and refuses, before writing, a change that would rebuild it.
@Suite struct FLACForgivingReadTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func file(_ bytes: [UInt8], _ name: String = "x.flac") throws -> URL {
        try B.write(bytes, name, in: directory)
    }

    /// Offset of the body of the block after STREAMINFO in a `B.flac` file.
    static let secondBody: Int64 = 4 + 4 + 34 + 4

    /// A comment of vendor "v" and two fields whose count claims `count`.
    static func shortComment(count: UInt32) -> [UInt8] {
        var comment = B.comment(vendor: "v", ["TITLE=t", "ARTIST=a"])
        comment.replaceSubrange(5..<9, with: withUnsafeBytes(of: count.littleEndian, Array.init))
        return comment
    }

    @Test func aCommentClaimingMoreFieldsThanItsBlockHoldsReadsTheFieldsThatFit() async throws {
        let picture = B.picture(description: "p")
        let url = try file(B.flac([(4, Self.shortComment(count: 9)), (6, picture), (1, [UInt8](repeating: 0, count: 64))]))
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "t" && item.metadata.artist == "a")
        #expect(item.metadata.artwork.count == 1)
        #expect(item.isEditable)
        let warning = try #require(item.warnings.first)
        #expect(item.warnings.count == 1)
        #expect(warning.offset == Self.secondBody + 5) // the field count, after the vendor
        #expect(warning.message.contains("claims 9 fields"))
        // A title change would rebuild the damaged comment: refused, nothing written.
        item.metadata.title = "new"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .malformed)
        #expect(try Data(contentsOf: url) == before)
        // A change elsewhere keeps the damaged comment block byte for byte.
        item = try await MediaItem.loaded(url)
        item.metadata.artwork = []
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        let comment = try #require(layout.blocks.first { $0.kind == .vorbisComment })
        #expect(try source.getBytes(at: comment.bodyOffset, count: comment.length) == Self.shortComment(count: 9))
        #expect(!layout.blocks.contains { $0.kind == .picture })
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "t" && reread.metadata.artwork.isEmpty && reread.warnings.count == 1)
    }

    @Test func aFieldLongerThanItsBlockEndsTheCommentWithAWarning() async throws {
        var comment = B.comment(vendor: "v", ["TITLE=t", "ARTIST=a", "ALBUM=b"])
        let lengthOffset = 4 + 1 + 4 + 4 + 7 + 4 + 8 // the third field's length
        comment.replaceSubrange(lengthOffset..<lengthOffset + 4, with: [0xFF, 0, 0, 0])
        let url = try file(B.flac([(4, comment)]))
        let parsed = try FLACParser.parse(FileSource(url: url), url)
        #expect(parsed.items.map(\.key) == ["TITLE", "ARTIST"])
        #expect(parsed.warnings.map(\.offset) == [Self.secondBody + Int64(lengthOffset)])
        #expect(parsed.warnings.first?.message.contains("field 3 of 3 runs past the end") == true)
        // Bytes left over after the last field are a warning too.
        let long = try file(B.flac([(4, B.comment(vendor: "v", ["TITLE=t"]) + [1, 2, 3])]), "long.flac")
        let leftover = try FLACParser.parse(FileSource(url: long), long)
        #expect(leftover.items.map(\.key) == ["TITLE"])
        #expect(leftover.warnings.map(\.offset) == [Self.secondBody + 4 + 1 + 4 + 4 + 7])
        #expect(leftover.warnings.first?.message.contains("3 bytes after the Vorbis comment") == true)
        var item = try await MediaItem.loaded(long)
        item.metadata.title = "x"
        await #expect(throws: MediaError.self) { try await item.save() }
    }

    @Test func aPictureCutShortByItsBlockIsReadAsFarAsItGoes() async throws {
        // The image length says 20 bytes more than the block holds.
        var picture = B.picture(description: "cut")
        let lengthOffset = picture.count - ID3Builder.tinyPNG.count - 4
        picture.replaceSubrange(
            lengthOffset..<lengthOffset + 4,
            with: withUnsafeBytes(of: UInt32(ID3Builder.tinyPNG.count + 20).bigEndian, Array.init))
        let url = try file(B.flac([(4, B.comment(["TITLE=a"])), (6, picture)]))
        var item = try await MediaItem.loaded(url)
        let commentLength = Int64(B.comment(["TITLE=a"]).count)
        let pictureBody = Self.secondBody + commentLength + 4
        #expect(item.warnings.map(\.offset) == [pictureBody + Int64(lengthOffset)])
        #expect(item.warnings.first?.message.contains("runs past its") == true)
        let artwork = try #require(item.metadata.artwork.first)
        #expect(try await artwork.data() == Data(ID3Builder.tinyPNG)) // the bytes the block holds
        #expect(artwork.description == "cut")
        // A title save copies the damaged picture block byte for byte.
        item.metadata.title = String(repeating: "b", count: 300)
        try await item.save()
        var source = try FileSource(url: url)
        var block = try #require(FLACLayout(parsing: source).blocks.first { $0.kind == .picture })
        #expect(try source.getBytes(at: block.bodyOffset, count: block.length) == picture)
        // Changing the damaged picture would rebuild it: refused before writing.
        item = try await MediaItem.loaded(url)
        let before = try Data(contentsOf: url)
        item.metadata.artwork[0].description = "changed"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .malformed && error?.offset == block.offset)
        #expect(try Data(contentsOf: url) == before)
        // Bytes after the image in its block: a warning, the picture reads whole.
        let padded = try file(B.flac([(6, B.picture() + [9, 9])]), "padded.flac")
        let parsed = try FLACParser.parse(FileSource(url: padded), padded)
        #expect(parsed.warnings.count == 1 && parsed.warnings[0].message.contains("2 bytes after the picture data"))
        #expect(parsed.warnings[0].offset == Self.secondBody + Int64(B.picture().count))
        source = try FileSource(url: padded)
        block = try #require(FLACLayout(parsing: source).blocks.first { $0.kind == .picture })
        #expect(parsed.items.count == 1)
    }

    @Test func aPictureWhoseFieldsDoNotFitIsSkippedAndKept() async throws {
        var picture = B.picture()
        picture.replaceSubrange(4..<8, with: [0x7F, 0xFF, 0xFF, 0xFF]) // media type length
        let url = try file(B.flac([(6, picture), (4, B.comment(["TITLE=a"]))]))
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.artwork.isEmpty && item.metadata.title == "a")
        #expect(item.warnings.map(\.offset) == [Self.secondBody + 4])
        #expect(item.warnings.first?.message.contains("media type of") == true)
        item.metadata.title = String(repeating: "c", count: 300)
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        #expect(layout.blocks.map(\.type) == [0, 6, 4, 1])
        #expect(try source.getBytes(at: layout.blocks[1].bodyOffset, count: layout.blocks[1].length) == picture)
        #expect(try await MediaItem.loaded(url).metadata.title == String(repeating: "c", count: 300))
        // Too short for the fixed fields at all.
        let tiny = try file(B.flac([(6, [0, 0, 0, 3])]), "tiny.flac")
        let parsed = try FLACParser.parse(FileSource(url: tiny), tiny)
        #expect(parsed.items.isEmpty && parsed.warnings.first?.message.contains("shorter than its 32 bytes") == true)
    }

    @Test func aSecondStreamInfoIsIgnoredWithAWarningAndKept() async throws {
        let second = B.streamInfo(sampleRate: 8000, channels: 1, totalSamples: 8000)
        let url = try file(
            B.flac(
                [(0, second), (4, B.comment(["TITLE=a"])), (1, [UInt8](repeating: 0, count: 100))],
                info: B.streamInfo(sampleRate: 44100, totalSamples: 88200)))
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.sampleRate == 44100 && item.properties.duration == 2)
        #expect(item.warnings.map(\.offset) == [Self.secondBody - 4])
        #expect(item.warnings.first?.message.contains("second STREAMINFO") == true)
        #expect(item.metadata.title == "a" && item.isEditable)
        item.metadata.title = "b"
        try await item.save()
        let source = try FileSource(url: url)
        let layout = try FLACLayout(parsing: source)
        #expect(layout.blocks.map(\.type) == [0, 0, 4, 1])
        #expect(try source.getBytes(at: layout.blocks[1].bodyOffset, count: 34) == second)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "b" && reread.warnings.count == 1)
    }
}
