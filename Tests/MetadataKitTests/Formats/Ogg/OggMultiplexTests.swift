import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder
private typealias T = OggTheoraTests

/// Multiplexed Ogg files built by hand (Theora + Vorbis, Skeleton + two
/// Vorbis streams): every logical stream listed, the leading Theora stream's
/// comment the tags, the other streams' comments
/// read into `ogg-stream`, saves that rewrite only the main stream's comment
/// (the other stream's pages byte for byte) and refuse changes to the other
/// comments before writing; every prefix and hostile files read around.
@Suite struct OggMultiplexTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    static let video: UInt32 = 0x7E0, audio: UInt32 = 0xA0D

    /// Theora + Vorbis: both first pages, the video's header pages, the
    /// audio's, then `dataPages` data pages of each, interleaved.
    static func muxed(
        videoHeaders: [[UInt8]], audioFields: [String] = ["TITLE=Audio"], audioComment: [UInt8]? = nil, dataPages: Int = 3
    ) -> [UInt8] {
        var pages = OggPage.paginate([videoHeaders[0]], serial: video, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisID()], serial: audio, firstSequence: 0, firstFlags: OggPage.beginning)
        let videoPages = OggPage.paginate(Array(videoHeaders.dropFirst()), serial: video, firstSequence: 1)
        pages += videoPages
        let audioPages = OggPage.paginate([audioComment ?? B.vorbisComment(audioFields), B.vorbisSetup()], serial: audio, firstSequence: 1)
        pages += audioPages
        for index in 0..<dataPages {
            pages += OggPage.paginate(
                [[UInt8](repeating: UInt8(0x10 + index), count: 150)], serial: video, firstSequence: UInt32(1 + videoPages.count + index),
                granule: UInt64(12 * (index + 1)) << 6)
            pages += OggPage.paginate(
                [[UInt8](repeating: UInt8(0x60 + index), count: 90)], serial: audio, firstSequence: UInt32(1 + audioPages.count + index),
                granule: UInt64(22050 * (index + 1)))
        }
        return pages.flatMap { $0 }
    }

    static func theora(_ fields: [String]) -> [[UInt8]] { [T.identification(), T.comment(fields), T.setup()] }

    /// The bytes of every page of `serial`, in order.
    static func pageBytes(of serial: UInt32, in url: URL) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: url))
        return try B.pages(url).filter { $0.serial == serial }.map { Array(bytes[Int($0.offset)..<Int($0.end)]) }
    }

    func write(_ bytes: [UInt8], _ name: String = "m.ogv") throws -> URL { try B.write(bytes, name, in: directory) }

    @Test func everyStreamIsListedAndTheOtherCommentRead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try write(Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo"]), audioFields: ["TITLE=Audio", "CUSTOM=v1", "CUSTOM=v2"]))
        let item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable, "\(item.warnings)")
        // The Theora stream leads the file: its comment is the tags (as mutagen.File's OggTheora).
        #expect(item.metadata.title == "Vidéo" && item.properties.codec == "Theora" && item.properties.width == 320)
        #expect(item.properties.sampleRate == nil && item.properties.bitrate == 200_000)
        let streams = item.properties.streams
        #expect(streams.map(\.mediaType) == [.video, .audio] && streams.map(\.uid) == [UInt64(Self.video), UInt64(Self.audio)])
        #expect(streams[0].codecName == "Theora" && streams[0].width == 320 && streams[0].height == 240 && streams[0].bitrate == 200_000)
        #expect(
            streams[1].codecName == "Vorbis" && streams[1].sampleRate == 44100 && streams[1].channels == 2 && streams[1].bitrate == 128_000)
        let other = item.metadata.items.filter { $0.keySpace == .oggStream }
        #expect(other.first { $0.key == "Vorbis/TITLE" }?.value == .string("Audio"))
        #expect(other.first { $0.key == "Vorbis/CUSTOM" }?.value == .strings(["v1", "v2"]))
        #expect(other.count == 2 && !item.metadata.items.contains { $0.keySpace == .vorbis && $0.value == .string("Audio") })
    }

    /// The comment that grows renumbers the video stream's later pages; every
    /// page of the audio stream is the same bytes, and its comment reads back.
    @Test func savingTheMainCommentKeepsTheOtherStreamByteForByte() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try write(Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo"])))
        let audioPages = try Self.pageBytes(of: Self.audio, in: url)
        let videoData = try B.pages(url).filter { $0.serial == Self.video && $0.granulePosition > 0 }.count
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "Grown títle ", count: 3000)
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try Self.pageBytes(of: Self.audio, in: url) == audioPages)
        let after = try await MediaItem.loaded(url)
        #expect(after.metadata.title == String(repeating: "Grown títle ", count: 3000) && after.warnings.isEmpty)
        #expect(after.properties.codec == "Theora")
        #expect(after.metadata.items.filter { $0.keySpace == .oggStream } == item.metadata.items.filter { $0.keySpace == .oggStream })
        #expect(
            try B.pages(url).filter { $0.serial == Self.video && $0.granulePosition > 0 && $0.granulePosition != OggPage.noGranule }.count
                == videoData)
    }

    /// Changing, removing or adding another stream's comment item is refused
    /// before anything is written.
    @Test func otherCommentChangesAreRefusedBeforeWriting() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let url = try write(Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo"]), audioFields: ["TITLE=Audio", "KEEP=k"]))
        let before = try Data(contentsOf: url)
        let loaded = try await MediaItem.loaded(url)
        let edits: [(String, (inout [MetadataItem]) -> Void)] = [
            (
                "change",
                { items in
                    if let index = items.firstIndex(where: { $0.key == "Vorbis/TITLE" }) { items[index].value = .string("other") }
                }
            ),
            ("remove", { items in items.removeAll { $0.key == "Vorbis/KEEP" } }),
            ("add", { items in items.append(MetadataItem(keySpace: .oggStream, key: "Vorbis/NEW", value: .string("n"), dataType: .utf8)) }),
        ]
        for (name, edit) in edits {
            var item = loaded
            item.metadata.title = "Changed too"
            edit(&item.metadata.items)
            await #expect(throws: MediaError.self, "\(name)") { try await item.save() }
            #expect(try Data(contentsOf: url) == before, "\(name)")
        }
    }

    /// A Skeleton stream and two Vorbis streams: the first Vorbis stream
    /// gives the tags, the second's comment is `Vorbis#2/…`.
    @Test func skeletonAndTwoAudioStreams() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let skeleton: UInt32 = 0x5E, second: UInt32 = 0xB0B
        var fishead = Array("fishead\0".utf8) + [0, 3, 0, 0]
        fishead += [UInt8](repeating: 0, count: 64 - fishead.count)
        var pages = OggPage.paginate([fishead], serial: skeleton, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisID()], serial: Self.audio, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate(
            [B.vorbisID(channels: 1, rate: 22050, nominal: 64000)], serial: second, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=First"]), B.vorbisSetup()], serial: Self.audio, firstSequence: 1)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=Second"]), B.vorbisSetup(300)], serial: second, firstSequence: 1)
        pages += B.setEOS(OggPage.paginate([[]], serial: skeleton, firstSequence: 1))
        pages += OggPage.paginate([B.fakeAudio(200)], serial: Self.audio, firstSequence: 2, granule: 88200)
        pages += OggPage.paginate([B.fakeAudio(100)], serial: second, firstSequence: 2, granule: 22050)
        let url = try write(pages.flatMap { $0 }, "s.ogg")
        #expect(try B.pageProblems(url).isEmpty)
        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable, "\(item.warnings)")
        #expect(item.metadata.title == "First" && item.properties.sampleRate == 44100 && item.properties.duration == 2)
        let streams = item.properties.streams
        #expect(streams.map(\.mediaType) == [.metadata, .audio, .audio] && streams.map(\.codecName) == ["Skeleton", "Vorbis", "Vorbis"])
        #expect(streams[2].sampleRate == 22050 && streams[2].channels == 1)
        #expect(item.metadata.items.filter { $0.keySpace == .oggStream }.map(\.key) == ["Vorbis#2/TITLE"])
        #expect(item.metadata.items.first { $0.key == "Vorbis#2/TITLE" }?.value == .string("Second"))
        let secondPages = try Self.pageBytes(of: second, in: url)
        item.metadata.artist = "Someone"
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try Self.pageBytes(of: second, in: url) == secondPages)
        #expect(try await MediaItem.loaded(url).metadata.artist == "Someone")
    }

    /// Every prefix of a multiplexed file reads (with warnings that name an
    /// offset inside the file) or fails with a MediaError; plans of those that
    /// read are made or refused with a MediaError.
    @Test func everyPrefixReadsOrFailsCleanly() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let full = Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo", "ARTIST=V"]), dataPages: 2)
        let url = directory.appendingPathComponent("cut.ogv")
        var read = 0
        for length in 0...full.count {
            try Data(full.prefix(length)).write(to: url)
            do {
                let source = try FileSource(url: url)
                let parsed = try OggParser.parse(source, url)
                read += 1
                for warning in parsed.warnings {
                    let offset = try #require(warning.offset, "prefix \(length): \(warning)")
                    #expect(offset >= 0 && offset <= Int64(length), "prefix \(length): \(warning)")
                }
                if length % 5 == 0 {
                    var items = parsed.items
                    items.append(MetadataItem(keySpace: .vorbis, key: "TITLE", value: .string("x"), dataType: .utf8))
                    do { _ = try OggEditPlanner.plan(source, items, SaveOptions()) } catch is MediaError {}
                }
            } catch is MediaError {
                #expect(length < full.count / 2, "prefix \(length) of \(full.count) was refused")
            }
        }
        #expect(read > full.count / 2)
    }

    /// A damaged video page between the interleaved data pages: read around
    /// with a warning at its offset, and a save keeps its bytes.
    @Test func damagedPageBetweenInterleavedPages() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        var bytes = Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo"]))
        let url = try write(bytes, "clean.ogv")
        let page = try #require(
            try B.pages(url).first { $0.serial == Self.video && $0.granulePosition != 0 && $0.granulePosition != OggPage.noGranule })
        bytes[Int(page.bodyOffset) + 10] ^= 0xFF
        let damaged = try write(bytes, "damaged.ogv")
        var item = try await MediaItem.loaded(damaged)
        #expect(item.metadata.title == "Vidéo" && item.properties.streams.count == 2)
        #expect(item.metadata.items.first { $0.key == "Vorbis/TITLE" }?.value == .string("Audio"))
        item.metadata.title = String(repeating: "longer ", count: 200)
        try await item.save()
        let after = [UInt8](try Data(contentsOf: damaged))
        let pageBytes = Array(bytes[Int(page.offset)..<Int(page.end)])
        #expect(after.indices.contains { after[$0...].starts(with: pageBytes) })
        // Damage inside the other stream's header pages is reported with its offset.
        var header = Self.muxed(videoHeaders: Self.theora(["TITLE=Vidéo"]))
        let audioHeaderPage = try #require(try B.pages(url).first { $0.serial == Self.audio && $0.sequence == 1 })
        header[Int(audioHeaderPage.bodyOffset) + 3] ^= 0x55
        let broken = try await MediaItem.loaded(try write(header, "header.ogv"))
        #expect(broken.metadata.title == "Vidéo")
        #expect(broken.warnings.contains { $0.offset == audioHeaderPage.offset }, "\(broken.warnings)")
    }

    /// Hostile second streams: a 300 KB comment over many pages, a comment
    /// that claims a huge field, headers that never end; a page of a stream
    /// that starts mid-file. The main stream reads; the rest is warned about.
    @Test func hostileSecondStreams() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let big = String(repeating: "b", count: 300_000)
        let large = try await MediaItem.loaded(
            try write(Self.muxed(videoHeaders: Self.theora(["TITLE=V"]), audioFields: ["TITLE=A", "BIG=" + big]), "large.ogv"))
        #expect(large.warnings.isEmpty && large.metadata.items.first { $0.key == "Vorbis/BIG" }?.value == .string(big))

        var claim = B.vorbisComment(["TITLE=A"])
        let lengthAt = 7 + 4 + "test vendor".utf8.count + 4
        claim.replaceSubrange(lengthAt..<lengthAt + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
        let claims = try await MediaItem.loaded(
            try write(Self.muxed(videoHeaders: Self.theora(["TITLE=V"]), audioComment: claim), "claim.ogv"))
        #expect(claims.metadata.title == "V" && claims.warnings.contains { $0.message.contains("Vorbis") && $0.offset != nil })

        // The Theora stream has its first page only: its headers end early, and
        // the audio stream, whose headers are whole, gives the tags.
        var pages = OggPage.paginate([T.identification()], serial: Self.video, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisID()], serial: Self.audio, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=Alone"]), B.vorbisSetup()], serial: Self.audio, firstSequence: 1)
        pages += OggPage.paginate([B.fakeAudio(100)], serial: Self.audio, firstSequence: 3, granule: 44100)
        // A page of a stream that never had a first page, then a new first page mid-file.
        pages += OggPage.paginate([B.fakeAudio(50)], serial: 0xDEAD, firstSequence: 7, granule: 5)
        pages += OggPage.paginate([B.vorbisID()], serial: 0xF00D, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.fakeAudio(100)], serial: Self.audio, firstSequence: 4, granule: 88200)
        let url = try write(pages.flatMap { $0 }, "alone.ogv")
        var alone = try await MediaItem.loaded(url)
        #expect(alone.metadata.title == "Alone" && alone.properties.duration == 2 && alone.isEditable)
        #expect(alone.properties.streams.map(\.codecName) == ["Theora", "Vorbis"] && alone.properties.streams[0].width == 320)
        #expect(alone.warnings.contains { $0.code == .truncated && $0.message.contains("Theora") && $0.offset != nil }, "\(alone.warnings)")
        alone.metadata.title = "Saved"
        try await alone.save()
        #expect(try await MediaItem.loaded(url).metadata.title == "Saved")
        #expect(try B.pages(url).contains { $0.serial == 0xDEAD } && (try B.pages(url)).contains { $0.serial == 0xF00D })
    }

    /// The main stream's last page more than a MiB before the end of the
    /// file (a chained file's first link before a long one; a video stream
    /// that ends long before the audio): its duration still comes from it.
    @Test func lastPageFarFromTheEnd() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        func vorbisLink(serial: UInt32, title: String, granules: [UInt64], payload: Int) -> [[UInt8]] {
            var pages = OggPage.paginate([B.vorbisID()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
            pages += OggPage.paginate([B.vorbisComment(["TITLE=" + title]), B.vorbisSetup()], serial: serial, firstSequence: 1)
            for (index, granule) in granules.enumerated() {
                var page = OggPage.paginate([B.fakeAudio(payload)], serial: serial, firstSequence: UInt32(2 + index), granule: granule)
                if index == granules.count - 1 { page = B.setEOS(page) }
                pages += page
            }
            return pages
        }
        let first = vorbisLink(serial: 1, title: "First", granules: [44100, 132_300], payload: 500)
        let long = vorbisLink(serial: 2, title: "Long", granules: (1...300).map { UInt64($0) * 4410 }, payload: 4000)
        let chained = try await MediaItem.loaded(try write((first + long).flatMap { $0 }, "chained.ogg"))
        #expect(chained.warnings.isEmpty && chained.metadata.title == "First" && chained.properties.duration == 3)

        var pages = OggPage.paginate([T.identification()], serial: Self.video, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisID()], serial: Self.audio, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([T.comment(["TITLE=V"]), T.setup()], serial: Self.video, firstSequence: 1)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=A"]), B.vorbisSetup()], serial: Self.audio, firstSequence: 1)
        pages += B.setEOS(OggPage.paginate([B.fakeAudio(300)], serial: Self.video, firstSequence: 2, granule: 36 << 6))
        for index in 0..<300 {
            pages += OggPage.paginate(
                [B.fakeAudio(4000)], serial: Self.audio, firstSequence: UInt32(2 + index), granule: UInt64(index + 1) * 441)
        }
        let tail = try await MediaItem.loaded(try write(pages.flatMap { $0 }, "tail.ogv"))
        #expect(tail.warnings.isEmpty && tail.metadata.title == "V" && tail.properties.duration == 1.44, "\(tail.warnings)")
    }

    /// Ten Theora streams whose headers never go past their first page, then
    /// 8 MB of audio pages: only the first few are looked for, over a bounded
    /// number of pages; all ten are listed and the read stays quick.
    @Test func manyUnfinishedStreamsAreReadBounded() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        var pages: [[UInt8]] = []
        for serial in UInt32(100)..<110 {
            pages += OggPage.paginate([T.identification()], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        }
        pages += OggPage.paginate([B.vorbisID()], serial: Self.audio, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=Many"]), B.vorbisSetup()], serial: Self.audio, firstSequence: 1)
        for index in 0..<2000 {
            pages += OggPage.paginate(
                [B.fakeAudio(4000)], serial: Self.audio, firstSequence: UInt32(2 + index), granule: UInt64(index + 1) * 441)
        }
        let url = try write(pages.flatMap { $0 }, "many.ogv")
        let clock = ContinuousClock()
        let start = clock.now
        let item = try MediaItem.loadedOnThisThread(url)
        #expect(clock.now - start < .seconds(10))
        #expect(item.metadata.title == "Many" && item.properties.duration == 20 && item.properties.streams.count == 11)
        let truncated = item.warnings.filter { $0.code == .truncated && $0.message.contains("Theora") }
        #expect(truncated.count == OggLogicalStreams.maximumReadStreams && truncated.allSatisfy { $0.offset != nil }, "\(item.warnings)")
    }
}
