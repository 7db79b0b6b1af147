import Foundation
import Testing

@testable import MetadataKit

/// FLAC files (made by `flac`, tagged by `metaflac`) whose metadata block
/// length fields are wrong, as some taggers leave them: a VORBIS_COMMENT
/// shorter than its fields, a PICTURE longer than what remains. Both are
/// read by their fields (as libFLAC and mutagen read them) with a warning,
/// and a save writes the right lengths; the audio is kept.
@Suite(
    .enabled(
        if: TestSupport.hasTool("flac") && TestSupport.hasTool("metaflac") && TestSupport.hasTool("ffmpeg")
            && TestSupport.hasPythonModule("mutagen"), "needs flac, metaflac, ffmpeg and python3 mutagen"))
struct FLACWrongBlockLengthTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A tagged FLAC file; `picture` adds a front cover as the last block.
    func make(picture: Bool) throws -> URL {
        let wav = directory.appendingPathComponent("in.wav"), url = directory.appendingPathComponent("x.flac")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", "-ac", "2", wav.path])
        try TestSupport.runChecked("flac", ["--silent", "-f", "--no-padding", "-o", url.path, wav.path])
        var arguments = ["--remove-all-tags", "--set-tag=TITLE=Old title", "--set-tag=ARTIST=Flac artist", "--dont-use-padding"]
        if picture {
            let png = directory.appendingPathComponent("cover.png")
            try Data(ID3Builder.tinyPNG).write(to: png)
            arguments.append("--import-picture-from=3|image/png|Cover||\(png.path)")
        }
        try TestSupport.runChecked("metaflac", arguments + [url.path])
        return url
    }

    /// Each block: type, offset of its header, length field.
    static func blocks(_ bytes: [UInt8]) -> [(type: UInt8, offset: Int, length: Int)] {
        var result: [(UInt8, Int, Int)] = []
        var offset = 4
        while offset + 4 <= bytes.count {
            let length = Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            result.append((bytes[offset] & 0x7F, offset, length))
            if bytes[offset] & 0x80 != 0 { break }
            offset += 4 + length
        }
        return result
    }

    func mutagenTitle(_ url: URL) throws -> String {
        let output = try TestSupport.runChecked(
            "python3", ["-c", "import sys\nfrom mutagen.flac import FLAC\nprint(FLAC(sys.argv[1])['title'][0])", url.path])
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func setLength(_ bytes: inout [UInt8], at offset: Int, _ length: Int) {
        bytes[offset + 1] = UInt8(length >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(length >> 8 & 0xFF)
        bytes[offset + 3] = UInt8(length & 0xFF)
    }

    @Test func aVorbisCommentShorterThanItsFieldsIsReadAndRepaired() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try make(picture: false)
        let md5 = try MediaChecks.decodedMD5(url)
        var bytes = [UInt8](try Data(contentsOf: url))
        let comment = try #require(Self.blocks(bytes).first { $0.type == 4 })
        setLength(&bytes, at: comment.offset, comment.length - 12)
        try Data(bytes).write(to: url)
        #expect(try mutagenTitle(url) == "Old title", "mutagen reads the comment by its fields")

        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Old title" && item.metadata.artist == "Flac artist")
        #expect(item.warnings.contains { $0.message.contains("VORBIS_COMMENT block's length field") }, "\(item.warnings)")
        item.metadata.title = "New title"
        try await item.save()
        let saved = [UInt8](try Data(contentsOf: url))
        let fixed = try #require(Self.blocks(saved).first { $0.type == 4 })
        #expect(try TestSupport.runChecked("metaflac", ["--list", "--block-type=VORBIS_COMMENT", url.path]).text.contains("New title"))
        #expect(try mutagenTitle(url) == "New title")
        #expect(try await MediaItem.loaded(url).warnings.isEmpty)
        #expect(fixed.length > 0)
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }

    @Test func aPictureLongerThanWhatRemainsIsReadAndRepaired() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try make(picture: true)
        let md5 = try MediaChecks.decodedMD5(url)
        var bytes = [UInt8](try Data(contentsOf: url))
        let picture = try #require(Self.blocks(bytes).first { $0.type == 6 })
        setLength(&bytes, at: picture.offset, (1 << 24) - 1)
        try Data(bytes).write(to: url)

        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Old title")
        #expect(try await item.metadata.artwork.first?.data() == Data(ID3Builder.tinyPNG))
        #expect(item.warnings.contains { $0.message.contains("PICTURE block's length field") }, "\(item.warnings)")
        item.metadata.artist = "Another artist"
        try await item.save()
        let saved = [UInt8](try Data(contentsOf: url))
        let fixed = try #require(Self.blocks(saved).first { $0.type == 6 })
        #expect(fixed.length == picture.length)
        #expect(try TestSupport.runChecked("metaflac", ["--list", "--block-type=PICTURE", url.path]).text.contains("image/png"))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.warnings.isEmpty && reread.metadata.artist == "Another artist")
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }
}
