import Foundation
import Testing

@testable import MetadataKit

private typealias B = FLACOggBuilder

/// Ogg Theora: hand-built streams (identification, comment and setup
/// headers, data pages with granule positions) read and written; every
/// prefix and damaged headers read around; with ffmpeg's libtheora, real
/// files checked with ffprobe and mutagen's `OggTheora`.
@Suite struct OggTheoraTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A Theora identification header (Theora I §6.2): 320×240 picture in a
    /// 20×15 macroblock frame, `fps`/1 frames per second, KFGSHIFT `shift`.
    static func identification(fps: UInt32 = 25, shift: UInt8 = 6, bitrate: UInt32 = 200_000, major: UInt8 = 3) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(TheoraIdentification.magic)
        writer.write([major, 2, 1])
        writer.write(UInt16(20))
        writer.write(UInt16(15))
        writer.write([0, 1, 64, 0, 0, 240, 0, 0]) // PICW 320, PICH 240, PICX 0, PICY 0
        writer.write(fps)
        writer.write(UInt32(1))
        writer.write([0, 0, 1, 0, 0, 1, 0]) // PARN 1, PARD 1, CS 0
        writer.write([UInt8(bitrate >> 16 & 0xFF), UInt8(bitrate >> 8 & 0xFF), UInt8(bitrate & 0xFF)])
        let bits = UInt16(32) << 10 | UInt16(shift) << 5 // QUAL 32, KFGSHIFT, PF 0
        writer.write(bits)
        return writer.bytes
    }

    static func comment(_ fields: [String]) -> [UInt8] { [0x81] + Array("theora".utf8) + B.comment(vendor: "Xiph.Org libtheora", fields) }

    static func setup(_ count: Int = 300) -> [UInt8] {
        [0x82] + Array("theora".utf8) + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) }
    }

    /// A Theora stream whose last granule says keyframe 48, 2 frames after
    /// it (50 frames, 2 s at 25 fps); optionally a Vorbis stream beside it.
    static func file(fields: [String], fps: UInt32 = 25, withAudio: Bool = false, audioFields: [String] = []) -> [UInt8] {
        let video: UInt32 = 0x7E0, audio: UInt32 = 0xA0D
        var pages = OggPage.paginate([identification(fps: fps)], serial: video, firstSequence: 0, firstFlags: OggPage.beginning)
        if withAudio {
            pages += OggPage.paginate([B.vorbisID()], serial: audio, firstSequence: 0, firstFlags: OggPage.beginning)
        }
        pages += OggPage.paginate([comment(fields), setup()], serial: video, firstSequence: 1)
        if withAudio {
            pages += OggPage.paginate([B.vorbisComment(audioFields), B.vorbisSetup()], serial: audio, firstSequence: 1)
        }
        let granules: [UInt64] = [24 << 6 | 0, 48 << 6 | 2]
        for (index, granule) in granules.enumerated() {
            var page = OggPage.paginate(
                [[UInt8](repeating: UInt8(index + 1), count: 120)], serial: video, firstSequence: UInt32(2 + index), granule: granule)
            if index == granules.count - 1 { page = B.setEOS(page) }
            pages += page
            if withAudio {
                pages += OggPage.paginate(
                    [[UInt8](repeating: 0x55, count: 80)], serial: audio, firstSequence: UInt32(2 + index),
                    granule: UInt64(44100 * (index + 1)))
            }
        }
        return pages.flatMap { $0 }
    }

    func write(_ bytes: [UInt8], _ name: String = "v.ogv") throws -> URL {
        try B.write(bytes, name, in: directory)
    }

    @Test func theoraHeadersGiveThePropertiesAndTheComment() async throws {
        let url = try write(Self.file(fields: ["TITLE=Vidéo", "ARTIST=Someone", "CUSTOM=keep"]))
        let item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable)
        let p = item.properties
        #expect(p.codec == "Theora" && p.width == 320 && p.height == 240 && p.bitrate == 200_000)
        #expect(p.duration == 2.0 && p.sampleRate == nil && p.streams.isEmpty)
        #expect(item.metadata.title == "Vidéo" && item.metadata.artist == "Someone")
    }

    /// KFGSHIFT is read from the header: the same granule, another shift, another duration.
    @Test(arguments: [UInt8(0), 3, 6, 31])
    func granulesSplitAtTheHeadersShift(shift: UInt8) throws {
        let header = try TheoraIdentification(parsing: Self.identification(fps: 10, shift: shift))
        #expect(header.keyframeShift == Int(shift))
        let granule: UInt64 = 0b1011_0110_1101
        let keyframe = granule >> UInt64(shift), delta = granule & (1 << UInt64(shift) - 1)
        #expect(header.duration(granule: granule) == Double(keyframe + delta) / 10)
    }

    @Test func commentSavesKeepEveryOtherPacketAndPage() async throws {
        let original = Self.file(fields: ["TITLE=Old", "CUSTOM=keep"])
        let url = try write(original)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = String(repeating: "Néw tïtle ", count: 50)
        item.metadata.album = "Älbum"
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.codec == .theora && scan.packets[0] == Self.identification() && scan.packets[2] == Self.setup())
        #expect(scan.packets[1].starts(with: [0x81] + Array("theora".utf8)))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == String(repeating: "Néw tïtle ", count: 50) && reread.metadata.album == "Älbum")
        #expect(reread.metadata.items.contains { $0.key == "CUSTOM" && $0.value == .string("keep") })
        #expect(reread.properties == (try await MediaItem.loaded(try write(original, "o.ogv"))).properties)
        // The data pages are the same bytes, after the header pages.
        let pages = try B.pages(url)
        let bytes = [UInt8](try Data(contentsOf: url))
        let data = pages.filter { $0.granulePosition != 0 && $0.granulePosition != OggPage.noGranule }
        #expect(data.count == 2 && data.allSatisfy { bytes[Int($0.bodyOffset)..<Int($0.end)].allSatisfy { $0 == 1 || $0 == 2 } })
    }

    /// A comment that would grow past 65,535 bytes (what ffmpeg decodes) is
    /// refused before anything is written; one that was over already may be
    /// saved again.
    @Test func aCommentPastSixtyFourKiBIsRefusedUnlessItWasAlready() async throws {
        let original = Self.file(fields: ["TITLE=Small"])
        let url = try write(original)
        var item = try await MediaItem.loaded(url)
        item.metadata.comments = String(repeating: "x", count: OggEditPlanner.theoraHeaderLimit)
        let error = await #expect(throws: MediaError.self) { try await item.save() }
        #expect(error?.code == .sizeOutOfRange)
        #expect([UInt8](try Data(contentsOf: url)) == original)
        // Just under the limit: written.
        item = try await MediaItem.loaded(url)
        let header = Self.comment(["TITLE=Small"]).count
        item.metadata.comments = String(repeating: "y", count: OggEditPlanner.theoraHeaderLimit - header - 20)
        try await item.save()
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.packets[1].count <= OggEditPlanner.theoraHeaderLimit && scan.packets[1].count > OggEditPlanner.theoraHeaderLimit - 40)
        // A file whose comment is over the limit already: another change is saved.
        let large = try write(Self.file(fields: ["TITLE=Big", "COMMENT=" + String(repeating: "z", count: 70_000)]), "large.ogv")
        var big = try await MediaItem.loaded(large)
        big.metadata.title = "Bigger"
        try await big.save()
        #expect(try await MediaItem.loaded(large).metadata.title == "Bigger")
    }

    /// Beside a Vorbis stream, the Theora stream that leads the file gives
    /// the tags and the duration (as mutagen.File's `OggTheora`) and a save
    /// writes its comment; the audio stream's properties are in the stream
    /// list and its comment is an `ogg-stream` item, kept by the save.
    @Test func leadingVideoBesideAudioGivesTheTags() async throws {
        let url = try write(Self.file(fields: ["TITLE=video"], withAudio: true, audioFields: ["TITLE=audio"]))
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "video" && item.properties.codec == "Theora" && item.properties.sampleRate == nil)
        #expect(item.properties.width == 320 && item.properties.height == 240 && item.properties.duration == 2)
        #expect(
            item.properties.streams.map(\.mediaType) == [.video, .audio]
                && item.properties.streams.map(\.codecName) == ["Theora", "Vorbis"])
        #expect(item.properties.streams[1].sampleRate == 44100 && item.properties.streams[1].channels == 2)
        #expect(item.metadata.items.first { $0.key == "Vorbis/TITLE" }?.value == .string("audio"))
        item.metadata.title = "changed"
        try await item.save()
        let scan = try OggHeaderScan.read(FileSource(url: url))
        #expect(scan.codec == .theora && scan.video == nil && scan.packets[0] == Self.identification())
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "changed" && reread.warnings.isEmpty)
        #expect(reread.metadata.items.first { $0.key == "Vorbis/TITLE" }?.value == .string("audio"))
    }

    @Test func everyPrefixReadsOrFailsCleanly() async throws {
        let full = Self.file(fields: ["TITLE=Vidéo", "ARTIST=Someone"])
        let url = directory.appendingPathComponent("cut.ogv")
        for length in 0...full.count {
            try Data(full.prefix(length)).write(to: url)
            do {
                let item = try await MediaItem.loaded(url)
                #expect(item.properties.codec == "Theora", "prefix \(length)")
                if length == full.count { #expect(item.warnings.isEmpty && item.metadata.title == "Vidéo") }
            } catch is MediaError {
                // Too short for the identification page.
                #expect(length < 28 + 1 + TheoraIdentification.length, "prefix \(length) was refused")
            }
        }
    }

    /// Hostile identification headers: a wrong major version, zero frame
    /// rate, a shift of 31 with a huge granule: read with what can be read.
    @Test func hostileIdentificationHeaders() async throws {
        var v4 = Self.file(fields: ["TITLE=x"])
        v4[28 + 7] = 4 // VMAJ in the first page's body (27-byte header + 1 lacing value)
        let fixedCRC = try #require(OggPage.parse(v4[...], offset: 0))
        let firstLength = fixedCRC.headerLength + fixedCRC.bodyLength
        let reserialized = fixedCRC.serialized(body: Array(v4[fixedCRC.headerLength..<firstLength]))
        v4.replaceSubrange(0..<firstLength, with: reserialized)
        await #expect(throws: MediaError.self) { try await MediaItem.loaded(try write(v4, "v4.ogv")) }

        let still = try await MediaItem.loaded(try write(Self.file(fields: ["TITLE=y"], fps: 0), "zero.ogv"))
        #expect(still.metadata.title == "y" && still.properties.duration == nil && still.properties.width == 320)

        let header = try TheoraIdentification(parsing: Self.identification(shift: 31))
        #expect(header.duration(granule: UInt64.max) == nil)
        #expect(header.duration(granule: 1 << 61)?.isFinite == true)
    }
}

/// Theora made by ffmpeg's libtheora (alone, and with Vorbis): properties
/// agree with ffprobe; a comment we write is read by mutagen's `OggTheora`;
/// the decoded video is unchanged.
@Suite(
    .enabled(
        if: Capabilities.ffmpegEncodes("libtheora") && ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen"),
        "needs ffmpeg with libtheora, ffprobe and python3 mutagen"))
struct OggTheoraInteropTests {
    static let reader = """
        import sys, json
        from mutagen.oggtheora import OggTheora
        f = OggTheora(sys.argv[1])
        print(json.dumps({"length": f.info.length, "fps": f.info.fps, "tags": {k.lower(): v for k, v in f.tags.items()}}))
        """

    static let tagger = """
        import sys
        from mutagen.oggtheora import OggTheora
        f = OggTheora(sys.argv[1])
        f.tags["TITLE"] = ["Mütagen"]
        f.tags["EXTRA"] = ["one", "two"]
        f.save()
        """

    @Test func ffmpegTheoraIsReadWrittenAndReadByMutagen() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("v.ogv")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=12:duration=2", "-c:v", "libtheora",
                "-g", "5", url.path,
            ])
        let video = try MediaChecks.decodedMD5(url, map: "0:v")
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path])

        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable, "\(item.warnings)")
        let info = try Self.mutagen(url)
        #expect(item.properties.codec == "Theora" && item.properties.width == 96 && item.properties.height == 64)
        #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 1e-6)
        let probe = try TestSupport.runChecked(
            "ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", url.path])
        #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "96,64")
        #expect(item.metadata.title == "Mütagen")
        #expect(item.metadata.items.contains { $0.key == "EXTRA" && $0.value == .strings(["one", "two"]) })

        item.metadata.title = "Néw ✓"
        item.metadata.comments = String(repeating: "long comment ", count: 600)
        try await item.save()
        #expect(try B.pageProblems(url).isEmpty)
        #expect(try MediaChecks.decodedMD5(url, map: "0:v") == video)
        let after = try Self.mutagen(url)
        let tags = try #require(after["tags"] as? [String: [String]])
        #expect(tags["title"] == ["Néw ✓"] && tags["extra"] == ["one", "two"] && tags["comment"]?.first?.hasPrefix("long comment") == true)
        #expect(after["length"] as? Double == info["length"] as? Double)

        // A 70,000-byte picture would take the comment past what ffmpeg decodes: refused, nothing written.
        let before = try Data(contentsOf: url)
        var withPicture = try await MediaItem.loaded(url)
        withPicture.metadata.artwork = [Artwork(data: Data(repeating: 0xAB, count: 70_000), mimeType: "image/jpeg")]
        let refused = await #expect(throws: MediaError.self) { try await withPicture.save() }
        #expect(refused?.code == .sizeOutOfRange)
        #expect(try Data(contentsOf: url) == before)
        #expect(try MediaChecks.decodedMD5(url, map: "0:v") == video)
    }

    static func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }
}
