import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Files made by ffmpeg and tagged by mutagen and eyeD3, read back. Each test
/// is skipped when its tools are missing.
@Suite struct MP3InteropTests {
    /// A temporary directory with a 1 s, 440 Hz, 128 kbit/s mono MP3 made by
    /// ffmpeg/LAME (`x.mp3`) and a 3×2 PNG (`cover.png`).
    private static func makeFixture() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mdkit-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let status = ToolCheck.run(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                "-c:a", "libmp3lame", "-b:a", "128k", directory.appendingPathComponent("x.mp3").path,
            ])
        try #require(status == 0, "ffmpeg failed")
        try Data(B.tinyPNG).write(to: directory.appendingPathComponent("cover.png"))
        return directory
    }

    /// Tags `path` with mutagen: ID3v2.`version`, text encoding `encoding`.
    private static let mutagenScript = """
        import sys
        from mutagen.id3 import ID3, TIT2, TPE1, TALB, TRCK, TCON, TDRC, COMM, TXXX, APIC, USLT, POPM, TPOS, TBPM, WXXX
        path, version, enc, png = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        text = "Björk Guðmundsdóttir" if enc == 0 else "Björk 日本語 🎵"
        tags = ID3()
        tags.add(TIT2(encoding=enc, text=[text]))
        tags.add(TPE1(encoding=enc, text=["Artist One", "Artist Two"]))
        tags.add(TALB(encoding=enc, text=["Album " + text]))
        tags.add(TRCK(encoding=enc, text=["3/12"]))
        tags.add(TPOS(encoding=enc, text=["1/2"]))
        tags.add(TCON(encoding=enc, text=["Rock"]))
        tags.add(TBPM(encoding=enc, text=["128"]))
        tags.add(TDRC(encoding=enc, text=["2024"]))
        tags.add(COMM(encoding=enc, lang="eng", desc="", text=["Comment " + text]))
        tags.add(COMM(encoding=enc, lang="eng", desc="iTunNORM", text=[" 0000044E 00000000"]))
        tags.add(TXXX(encoding=enc, desc="MOOD", text=["calm"]))
        tags.add(USLT(encoding=enc, lang="deu", desc="", text="La la " + text))
        tags.add(POPM(email="me@example.com", rating=196, count=3))
        tags.add(WXXX(encoding=enc, desc="shop", url="https://example.com/"))
        tags.add(APIC(encoding=enc, mime="image/png", type=3, desc="Cover " + text, data=open(png, "rb").read()))
        tags.save(path, v2_version=version)
        """

    @Test(
        .enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasPythonModule("mutagen")),
        arguments: [(UInt8(3), UInt8(0)), (3, 1), (4, 0), (4, 1), (4, 2), (4, 3)])
    func mutagenTags(version: UInt8, encoding: UInt8) async throws {
        let directory = try Self.makeFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("x.mp3")
        let status = ToolCheck.run(
            "python3",
            [
                "-c", Self.mutagenScript, url.path, String(version), String(encoding),
                directory.appendingPathComponent("cover.png").path,
            ])
        try #require(status == 0, "mutagen failed")

        var item = MediaItem(url: url)
        try await item.load()
        let text = encoding == 0 ? "Björk Guðmundsdóttir" : "Björk 日本語 🎵"
        // mutagen writes v2.3 with UTF-16 for the UTF-8/UTF-16BE encodings it can't keep.
        let expectedType: MetadataDataType = [.latin1, .utf16, .utf16BigEndian, .utf8][Int(encoding)]
        let metadata = item.metadata
        #expect(metadata.title == text)
        #expect(item.item("TIT2")?.dataType == expectedType)
        #expect(item.item("TPE1")?.value == (version == 4 ? .strings(["Artist One", "Artist Two"]) : .string("Artist One/Artist Two")))
        #expect(metadata.album == "Album " + text)
        #expect(metadata.trackNumber == 3 && metadata.trackCount == 12)
        #expect(metadata.discNumber == 1 && metadata.discCount == 2)
        #expect(metadata.genre?.name == "Rock")
        #expect(metadata.bpm == 128)
        #expect(metadata.date == "2024")
        // mutagen keeps TDRC in v2.3 unless asked to update_to_v23()
        #expect(item.item("TDRC")?.value == .string("2024"))
        #expect(metadata.comments == "Comment " + text)
        #expect(item.item("COMM")?.language == "eng")
        #expect(item.item("COMM:iTunNORM")?.value == .string(" 0000044E 00000000"))
        #expect(item.item("TXXX:MOOD")?.value == .string("calm"))
        #expect(item.item("USLT")?.value == .string("La la " + text))
        #expect(item.item("USLT")?.language == "deu")
        #expect(item.item("POPM:me@example.com")?.value == .integer(196))
        #expect(item.item("WXXX:shop")?.value == .string("https://example.com/"))
        let artwork = try #require(metadata.artwork.first)
        #expect(artwork.mimeType == "image/png" && artwork.pictureType == .frontCover)
        #expect(artwork.description == "Cover " + text)
        #expect(artwork.width == 3 && artwork.height == 2)
        #expect(try await artwork.data() == Data(B.tinyPNG))
        Self.checkAudio(item.properties)
    }

    /// ffmpeg/LAME: an Info frame saying 40 frames of 1152 samples at 44.1 kHz.
    private static func checkAudio(_ properties: MediaProperties) {
        #expect(properties.codec == "MP3")
        #expect(properties.sampleRate == 44_100)
        #expect(properties.channels == 1)
        #expect(properties.bitrate == 128_000)
        #expect(abs((properties.duration ?? 0) - 40 * 1152 / 44_100.0) < 1e-9)
    }

    @Test(
        .enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("eyeD3")),
        arguments: [("--to-v2.3", "utf16"), ("--to-v2.4", "utf8"), ("--to-v2.4", "latin1")])
    func eyeD3Tags(versionOption: String, encoding: String) async throws {
        let directory = try Self.makeFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("x.mp3")
        let title = encoding == "latin1" ? "Sigur Rós" : "Sigur Rós 日本"
        let status = ToolCheck.run(
            "eyeD3",
            [
                "--quiet", "--no-color", versionOption, "--encoding", encoding,
                "-t", title, "-a", "Ärtist", "-A", "Albüm", "-n", "5", "-N", "9", "-G", "Jazz", "--recording-date", "2011",
                "--add-comment", "Hello wörld", "--add-comment", "described:desc:eng",
                "--add-image", directory.appendingPathComponent("cover.png").path + ":BACK_COVER:back", url.path,
            ])
        try #require(status == 0, "eyeD3 failed")
        var item = MediaItem(url: url)
        try await item.load()
        let metadata = item.metadata
        #expect(metadata.title == title)
        #expect(metadata.artist == "Ärtist")
        #expect(metadata.album == "Albüm")
        #expect(metadata.trackNumber == 5 && metadata.trackCount == 9)
        #expect(metadata.genre?.name == "Jazz")
        #expect(metadata.date == "2011")
        #expect(metadata.comments == "Hello wörld")
        #expect(item.item("COMM:desc")?.value == .string("described"))
        let artwork = try #require(metadata.artwork.first)
        #expect(artwork.pictureType == .backCover && artwork.description == "back")
        #expect(try await artwork.data() == Data(B.tinyPNG))
        Self.checkAudio(item.properties)
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg")))
    func ffmpegOwnTag() async throws {
        let directory = try Self.makeFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tagged.mp3")
        let status = ToolCheck.run(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-i", directory.appendingPathComponent("x.mp3").path,
                "-c", "copy", "-metadata", "title=Tïtle", "-metadata", "artist=Ärtist",
                "-metadata", "track=2/7", "-write_id3v1", "1", url.path,
            ])
        try #require(status == 0, "ffmpeg failed")
        var item = MediaItem(url: url)
        try await item.load()
        #expect(item.metadata.title == "Tïtle")
        #expect(item.metadata.artist == "Ärtist")
        #expect(item.metadata.trackNumber == 2 && item.metadata.trackCount == 7)
        #expect(item.item("title", .id3v1) != nil)
        #expect(item.properties.sampleRate == 44_100)
    }
}
