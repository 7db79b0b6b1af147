import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Ogg pages, CRC, header scanning and the writer's re-pagination, on files built byte by byte.
@Suite struct OggTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    func file(_ bytes: [UInt8], _ name: String = "x.ogg") throws -> URL {
        try B.write(bytes, name, in: directory)
    }

    func read(_ bytes: [UInt8]) throws -> ParsedFile {
        let url = try file(bytes, "r.ogg")
        return try OggParser.parse(FileSource(url: url), url)
    }

    func code(_ bytes: [UInt8]) -> MediaError.Code? {
        do {
            _ = try read(bytes)
            return nil
        } catch let error as MediaError { return error.code } catch { return nil }
    }

    @Test func crcIsTheOggPolynomialNotZlib() {
        // CRC-32 with polynomial 0x04c11db7, init 0, no reflection, no final XOR: "123456789" → 0x89A1897F.
        #expect(OggCRC.update(0, Array("123456789".utf8)) == 0x89A1_897F)
    }

    @Test func slicedCRCMatchesTheBitwiseDefinitionAtEveryLengthAndAlignment() {
        // The definition, one bit at a time (RFC 3533 §6), against the eight-bytes-a-step tables:
        // every length from 0 to 40 (the tail loop and several whole steps), from several start
        // offsets (unaligned loads), and continued from a non-zero register.
        func bitwise(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc = crc
            for byte in bytes {
                crc ^= UInt32(byte) << 24
                for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
            }
            return crc
        }
        var state: UInt32 = 12345
        let bytes = (0..<64).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        for start in 0..<8 {
            for length in 0...40 {
                let slice = bytes[start..<start + length]
                #expect(OggCRC.update(0, slice) == bitwise(0, slice), "start \(start), length \(length)")
                #expect(OggCRC.update(0xDEAD_BEEF, slice) == bitwise(0xDEAD_BEEF, slice), "start \(start), length \(length)")
            }
        }
    }

    @Test func paginationLacesPacketsAndNumbersPages() throws {
        let packets: [[UInt8]] = [[UInt8](repeating: 1, count: 255), [UInt8](repeating: 2, count: 70_000), [3]]
        let pages = OggPage.paginate(packets, serial: 7, firstSequence: 5, firstFlags: OggPage.beginning)
        let url = try file(pages.flatMap { $0 })
        let parsed = try B.pages(url)
        #expect(parsed.count == 2)
        #expect(parsed.map(\.sequence) == [5, 6])
        #expect(parsed[0].isBeginning && !parsed[1].isBeginning && parsed[1].isContinued)
        #expect(parsed[0].segments.count == 255 && parsed[0].segments[0] == 255 && parsed[0].segments[1] == 0)
        #expect(parsed[0].granulePosition == 0) // the first packet ends on page 0
        #expect(try B.pageProblems(url).isEmpty)
        // Reassemble.
        let source = try FileSource(url: url)
        var bytes: [UInt8] = []
        for page in parsed { bytes += try source.getBytes(at: page.bodyOffset, count: page.bodyLength) }
        #expect(bytes == packets.flatMap { $0 })
    }

    @Test func readsVorbisPropertiesAndComment() async throws {
        let url = try file(B.oggVorbis(fields: ["TITLE=Tïtle", "artist=A", "ARTIST=B", "DATE=2020"], rate: 44100))
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType?.identifier == "ogg" && item.fileType?.mimeType == "audio/ogg")
        #expect(item.properties.codec == "Vorbis")
        #expect(item.properties.channels == 2 && item.properties.sampleRate == 44100)
        #expect(item.properties.bitrate == 128000)
        #expect(item.properties.duration == 4096.0 / 44100)
        #expect(item.metadata.title == "Tïtle" && item.metadata.artist == "A; B" && item.metadata.date == "2020")
    }

    @Test func multiplexedStreamsPickTheVorbisStream() async throws {
        let url = try file(B.oggVorbis(fields: ["TITLE=mux"], otherStream: true, otherFirst: true))
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "mux")
        #expect(item.properties.duration == 4096.0 / 44100) // from the Vorbis stream's last page, not the other's
    }

    /// Every prefix throws, or (once the id header is whole) reads the codec
    /// with a warning that the headers end early and is not editable.
    @Test func everyPrefixOfTheHeadersThrowsOrWarns() throws {
        let bytes = B.oggVorbis(fields: ["TITLE=x"], setupSize: 40, audioPages: 0)
        let bos = try #require(OggPage.parse(bytes[...], offset: 0))
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            if length < bos.length {
                #expect(code(prefix) != nil, "prefix \(length)")
                continue
            }
            let parsed = try read(prefix)
            #expect(parsed.properties.codec == "Vorbis" && !parsed.isEditable, "prefix \(length)")
            #expect(parsed.warnings.contains { $0.code == .truncated && $0.message.contains("header packets") }, "prefix \(length)")
        }
        let whole = try read(bytes)
        #expect(whole.items.count == 1 && whole.warnings.isEmpty && whole.isEditable)
    }

    @Test func hostileStructuresThrow() throws {
        let valid = B.oggVorbis(fields: ["TITLE=x"])
        // Version 1.
        var bytes = valid
        bytes[4] = 1
        #expect(code(bytes) == .unsupportedFeature)
        // A segment table claiming more body than the file has.
        bytes = valid
        let bos = try #require(OggPage.parse(valid[...], offset: 0))
        bytes.removeSubrange(bos.length...) // keep the first page only
        bytes[27] = 255
        #expect(code(bytes) == .truncated)
        // Garbage where the second page should start, a comment claiming four
        // billion fields: read around with warnings (OggForgivingReadTests).
        // A first page holding more than the id header.
        let crowded = OggPage.paginate([B.vorbisID(), B.vorbisComment([])], serial: 1, firstSequence: 0, firstFlags: OggPage.beginning)
        #expect(code(crowded.flatMap { $0 }) == .malformed)
        // No known codec.
        let unknown = OggPage.paginate([Array("\u{80}theora".utf8) + [0]], serial: 1, firstSequence: 0, firstFlags: OggPage.beginning)
        #expect(code(unknown.flatMap { $0 }) == .unsupportedFormat)
        // A Speex header announcing too many extra headers.
        var speex = Array("Speex   ".utf8) + [UInt8](repeating: 0, count: 72)
        speex[68] = 0xFF
        let speexPages = OggPage.paginate([speex], serial: 1, firstSequence: 0, firstFlags: OggPage.beginning)
        #expect(code(speexPages.flatMap { $0 }) == .sizeOutOfRange)
    }

    @Test func tooManyStreamsThrow() {
        var bytes: [UInt8] = []
        for serial in 0..<70 {
            bytes += OggPage.paginate([Array("\u{80}theora".utf8)], serial: UInt32(serial), firstSequence: 0, firstFlags: OggPage.beginning)
                .flatMap { $0 }
        }
        #expect(code(bytes) == .sizeOutOfRange)
    }

    /// An Opus stream: OpusHead (pre-skip 312), OpusTags with binary data
    /// after the comment (RFC 7845 §5.2), audio up to granule 48000 + 312.
    static func opus(tags: [String]) -> [UInt8] {
        var head = Array("OpusHead".utf8) + [1, 1]
        head += [0x38, 0x01] // pre-skip 312, LE
        head += [0x80, 0xBB, 0, 0] // input rate 48000
        head += [0, 0, 0] // gain 0, mapping family 0
        let tagsPacket = Array("OpusTags".utf8) + B.comment(vendor: "libopus", tags) + [1, 0xAA, 0xBB]
        var pages = OggPage.paginate([head], serial: 3, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([tagsPacket], serial: 3, firstSequence: 1)
        pages += OggPage.paginate([[UInt8](repeating: 0xFC, count: 40)], serial: 3, firstSequence: 2, granule: 24000)
        pages += B.setEOS(OggPage.paginate([[UInt8](repeating: 0xFC, count: 40)], serial: 3, firstSequence: 3, granule: 48312))
        return pages.flatMap { $0 }
    }

    @Test func opusDurationSubtractsPreSkipAndTrailingTagDataSurvives() async throws {
        let url = try file(Self.opus(tags: ["TITLE=op"]), "x.opus")
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.codec == "Opus" && item.properties.sampleRate == 48000 && item.properties.channels == 1)
        #expect(item.properties.duration == 1.0)
        #expect(item.metadata.title == "op")
        item.metadata.title = "opus title, longer"
        try await item.save()
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets[1] == Array("OpusTags".utf8) + B.comment(vendor: "libopus", ["TITLE=opus title, longer"]) + [1, 0xAA, 0xBB])
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try await MediaItem.loaded(url).properties.duration == 1.0)
    }

    @Test func fakePageHeadersAtTheEndDoNotSlowTheDurationSearch() async throws {
        var bytes = B.oggVorbis(fields: ["TITLE=x"])
        // 1 MiB of page headers of the Vorbis stream with wrong CRCs and empty bodies.
        let fake = OggPage(offset: 0, headerType: 0, granulePosition: 99_999, serial: 0x1234, sequence: 9, checksum: 1, segments: [])
        let header = fake.headerBytes(checksum: 1)
        for _ in 0..<(1 << 20) / header.count { bytes += header }
        let url = try file(bytes)
        let clock = ContinuousClock()
        let start = clock.now
        let item = try MediaItem.loadedOnThisThread(url)
        #expect(clock.now - start < .seconds(2))
        #expect(item.metadata.title == "x")
        #expect(item.properties.duration == nil)
    }

    /// FLAC-in-Ogg (RFC 9639 §10.1): the mapping header with STREAMINFO, then
    /// one packet per metadata block, then audio.
    static func oggFLAC(blocks: [(UInt8, [UInt8])]) -> [UInt8] {
        let first =
            [0x7F] + Array("FLAC".utf8) + [1, 0, 0, UInt8(blocks.count)] + Array("fLaC".utf8)
            + FLACBlock.header(type: 0, isLast: false, length: 34) + B.streamInfo(sampleRate: 8000, channels: 1, totalSamples: 16000)
        var pages = OggPage.paginate([first], serial: 9, firstSequence: 0, firstFlags: OggPage.beginning)
        for (index, block) in blocks.enumerated() {
            pages += OggPage.paginate(
                [FLACBlock.header(type: block.0, isLast: index == blocks.count - 1, length: block.1.count) + block.1],
                serial: 9, firstSequence: UInt32(index + 1))
        }
        pages += B.setEOS(OggPage.paginate([B.fakeAudio(300)], serial: 9, firstSequence: UInt32(blocks.count + 1), granule: 16000))
        return pages.flatMap { $0 }
    }

    @Test func flacInOggReadsAndWritesBlocks() async throws {
        // Without PICTURE blocks, pictures become comment fields.
        var url = try file(Self.oggFLAC(blocks: [(4, B.comment(vendor: "v", ["TITLE=f"]))]), "a.oga")
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.codec == "FLAC" && item.properties.sampleRate == 8000 && item.properties.duration == 2)
        #expect(item.metadata.title == "f")
        item.metadata.artwork = [Artwork(data: Data(ID3Builder.tinyPNG))]
        item.metadata.title = "g"
        try await item.save()
        var scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets.count == 2 && scan.packets[0][8] == 1)
        item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "g" && item.metadata.artwork.count == 1)
        #expect(item.metadata.items.contains { $0.key == "METADATA_BLOCK_PICTURE" })
        #expect(try B.pageProblems(url).isEmpty)
        // With PICTURE blocks, pictures stay blocks and the header count follows.
        url = try file(Self.oggFLAC(blocks: [(4, B.comment(["TITLE=f"])), (6, B.picture()), (1, [0, 0])]), "b.oga")
        item = try await MediaItem.loaded(url)
        #expect(item.metadata.artwork.count == 1)
        item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .backCover))
        try await item.save()
        scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets.map { $0.count > 0 ? $0[0] & 0x7F : 255 } == [0x7F, 4, 6, 6])
        #expect(scan.packets[0][8] == 3)
        #expect(scan.packets[3][0] & 0x80 != 0) // last-block flag on the last
        #expect(Array(scan.packets[2].dropFirst(4)) == B.picture()) // unchanged picture kept as it was
        #expect(try await MediaItem.loaded(url).metadata.artwork.map(\.pictureType) == [.frontCover, .backCover])
        #expect(try B.pageProblems(url).isEmpty)
    }

    /// Every audio page's bytes other than the sequence number and CRC.
    func audioPayloads(_ url: URL, serial: UInt32 = 0x1234) throws -> [[UInt8]] {
        let source = try FileSource(url: url)
        return try B.pages(url).filter { $0.serial == serial && $0.granulePosition > 0 && $0.granulePosition != OggPage.noGranule }
            .map { page in
                var bytes = try source.getBytes(at: page.offset, count: page.length)
                bytes.replaceSubrange(18..<26, with: [UInt8](repeating: 0, count: 8))
                return bytes
            }
    }

    /// Random byte changes in the header pages (and the first audio page):
    /// every result reads and plans a save, or throws a MediaError.
    @Test func randomCorruptionNeverCrashes() throws {
        let file = B.oggVorbis(fields: ["TITLE=x", "ARTIST=y"], setupSize: 200, audioPages: 2, otherStream: true)
        let outcomes = try B.corruptionOutcomes(
            file, range: 0..<file.count - 150, count: 800, in: directory,
            read: OggParser.parse, plan: { try OggEditPlanner.plan($0, $1, SaveOptions()) })
        #expect(outcomes["non-MediaError"] == nil)
        #expect(outcomes["parsed", default: 0] > 0 && outcomes["planned", default: 0] > 0)
    }

    @Test func sameSizeCommentIsPatchedInPlace() async throws {
        let url = try file(B.oggVorbis(fields: ["TITLE=abc"]))
        let before = try audioPayloads(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "xyz"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: [.vorbis])
        guard case .inPlace(let patches) = try OggEditPlanner.plan(FileSource(url: url), items, SaveOptions()) else {
            Issue.record("expected an in-place plan")
            return
        }
        #expect(patches.count == 1)
        try await item.save()
        #expect(try await MediaItem.loaded(url).metadata.title == "xyz")
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try audioPayloads(url) == before)
    }

    @Test func largerCommentAddsPagesAndRenumbersTheStream() async throws {
        let url = try file(B.oggVorbis(fields: ["TITLE=abc"], setupSize: 3000, otherStream: true))
        let before = try audioPayloads(url)
        let otherBefore = try audioPayloads(url, serial: 0x9999)
        let pagesBefore = try B.pages(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "a long comment ", count: 6000) // 90 KB: two more pages
        item.metadata.artwork = [Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .frontCover, description: "pic")]
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        let pagesAfter = try B.pages(url)
        #expect(pagesAfter.count > pagesBefore.count)
        #expect(try audioPayloads(url) == before)
        #expect(try audioPayloads(url, serial: 0x9999) == otherBefore)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.comments?.count == 90_000)
        #expect(reread.metadata.artwork.first?.description == "pic")
        #expect(reread.metadata.title == "abc")
        #expect(reread.properties.duration == 4096.0 / 44100)
        // The setup packet survives byte for byte.
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets[2] == B.vorbisSetup(3000))
        #expect(scan.packets[0] == B.vorbisID())
        // Shrinking back renumbers the other way.
        var again = reread
        again.metadata.comments = nil
        again.metadata.artwork = []
        try await again.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try B.pages(url).count == pagesBefore.count)
        #expect(try audioPayloads(url) == before)
        #expect(try await MediaItem.loaded(url).metadata.comments == nil)
    }

    @Test func paddingAfterTheCommentAbsorbsASmallChangeInPlace() async throws {
        // As mutagen writes it: zero bytes after the framing bit.
        let serial: UInt32 = 5
        var pages = OggPage.paginate([B.vorbisID()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        let headers = OggPage.paginate(
            [B.vorbisComment(["TITLE=abc"]) + [UInt8](repeating: 0, count: 1024), B.vorbisSetup(300)],
            serial: serial, firstSequence: 1)
        pages += headers
        pages += B.setEOS(OggPage.paginate([[1, 2, 3]], serial: serial, firstSequence: UInt32(1 + headers.count), granule: 1000))
        let url = try file(pages.flatMap { $0 })
        let size = try Data(contentsOf: url).count
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "a longer title than before"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: [.vorbis])
        guard case .inPlace = try OggEditPlanner.plan(FileSource(url: url), items, SaveOptions()) else {
            Issue.record("expected an in-place plan")
            return
        }
        try await item.save()
        #expect(try Data(contentsOf: url).count == size)
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try await MediaItem.loaded(url).metadata.title == "a longer title than before")
    }

    @Test func smallPagesOfOtherMuxersKeepTheirCountOnASmallChange() async throws {
        // Header pages of 16 lacing values (~4 KB like libogg), a 20 KB comment.
        let serial: UInt32 = 77
        var pages = OggPage.paginate([B.vorbisID()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        let headers = OggPage.paginate(
            [B.vorbisComment(["TITLE=abc", "COMMENT=" + String(repeating: "x", count: 20_000)]), B.vorbisSetup(3000)],
            serial: serial, firstSequence: 1, capacities: [UInt8](repeating: 16, count: 200).map(Int.init))
        pages += headers
        pages += B.setEOS(OggPage.paginate([[1, 2, 3]], serial: serial, firstSequence: UInt32(1 + headers.count), granule: 1000))
        let bytes = pages.flatMap { $0 }
        let url = try file(bytes)
        let audioPage = try #require(pages.last)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "abcdefgh"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: [.vorbis])
        guard case .rewrite(let segments) = try OggEditPlanner.plan(FileSource(url: url), items, SaveOptions()) else {
            Issue.record("expected a rewrite")
            return
        }
        // The audio page is copied from the original, not renumbered.
        #expect(segments.last == .original(offset: Int64(bytes.count - audioPage.count), length: Int64(audioPage.count)))
        try await item.save()
        #expect(try B.pages(url).count == pages.count)
        #expect(Array([UInt8](try Data(contentsOf: url)).suffix(audioPage.count)) == audioPage)
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try await MediaItem.loaded(url).metadata.title == "abcdefgh")
    }

    @Test func aChainedLinkReusingTheSerialIsLeftAlone() async throws {
        let second = B.oggVorbis(fields: ["TITLE=second link"])
        let url = try file(B.oggVorbis(fields: ["TITLE=first"]) + second)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "first")
        item.metadata.comments = String(repeating: "more pages ", count: 9000)
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes.suffix(second.count)) == second)
        #expect(try await MediaItem.loaded(url).metadata.comments?.count == 99_000)
    }

    @Test func headersNotEndingTheirPageAreRefusedOnWrite() async throws {
        // The setup packet shares its page with an audio packet.
        let serial: UInt32 = 5
        var pages = OggPage.paginate([B.vorbisID()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=a"]), B.vorbisSetup(100), [1, 2, 3]], serial: serial, firstSequence: 1)
        let url = try file(pages.flatMap { $0 })
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "a")
        #expect(!item.isEditable)
        item.metadata.title = "b"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try await MediaItem.loaded(url).metadata.title == "a")
    }
}
