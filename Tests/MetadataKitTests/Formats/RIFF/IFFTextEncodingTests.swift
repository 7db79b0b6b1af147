import Foundation
import Testing

@testable import MetadataKit

private typealias R = RIFFBuilder

/// The character set of RIFF INFO and AIFF text: ISO 8859-1 when the text
/// fits (what exiftool, MediaInfo and Windows read), else UTF-8, or as a
/// `CSET` chunk says; untouched entries keep their bytes; new non-ASCII text
/// also goes to the ID3 chunk, which carries the exact value.
@Suite struct IFFTextEncodingTests {
    static let fast = SaveOptions(durability: .noSync)

    static func text(_ value: String) -> MetadataItem {
        MetadataItem(keySpace: .riff, key: "INAM", value: .string(value), dataType: .utf8)
    }

    @Test func latin1WhenItFitsElseUTF8() throws {
        let latin1: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x20, 0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72]
        #expect(try IFFText.encode(Self.text("Café Müller")) == latin1)
        #expect(try IFFText.encode(Self.text("Plain")) == Array("Plain".utf8))
        for text in ["日本語", "Ωμέγα", "€uro", "x\u{85}y", "Ã©"] { // beyond Latin-1; a C1 control; Latin-1 bytes that are UTF-8
            #expect(try IFFText.encode(Self.text(text)) == Array(text.utf8), "\(text)")
        }
        #expect(try IFFText.encode(Self.text("Café"), in: .utf8) == Array("Café".utf8))
        #expect(try IFFText.encode(Self.text("Café"), in: .other(1251)) == Array("Café".utf8))
        #expect(try IFFText.encode(Self.text("Plain"), in: .other(1251)) == Array("Plain".utf8))
        #expect(IFFText.CharacterSet(codePage: 1252) == .latin1 && IFFText.CharacterSet(codePage: 65001) == .utf8)
        // Read back: what was written is what is read.
        for text in ["Café Müller", "日本語", "Ã©", "Plain"] {
            #expect(IFFText.decode(try IFFText.encode(Self.text(text))).text == text)
        }
        #expect(IFFText.decode(latin1).type == .latin1)
    }

    /// The INFO subchunks of the first LIST/INFO chunk of a WAV file, with their raw text bytes.
    static func infoEntries(_ url: URL) throws -> [String: [UInt8]] {
        let list = try #require(try R.payload(of: "LIST", in: url))
        var entries: [String: [UInt8]] = [:]
        var offset = 4
        while offset + 8 <= list.count {
            let id = String(decoding: list[offset..<offset + 4], as: UTF8.self)
            let size = list[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            entries[id] = Array(list[offset + 8..<offset + 8 + size])
            offset += 8 + size + (size & 1)
        }
        return entries
    }

    @Test func infoTextIsLatin1WhenItFitsAndUntouchedEntriesKeepTheirBytes() async throws {
        let zoe = Array("Zoë".utf8) + [0], cafe: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0]
        let list = R.chunk("LIST", Array("INFO".utf8) + R.chunk("INAM", Array("Old\0".utf8)) + R.chunk("IART", zoe) + R.chunk("ICMT", cafe))
        let url = try R.file(R.wave([R.fmt(), list, R.chunk("data", R.samples(400))]), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.artist == "Zoë" && item.metadata.comments == "Café")
        item.metadata.title = "Café Müller"
        try await item.save(options: Self.fast)
        var entries = try Self.infoEntries(url)
        #expect(entries["INAM"] == [0x43, 0x61, 0x66, 0xE9, 0x20, 0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0])
        #expect(entries["IART"] == zoe && entries["ICMT"] == cafe)
        #expect(item.metadata.title == "Café Müller")
        // The ID3 chunk carries the exact value (the artist, untouched, is not copied).
        #expect(item.metadata.items.filter { $0.keySpace == .id3 }.map(\.key) == ["TIT2"])
        #expect(item.metadata.items.first { $0.key == "TIT2" }?.value == .string("Café Müller"))

        item.metadata.title = "Ωμέγα ✓"
        try await item.save(options: Self.fast)
        entries = try Self.infoEntries(url)
        #expect(entries["INAM"] == Array("Ωμέγα ✓".utf8) + [0])
        #expect(item.metadata.title == "Ωμέγα ✓")
        #expect(try R.payload(of: "data", in: url) == R.samples(400))
    }

    /// A `CSET` chunk naming UTF-8 (65001) gets UTF-8; another code page (1251) gets ASCII or UTF-8.
    @Test(
        arguments: [
            (65001, "Café", Array("Café".utf8)), (1251, "Café", Array("Café".utf8)), (1251, "Plain", Array("Plain".utf8)),
            (1252, "Café", [0x43, 0x61, 0x66, 0xE9]),
        ] as [(Int, String, [UInt8])])
    func csetCodePageIsFollowed(codePage: Int, title: String, bytes: [UInt8]) async throws {
        let cset = R.chunk("CSET", R.le16(codePage) + R.le16(0) + R.le16(0) + R.le16(0))
        let url = try R.file(R.wave([R.fmt(), cset, R.info([("INAM", "Old")]), R.chunk("data", R.samples(400))]), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = title
        try await item.save(options: Self.fast)
        #expect(try Self.infoEntries(url)["INAM"] == bytes + [0])
        #expect(item.metadata.title == title)
    }

    @Test func aiffTextIsLatin1WhenItFitsAndUntouchedChunksKeepTheirBytes() async throws {
        let anno = Array("Zoë".utf8)
        let url = try R.file(R.aiff([R.text("NAME", "Old"), R.chunk("ANNO", anno, bigEndian: true), R.comm(), R.ssnd(400)]), ext: "aiff")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Café Müller"
        try await item.save(options: Self.fast)
        #expect(try R.payload(of: "NAME", in: url) == [0x43, 0x61, 0x66, 0xE9, 0x20, 0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72])
        #expect(try R.payload(of: "ANNO", in: url) == anno)
        #expect(item.metadata.title == "Café Müller" && item.metadata.comments == "Zoë")
        #expect(item.metadata.items.first { $0.key == "TIT2" }?.value == .string("Café Müller"))
        #expect(try R.chunkIDs(url) == ["NAME", "ANNO", "COMM", "SSND", "ID3 "])
    }

    // MARK: Other readers

    static let toolsPresent =
        ToolCheck.has("ffmpeg") && ToolCheck.has("ffprobe") && ToolCheck.has("exiftool")
        && ToolCheck.has("mediainfo")

    /// TagLib's view of a file: FileRef's title, and for WAV the INFO title; nil without g++ and TagLib.
    static func taglib(_ url: URL, in directory: URL) throws -> (title: String, info: String)? {
        guard ToolCheck.has("g++"), ToolCheck.has("pkg-config"), ToolCheck.run("pkg-config", ["--exists", "taglib"]) == 0 else {
            return nil
        }
        let source = directory.appendingPathComponent("taglib-title.cpp"), binary = directory.appendingPathComponent("taglib-title")
        if !FileManager.default.fileExists(atPath: binary.path) {
            try """
            #include <cstdio>
            #include <fileref.h>
            #include <tag.h>
            #include <wavfile.h>
            #include <infotag.h>
            int main(int, char **argv) {
                TagLib::FileRef ref(argv[1]);
                std::printf("%s\\n", ref.isNull() || !ref.tag() ? "" : ref.tag()->title().to8Bit(true).c_str());
                TagLib::RIFF::WAV::File wav(argv[1]);
                std::printf("%s\\n", wav.isValid() && wav.hasInfoTag() ? wav.InfoTag()->title().to8Bit(true).c_str() : "");
            }
            """.write(to: source, atomically: true, encoding: .utf8)
            let flags = try TestSupport.runChecked("pkg-config", ["--cflags", "--libs", "taglib"]).text
                .split(whereSeparator: \.isWhitespace).map(String.init)
            try TestSupport.runChecked("g++", ["-std=c++17", "-o", binary.path, source.path] + flags)
        }
        let lines = try TestSupport.runChecked(binary.path, [url.path]).text.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.first ?? ""), lines.count > 1 ? String(lines[1]) : "")
    }

    /// A title written by MetadataKit into ffmpeg's INFO list / AIFF text
    /// chunks, read back by exiftool, MediaInfo, ffprobe and TagLib.
    /// Latin-1 text: exiftool (INFO) and MediaInfo read the text itself;
    /// TagLib (UTF-8 only in INFO), ffprobe (AIFF: the ID3 chunk after the
    /// text wins) read the exact ID3 copy. ffmpeg 5 reads no ID3 chunk in WAV
    /// and shows Latin-1 INFO text with U+FFFD, so it is checked with UTF-8 text.
    @Test(.enabled(if: toolsPresent, "needs ffmpeg, ffprobe, exiftool and mediainfo"), arguments: ["wav", "aiff"])
    func otherReadersReadTheTitleBack(ext: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("x.\(ext)")
        let tags = ext == "wav" ? ["title=Old", "artist=Someone"] : ["title=Old", "author=Someone"]
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.1"]
                + tags.flatMap { ["-metadata", $0] } + [url.path])
        let title = "Café Müller"
        var item = try await MediaItem.loaded(url)
        item.metadata.title = title
        try await item.save(options: Self.fast)
        #expect(item.metadata.items.contains { $0.keySpace == (ext == "wav" ? .riff : .aiff) && $0.dataType == .latin1 })

        let exif = try RIFFAIFFInteropTests.json(
            TestSupport.runChecked("exiftool", ["-j", "-a", "-G1", "-charset", "UTF8", url.path])
                .standardOutput)
        #expect(exif["ID3v2_4:Title"] as? String == title, "\(exif)")
        if ext == "wav" { #expect(exif["RIFF:Title"] as? String == title, "\(exif)") }
        let mediainfo = try TestSupport.runChecked("mediainfo", ["--Output=JSON", url.path]).text
        #expect(mediainfo.contains("\"Title\": \"\(title)\"") || mediainfo.contains("\"Title\":\"\(title)\""), "\(mediainfo)")
        if ext == "aiff" { #expect(try RIFFAIFFInteropTests.ffprobe(url).tags["title"] == title) }
        if let taglib = try Self.taglib(url, in: directory) { #expect(taglib.title == title) }

        // Text beyond Latin-1 is UTF-8, which ffprobe and TagLib read from INFO itself.
        let greek = "Ωμέγα ✓"
        item.metadata.title = greek
        try await item.save(options: Self.fast)
        #expect(try RIFFAIFFInteropTests.ffprobe(url).tags["title"] == greek)
        if ext == "wav", let taglib = try Self.taglib(url, in: directory) { #expect(taglib.info == greek && taglib.title == greek) }
    }
}
