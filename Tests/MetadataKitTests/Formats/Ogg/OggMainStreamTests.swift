import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder
private typealias T = OggTheoraTests

/// Which logical stream of a multiplexed Ogg file gives the tags
/// (``OggHeaderScan``): a Theora stream whose identification header starts
/// in the file's first 128 bytes, as `mutagen.File` chooses `OggTheora`;
/// else the first audio stream. Hand-built files on both sides of the
/// 128-byte line, checked against mutagen's choice of class; the CLI's
/// answer to a `--set` of the read-only `ogg-stream` key space.
@Suite struct OggMainStreamTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    static let video: UInt32 = 0x7E0, audio: UInt32 = 0xA0D, second: UInt32 = 0xB0B, skeleton: UInt32 = 0x5E

    /// An Ogg Skeleton `fishead` packet of version `major`.0: 64 bytes for 3.0, 80 for 4.0.
    static func fishead(major: UInt8) -> [UInt8] {
        let head = Array("fishead\0".utf8) + [major, 0, 0, 0]
        return head + [UInt8](repeating: 0, count: (major >= 4 ? 80 : 64) - head.count)
    }

    /// The first pages in `order` ("skeleton3", "skeleton4", "vorbis", "vorbis2", "theora"), then each
    /// stream's header pages and two data pages (Theora: 50 frames at 25 fps, 2 s; Vorbis: 3 s).
    static func file(_ order: [String]) -> [UInt8] {
        var pages: [[UInt8]] = []
        for name in order {
            switch name {
            case "skeleton3", "skeleton4":
                pages += OggPage.paginate(
                    [fishead(major: name == "skeleton4" ? 4 : 3)], serial: skeleton, firstSequence: 0, firstFlags: OggPage.beginning)
            case "vorbis": pages += OggPage.paginate([B.vorbisID()], serial: audio, firstSequence: 0, firstFlags: OggPage.beginning)
            case "vorbis2":
                pages += OggPage.paginate(
                    [B.vorbisID(channels: 1, rate: 22050, nominal: 64000)], serial: second, firstSequence: 0, firstFlags: OggPage.beginning)
            default: pages += OggPage.paginate([T.identification()], serial: video, firstSequence: 0, firstFlags: OggPage.beginning)
            }
        }
        for name in order {
            switch name {
            case "skeleton3", "skeleton4": pages += B.setEOS(OggPage.paginate([[]], serial: skeleton, firstSequence: 1))
            case "vorbis":
                pages += OggPage.paginate([B.vorbisComment(["TITLE=Audio"]), B.vorbisSetup()], serial: audio, firstSequence: 1)
            case "vorbis2":
                pages += OggPage.paginate([B.vorbisComment(["TITLE=Second"]), B.vorbisSetup(300)], serial: second, firstSequence: 1)
            default: pages += OggPage.paginate([T.comment(["TITLE=Video"]), T.setup()], serial: video, firstSequence: 1)
            }
        }
        let granules: [UInt64] = [24 << 6, 48 << 6 | 2]
        for (index, granule) in granules.enumerated() {
            if order.contains("theora") {
                var page = OggPage.paginate([B.fakeAudio(120)], serial: video, firstSequence: UInt32(2 + index), granule: granule)
                if index == 1 { page = B.setEOS(page) }
                pages += page
            }
            if order.contains("vorbis") {
                pages += OggPage.paginate(
                    [B.fakeAudio(80)], serial: audio, firstSequence: UInt32(2 + index), granule: UInt64(66150 * (index + 1)))
            }
            if order.contains("vorbis2") {
                pages += OggPage.paginate(
                    [B.fakeAudio(60)], serial: second, firstSequence: UInt32(2 + index), granule: UInt64(22050 * (index + 1)))
            }
        }
        return pages.flatMap { $0 }
    }

    /// Each order, the main stream's codec, title and duration and the other comment's key.
    static let cases: [(order: [String], codec: String, title: String, duration: Double, other: String)] = [
        (["theora", "vorbis"], "Theora", "Video", 2, "Vorbis/TITLE"),
        // The Vorbis first page is 58 bytes: the Theora header starts at byte 86.
        (["vorbis", "theora"], "Theora", "Video", 2, "Vorbis/TITLE"),
        // A Skeleton 3.0 first page is 92 bytes: "\x80theora" is bytes 120-126.
        (["skeleton3", "theora", "vorbis"], "Theora", "Video", 2, "Vorbis/TITLE"),
        // Past 128 bytes: the first audio stream gives the tags.
        (["skeleton4", "theora", "vorbis"], "Vorbis", "Audio", 3, "Theora/TITLE"),
        (["vorbis", "vorbis2", "theora"], "Vorbis", "Audio", 3, "Theora/TITLE"),
    ]

    @Test func theMainStreamIsTheTheoraStreamInTheFirst128Bytes() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        for (order, codec, title, duration, other) in Self.cases {
            let name = order.joined(separator: "-")
            let url = try B.write(Self.file(order), name + ".ogv", in: directory)
            #expect(try B.pageProblems(url).isEmpty, "\(name)")
            var item = try await MediaItem.loaded(url)
            #expect(item.warnings.isEmpty && item.isEditable, "\(name): \(item.warnings)")
            #expect(item.properties.codec == codec && item.metadata.title == title && item.properties.duration == duration, "\(name)")
            #expect(item.properties.width == 320, "\(name)")
            #expect(item.metadata.items.contains { $0.keySpace == .oggStream && $0.key == other }, "\(name)")
            #expect(item.properties.streams.count == order.count, "\(name)")
            // A save writes the main stream's comment: every other stream's pages stay the same bytes.
            let others = try B.pages(url).filter { $0.serial != (codec == "Theora" ? Self.video : Self.audio) }
            let bytes = [UInt8](try Data(contentsOf: url))
            let otherBytes = others.map { Array(bytes[Int($0.offset)..<Int($0.end)]) }
            item.metadata.title = String(repeating: "Saved ", count: 300)
            try await item.save()
            #expect(try B.pageProblems(url).isEmpty, "\(name)")
            let after = [UInt8](try Data(contentsOf: url))
            let afterOthers = try B.pages(url).filter { $0.serial != (codec == "Theora" ? Self.video : Self.audio) }
            #expect(afterOthers.map { Array(after[Int($0.offset)..<Int($0.end)]) } == otherBytes, "\(name)")
            let reread = try await MediaItem.loaded(url)
            #expect(reread.metadata.title == String(repeating: "Saved ", count: 300) && reread.properties.codec == codec, "\(name)")
            #expect(reread.metadata.items.filter { $0.keySpace == .oggStream } == item.metadata.items.filter { $0.keySpace == .oggStream })
        }
    }

    /// A leading Theora stream whose comment page is damaged (a wrong CRC)
    /// stays the main stream, read only: its tags read anyway (as mutagen
    /// reads them), a warning at the page, the audio comment still an
    /// `ogg-stream` item, and a save is refused before writing. One with no page after its first gives way to the audio
    /// stream (mutagen refuses that file), which is then written.
    @Test func aDamagedLeadingTheoraStreamStaysTheMainStream() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        var bytes = Self.file(["vorbis", "theora"])
        let clean = try B.write(bytes, "clean.ogv", in: directory)
        let page = try #require(try B.pages(clean).first { $0.serial == Self.video && $0.sequence == 1 })
        bytes[Int(page.bodyOffset) + 20] ^= 0x5A
        let url = try B.write(bytes, "damaged.ogv", in: directory)
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.codec == "Theora" && item.metadata.title == "Video" && !item.isEditable)
        #expect(item.warnings.contains { $0.offset == page.offset }, "\(item.warnings)")
        #expect(item.metadata.items.first { $0.key == "Vorbis/TITLE" }?.value == .string("Audio"))
        item.metadata.title = "refused"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == Data(bytes))

        // The Theora stream's first page only: the audio stream gives the tags and takes the save.
        var pages = OggPage.paginate([B.vorbisID()], serial: Self.audio, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([T.identification()], serial: Self.video, firstSequence: 0, firstFlags: OggPage.beginning)
        pages += OggPage.paginate([B.vorbisComment(["TITLE=Audio"]), B.vorbisSetup()], serial: Self.audio, firstSequence: 1)
        pages += OggPage.paginate([B.fakeAudio(100)], serial: Self.audio, firstSequence: 2, granule: 44100)
        let alone = try B.write(pages.flatMap { $0 }, "alone.ogv", in: directory)
        var audio = try await MediaItem.loaded(alone)
        #expect(audio.properties.codec == "Vorbis" && audio.metadata.title == "Audio" && audio.isEditable && audio.properties.duration == 1)
        #expect(audio.warnings.contains { $0.code == .truncated && $0.message.contains("Theora") }, "\(audio.warnings)")
        audio.metadata.title = "Saved"
        try await audio.save()
        #expect(try await MediaItem.loaded(alone).metadata.title == "Saved")
    }

    /// mutagen.File picks the same stream: its class and its tags' title, for
    /// every order but Skeleton 4.0 + Theora + Vorbis, where no Ogg class
    /// finds its marker in the first 128 bytes and mutagen.File gives None.
    @Test(.enabled(if: ToolCheck.has("python3:mutagen"), "needs python3 mutagen"))
    func mutagenChoosesTheSameStream() async throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let script = """
            import sys, json, mutagen
            f = mutagen.File(sys.argv[1])
            if f is None:
                print(json.dumps({}))
            else:
                print(json.dumps({"class": type(f).__name__, "title": f.tags.get("title"), "length": f.info.length}))
            """
        for (order, codec, title, duration, _) in Self.cases {
            let name = order.joined(separator: "-")
            let url = try B.write(Self.file(order), name + ".ogv", in: directory)
            let output = try TestSupport.runChecked("python3", ["-c", script, url.path])
            let info = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
            if order.first == "skeleton4" {
                #expect(info.isEmpty, "\(name): \(info)")
                continue
            }
            #expect(info["class"] as? String == "Ogg" + codec, "\(name): \(info)")
            #expect(info["title"] as? [String] == [title], "\(name): \(info)")
            #expect(abs((info["length"] as? Double ?? -1) - duration) < 0.001, "\(name): \(info)")
        }
    }

    /// `mdkit write --set ogg-stream:…` is a usage error that says the key
    /// space is read only, and the file is not touched.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests"))
    func theCLIRefusesTheReadOnlyKeySpace() throws {
        defer { try? FileManager.default.removeItem(at: directory) } // made by init for this test only
        let executable = try #require(TestSupport.mdkitExecutable, "mdkit must be built beside the tests")
        let url = try B.write(Self.file(["theora", "vorbis"]), "cli.ogv", in: directory)
        let before = try Data(contentsOf: url)
        for argument in ["--set", "--remove"] {
            let key = "ogg-stream:Vorbis/TITLE" + (argument == "--set" ? "=x" : "")
            let refused = try TestSupport.run(executable.path, ["write", url.path, argument, key])
            #expect(refused.status == 2, "\(argument): \(refused.standardError)")
            #expect(refused.standardError.contains("key space 'ogg-stream' is read only"), "\(refused.standardError)")
            #expect(!refused.standardError.contains("unknown key space"), "\(refused.standardError)")
            #expect(try Data(contentsOf: url) == before)
        }
        // The items are there to be read.
        let read = try TestSupport.runChecked(executable.path, ["read", "--jsonl", "--items", url.path]).text
        #expect(read.contains("Vorbis/TITLE") && read.contains("\"Video\""), "\(read)")
    }
}
