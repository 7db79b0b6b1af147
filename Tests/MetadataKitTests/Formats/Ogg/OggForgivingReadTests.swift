import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Damaged Ogg files built page by page: junk and damaged pages between
/// pages (read on at the next good page, kept by saves), header packets that
/// end early (the codec and what was read are reported, not editable), and a
/// comment that claims more fields than fit (the fields that fit are read).
@Suite struct OggForgivingReadTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func file(_ bytes: [UInt8], _ name: String = "x.ogg") throws -> URL {
        try B.write(bytes, name, in: directory)
    }

    /// The page lengths of `bytes`, in order, parsed from the front.
    static func pageLengths(_ bytes: [UInt8]) -> [Int] {
        var lengths: [Int] = []
        var offset = 0
        while offset < bytes.count, let page = OggPage.parse(bytes[offset...], offset: Int64(offset)),
            offset + page.length <= bytes.count
        {
            lengths.append(page.length)
            offset += page.length
        }
        return lengths
    }

    /// A damaged page: a real audio page of the stream with one body byte
    /// changed (so its CRC is wrong) and a segment table claiming more.
    static func damagedPage(like bytes: [UInt8], at offset: Int) -> [UInt8] {
        let length = pageLengths(bytes).reduce(into: (0, 0)) { state, length in
            if state.0 < offset {
                state.0 += length
                state.1 = length
            }
        }
        var page = Array(bytes[offset..<offset + length.1])
        page[page.count - 1] ^= 0x5A
        return page
    }

    @Test func junkBetweenPagesIsSkippedWithAWarningAndKeptOnSave() async throws {
        let clean = B.oggVorbis(fields: ["TITLE=junk", "ARTIST=a"], setupSize: 300)
        let lengths = Self.pageLengths(clean)
        let junk = Array("garbage, not a page".utf8) + [UInt8](repeating: 0xEE, count: 45)
        var bytes = clean
        bytes.insert(contentsOf: junk, at: lengths[0]) // between the BOS page and the comment page
        let url = try file(bytes)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "junk" && item.metadata.artist == "a")
        #expect(item.properties.codec == "Vorbis" && item.properties.duration == 4096.0 / 44100)
        #expect(item.warnings.map(\.offset) == [Int64(lengths[0])])
        #expect(item.warnings.first?.message.contains("\(junk.count) bytes of bytes that are not an Ogg page") == true)
        #expect(item.isEditable)
        // A same-size change is patched in place; the junk stays where it was.
        item.metadata.title = "knuj"
        try await item.save()
        var after = [UInt8](try Data(contentsOf: url))
        #expect(Array(after[lengths[0]..<lengths[0] + junk.count]) == junk)
        // A change that adds pages rewrites the file: the junk is still kept, byte for byte, after the first page.
        item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "long ", count: 20000)
        try await item.save()
        after = [UInt8](try Data(contentsOf: url))
        #expect(Array(after[lengths[0]..<lengths[0] + junk.count]) == junk)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "knuj" && reread.metadata.comments?.count == 100000)
        #expect(reread.warnings.map(\.offset) == [Int64(lengths[0])])
    }

    @Test func aDamagedPageIsSkippedToTheNextCapturePattern() async throws {
        let clean = B.oggVorbis(fields: ["TITLE=crc"], setupSize: 300, audioPages: 4)
        let lengths = Self.pageLengths(clean)
        let audioStart = lengths[0] + lengths[1]
        // A copy of the first audio page with a wrong CRC, cut after 40 bytes
        // so its segment table claims more than there is and would swallow the
        // real header page that follows: the reader must resync on its "OggS".
        let damaged = Array(Self.damagedPage(like: clean, at: audioStart).prefix(40))
        var bytes = clean
        bytes.insert(contentsOf: damaged, at: lengths[0])
        let url = try file(bytes)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "crc")
        #expect(item.warnings.map(\.offset) == [Int64(lengths[0])])
        #expect(item.warnings.first?.message.contains("CRC is wrong") == true)
        #expect(item.warnings.first?.message.contains("40 bytes") == true)
        #expect(item.isEditable)
        // A damaged audio page (wrong CRC, whole): a save that renumbers the
        // stream keeps it byte for byte and renumbers the good pages around it.
        var second = clean
        let secondAudio = audioStart + lengths[2]
        second.replaceSubrange(secondAudio..<secondAudio + lengths[3], with: Self.damagedPage(like: clean, at: secondAudio))
        let audioDamage = try file(second, "audio.ogg")
        item = try await MediaItem.loaded(audioDamage)
        #expect(item.warnings.isEmpty) // the reader doesn't walk the audio pages
        item.metadata.comments = String(repeating: "long ", count: 20000)
        try await item.save()
        let after = [UInt8](try Data(contentsOf: audioDamage))
        let damagedAudio = Self.damagedPage(like: clean, at: secondAudio)
        let position = try #require(after.indices.first { after[$0...].starts(with: damagedAudio) })
        #expect(position > secondAudio)
        let problems = try B.pageProblems(audioDamage)
        #expect(problems.count == 3, "\(problems)") // its CRC, and its sequence number out of line before and after
        #expect(problems.contains("bad CRC at \(position)"))
        #expect(try await MediaItem.loaded(audioDamage).metadata.comments?.count == 100000)
    }

    @Test func aFileThatEndsAfterTheIdentificationHeaderReportsTheCodec() async throws {
        let clean = B.oggVorbis(fields: ["TITLE=gone"], setupSize: 300)
        let cut = Array(clean.prefix(Self.pageLengths(clean)[0]))
        let url = try file(cut)
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.codec == "Vorbis" && item.properties.sampleRate == 44100 && item.properties.channels == 2)
        #expect(item.metadata.items.isEmpty)
        #expect(!item.isEditable)
        #expect(item.warnings.map(\.offset) == [Int64(cut.count)])
        #expect(item.warnings.first?.message.contains("after 1 of 3 header packets of the Vorbis stream") == true)
        item.metadata.title = "new"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .truncated)
        #expect([UInt8](try Data(contentsOf: url)) == cut)
        // Opus the same way: OpusHead and no OpusTags.
        let head = Array("OpusHead".utf8) + [1, 1, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let opus = try file(OggPage.paginate([head], serial: 9, firstSequence: 0, firstFlags: OggPage.beginning).flatMap { $0 }, "o.opus")
        let parsed = try OggParser.parse(FileSource(url: opus), opus)
        #expect(parsed.properties.codec == "Opus" && parsed.properties.channels == 1 && !parsed.isEditable)
        #expect(parsed.warnings.first?.message.contains("after 1 of 2 header packets of the Opus stream") == true)
    }

    @Test func aFileThatEndsAfterTheCommentHeaderReadsTheComment() async throws {
        var pages = OggPage.paginate([B.vorbisID()], serial: 5, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=kept", "ARTIST=there"])], serial: 5, firstSequence: 1)
        let bytes = pages.flatMap { $0 }
        let url = try file(bytes)
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "kept" && item.metadata.artist == "there")
        #expect(item.properties.codec == "Vorbis" && !item.isEditable)
        #expect(item.warnings.map(\.offset) == [Int64(bytes.count)])
        #expect(item.warnings.first?.message.contains("after 2 of 3 header packets") == true)
        // A comment over two pages, the file cut inside the second: that page
        // is damaged (skipped), the first page's part of the packet is read,
        // and its fields that fit are items.
        var long = OggPage.paginate([B.vorbisID()], serial: 5, firstSequence: 0, firstFlags: OggPage.beginning)
        long += OggPage.paginate(
            [B.vorbisComment(["TITLE=kept", "COMMENT=" + String(repeating: "c", count: 70000)])],
            serial: 5, firstSequence: 1)
        #expect(long.count == 3)
        let cut = Array(long.flatMap { $0 }.dropLast(100))
        let inside = try file(cut, "inside.ogg")
        let parsed = try OggParser.parse(FileSource(url: inside), inside)
        #expect(parsed.items.map(\.key) == ["TITLE"] && !parsed.isEditable)
        let secondPage = Int64(long[0].count + long[1].count)
        let commentBody = try #require(OggPage.parse(long[1][...], offset: Int64(long[0].count))).bodyOffset
        // The second field's length: after "\x03vorbis", the vendor, the count and "TITLE=kept".
        let fieldOffset = commentBody + 7 + 4 + 11 + 4 + 4 + 10
        #expect(parsed.warnings.map(\.offset) == [fieldOffset, secondPage, Int64(cut.count)])
        #expect(parsed.warnings[0].message.contains("field 2 of 2 runs past the end"))
        #expect(parsed.warnings[1].message.contains("to the end of the file"))
        #expect(parsed.warnings[2].message.contains("inside the next one"))
    }

    @Test func aCommentClaimingMoreFieldsThanFitReadsTheFieldsThatFit() async throws {
        var comment = B.vorbisComment(["TITLE=fits", "ALBUM=too"])
        let countPosition = 7 + 4 + "test vendor".utf8.count
        comment.replaceSubrange(countPosition..<countPosition + 4, with: [50, 0, 0, 0])
        var pages = OggPage.paginate([B.vorbisID()], serial: 5, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([comment, B.vorbisSetup(100)], serial: 5, firstSequence: 1)
        pages += OggPage.paginate([[UInt8](repeating: 1, count: 30)], serial: 5, firstSequence: UInt32(pages.count), granule: 4410)
        let bytes = pages.flatMap { $0 }
        let url = try file(bytes)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "fits" && item.metadata.album == "too")
        let commentPage = try #require(OggPage.parse(bytes[pages[0].count...], offset: Int64(pages[0].count)))
        let countOffset = commentPage.bodyOffset + Int64(countPosition)
        #expect(item.warnings.first?.offset == countOffset)
        #expect(item.warnings.first?.message.contains("claims 50 fields") == true)
        #expect(!item.isEditable)
        let before = try Data(contentsOf: url)
        item.metadata.title = "changed"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .malformed)
        #expect(try Data(contentsOf: url) == before)
    }
}

extension OggForgivingReadTests {
    /// A header page of the stream whose CRC is wrong but whose structure is
    /// whole and in sequence is read anyway, as mutagen and TagLib read it
    /// (they check no CRC): the comment reads with its damaged byte, a
    /// warning at the page, and the file is read-only (a save is refused,
    /// nothing written).
    @Test func aHeaderPageWithAWrongCRCIsReadAnywayAndTheFileReadOnly() async throws {
        // Comment and setup header on pages of their own; the comment page's CRC is broken.
        var pages = OggPage.paginate([B.vorbisID()], serial: 5, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=lost"])], serial: 5, firstSequence: 1)
        pages += OggPage.paginate([B.vorbisSetup(100)], serial: 5, firstSequence: 2)
        pages += B.setEOS(OggPage.paginate([[UInt8](repeating: 2, count: 40)], serial: 5, firstSequence: 3, granule: 4410))
        pages[1][pages[1].count - 3] ^= 0x01
        let url = try file(pages.flatMap { $0 })
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.codec == "Vorbis" && item.properties.sampleRate == 44100)
        // The flipped byte is the "s" of "lost" (then "t" and the framing bit end the page).
        #expect(item.metadata.title == "lort" && !item.isEditable)
        #expect(item.warnings.map(\.offset) == [Int64(pages[0].count)])
        #expect(item.warnings[0].message.contains("CRC is wrong"))
        let before = try Data(contentsOf: url)
        item.metadata.title = "changed"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .malformed && error?.offset == Int64(pages[0].count))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aDamagedFLACInOggPictureIsSkippedAndTheFileReadOnly() async throws {
        var picture = B.picture(description: "cut")
        let lengthOffset = picture.count - ID3Builder.tinyPNG.count - 4
        picture.replaceSubrange(lengthOffset..<lengthOffset + 4, with: [0, 0, 0x10, 0]) // 4096 bytes, more than the block
        let bytes = OggTests.oggFLAC(blocks: [(4, B.comment(["TITLE=f"])), (6, picture)])
        let url = try file(bytes, "a.oga")
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "f" && item.metadata.artwork.isEmpty)
        #expect(!item.isEditable)
        #expect(item.warnings.count == 1 && item.warnings[0].message.contains("PICTURE block that doesn't parse"))
        // The offset is the picture's data length field, found through the page layout.
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(item.warnings[0].offset == scan.fileOffset(packet: 2, position: Int64(4 + lengthOffset)))
        #expect(Array(bytes[Int(item.warnings[0].offset ?? 0)..<Int(item.warnings[0].offset ?? 0) + 4]) == [0, 0, 0x10, 0])
        item.metadata.title = "g"
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .malformed)
        #expect([UInt8](try Data(contentsOf: url)) == bytes)
    }
}

extension OggForgivingReadTests {
    /// The stream's last page with a wrong CRC: its granule gives the
    /// duration (as mutagen reads it) when it follows the last right page in
    /// sequence and goes on plausibly, with a warning at the page; a granule
    /// that jumps far ahead (a damaged header) is not taken, the page before
    /// gives the duration. The only audio page, damaged, gives it too (its
    /// granule is below 2000 per byte).
    @Test(arguments: [(false, false), (true, false), (false, true)])
    func aLastPageWithAWrongCRCGivesTheDurationWhenPlausible(granuleDamaged: Bool, onlyPage: Bool) async throws {
        var pages = OggPage.paginate([B.vorbisID()], serial: 5, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=t"]), B.vorbisSetup(100)], serial: 5, firstSequence: 1)
        if !onlyPage {
            pages += OggPage.paginate([[UInt8](repeating: 1, count: 40)], serial: 5, firstSequence: UInt32(pages.count), granule: 2205)
        }
        let sequence = UInt32(pages.count)
        pages += B.setEOS(OggPage.paginate([[UInt8](repeating: 2, count: 40)], serial: 5, firstSequence: sequence, granule: 4410))
        let lastOffset = pages.dropLast().reduce(0) { $0 + $1.count }
        if granuleDamaged {
            pages[pages.count - 1][13] = 0x40 // granule's top byte: 2^62 samples
        } else {
            pages[pages.count - 1][pages[pages.count - 1].count - 5] ^= 0xFF
        }
        let item = try await MediaItem.loaded(try file(pages.flatMap { $0 }))
        let duration = try #require(item.properties.duration)
        let lastPageWarning = item.warnings.first { $0.offset == Int64(lastOffset) }
        if granuleDamaged {
            #expect(abs(duration - 0.05) < 1e-9, "\(duration)")
            #expect(lastPageWarning == nil, "\(item.warnings)")
        } else {
            #expect(abs(duration - 0.1) < 1e-9, "\(duration)")
            #expect(lastPageWarning?.message.contains("wrong CRC") == true, "\(item.warnings)")
        }
        #expect(item.metadata.title == "t")
    }
}
