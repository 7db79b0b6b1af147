import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// Files with QuickTime `mdta` metadata — built like Apple devices make them
/// and made by ffmpeg with `use_metadata_tags` — saved with a new title and
/// artist, then read by mutagen, TagLib, AtomicParsley, exiftool and ffprobe.
/// Tools that are not installed are skipped.
@Suite(.serialized) struct MP4FidelityInteropTests {
    /// What each reader saw: title and artist.
    struct Seen: Equatable, CustomStringConvertible {
        var title: String?
        var artist: String?
        var description: String { "\(title ?? "nil") / \(artist ?? "nil")" }
    }

    static let mutagenScript = """
        import sys, mutagen.mp4
        t = mutagen.mp4.MP4(sys.argv[1]).tags or {}
        print(" / ".join(["|".join(t.get(k, ["nil"])) for k in ("\\xa9nam", "\\xa9ART")]))
        """

    static let tagLibSource = """
        #include <cstdio>
        #include <mp4file.h>
        #include <tag.h>
        int main(int argc, char **argv) {
            TagLib::MP4::File file(argv[1]);
            if (!file.isValid() || !file.tag()) { std::puts("invalid"); return 1; }
            std::printf("%s / %s\\n", file.tag()->title().toCString(true), file.tag()->artist().toCString(true));
            return 0;
        }
        """

    /// A TagLib reader compiled once, or nil without g++ and TagLib.
    static let tagLibReader: URL? = {
        guard TestSupport.hasTool("g++"), TestSupport.hasTool("pkg-config"),
            let flags = try? TestSupport.runChecked("pkg-config", ["--cflags", "--libs", "taglib"]).text
        else { return nil }
        guard let directory = try? TestSupport.makeTemporaryDirectory() else { return nil }
        let source = directory.appendingPathComponent("read.cpp")
        let binary = directory.appendingPathComponent("read")
        guard (try? Data(tagLibSource.utf8).write(to: source)) != nil else { return nil }
        let arguments =
            ["-std=c++17", "-o", binary.path, source.path]
            + flags.split(whereSeparator: \.isWhitespace).map(String.init)
        return (try? TestSupport.runChecked("g++", arguments)) == nil ? nil : binary
    }()

    static func pair(_ text: String) -> Seen {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: " / ")
        func value(_ index: Int) -> String? {
            guard index < parts.count, !parts[index].isEmpty, parts[index] != "nil" else { return nil }
            return parts[index]
        }
        return Seen(title: value(0), artist: value(1))
    }

    /// Title and artist as each installed reader sees them.
    static func readers(_ url: URL) throws -> [String: Seen] {
        var seen: [String: Seen] = [:]
        if TestSupport.hasPythonModule("mutagen") {
            seen["mutagen"] = pair(try TestSupport.runChecked("python3", ["-c", mutagenScript, url.path]).text)
        }
        if TestSupport.hasTool("g++") && TestSupport.hasTool("pkg-config") {
            #expect(tagLibReader != nil, "TagLib reader did not compile")
        }
        if let tagLibReader {
            seen["TagLib"] = pair(try TestSupport.run(tagLibReader.path, [url.path]).text)
        }
        if TestSupport.hasTool("AtomicParsley") {
            // AtomicParsley starts its output with a byte-order mark.
            let text = try TestSupport.run("AtomicParsley", [url.path, "-t"]).text.replacingOccurrences(of: "\u{FEFF}", with: "")
            func atom(_ name: String) -> String? {
                text.split(separator: "\n").first { $0.hasPrefix("Atom \"\(name)\" contains: ") }
                    .map { String($0.dropFirst("Atom \"\(name)\" contains: ".count)) }
            }
            seen["AtomicParsley"] = Seen(title: atom("©nam"), artist: atom("©ART"))
        }
        if TestSupport.hasTool("exiftool") {
            let json = try TestSupport.runChecked("exiftool", ["-j", "-ItemList:Title", "-ItemList:Artist", url.path]).standardOutput
            let tags = (try JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first ?? [:]
            seen["exiftool"] = Seen(title: tags["Title"] as? String, artist: tags["Artist"] as? String)
        }
        if TestSupport.hasTool("ffprobe") {
            let text = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_format", url.path]).text
            func tag(_ name: String) -> String? {
                text.split(separator: "\n").first { $0.hasPrefix("TAG:\(name)=") }.map { String($0.dropFirst("TAG:\(name)=".count)) }
            }
            seen["ffprobe"] = Seen(title: tag("title"), artist: tag("artist"))
        }
        return seen
    }

    /// A movie laid out as an iPhone writes it: tracks, then a QuickTime
    /// `moov/meta` (no version/flags; `mdta` keys make/model/software), then
    /// optionally a `udta` of ©-atoms.
    static func appleLayout(brand: FourCC, userData: Bool) -> [UInt8] {
        let keys = ["com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.software"]
        let meta = B.meta(
            handler: "mdta", versionAndFlags: false,
            [
                B.keys(keys),
                B.box(
                    "ilst",
                    children: [
                        B.indexedItem(1, B.text("Apple")), B.indexedItem(2, B.text("iPhone 15")),
                        B.indexedItem(3, B.text("17.1")),
                    ]),
            ])
        var extra = [meta]
        if userData {
            extra.append(
                B.box(
                    "udta",
                    children: [
                        B.box("©xyz", B.userDataText("+48.8577+002.2950/", language: nil)),
                        B.box("©swr", B.userDataText("17.1", language: nil)),
                    ]))
        }
        return B.ftyp(brand, [brand, "isom"]) + B.audioMovie(duration: 1, extra: extra) + B.box("mdat", [UInt8](repeating: 0x21, count: 64))
    }

    func saveTitleAndArtist(_ url: URL) async throws {
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Nouveau titre"
        item.metadata.artist = "Ärtist"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Nouveau titre")
        #expect(reread.metadata.artist == "Ärtist")
        #expect(reread.warnings.isEmpty)
    }

    @Test(arguments: [false, true])
    func appleLayoutIsReadByEveryTool(userData: Bool) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("apple.m4a")
        try Data(Self.appleLayout(brand: "M4A ", userData: userData)).write(to: url)
        try await saveTitleAndArtist(url)
        let expected = Seen(title: "Nouveau titre", artist: "Ärtist")
        for (reader, seen) in try Self.readers(url) {
            #expect(seen == expected, "\(reader)")
        }
        // The mdta keys nobody changed are still there.
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.first { $0.key == "com.apple.quicktime.model" }?.value == .string("iPhone 15"))
    }

    @Test(.enabled(if: TestSupport.hasTool("ffmpeg")))
    func ffmpegMetadataTagsAreReadByEveryTool() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("keys.m4a")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                "-c:a", "aac", "-movflags", "use_metadata_tags", "-metadata", "title=Old",
                "-metadata", "artist=Old artist", url.path,
            ])
        let before = try await MediaItem.loaded(url)
        #expect(before.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.key == "title" })
        try await saveTitleAndArtist(url)
        let expected = Seen(title: "Nouveau titre", artist: "Ärtist")
        for (reader, seen) in try Self.readers(url) {
            #expect(seen == expected, "\(reader)")
        }
        let after = try await MediaItem.loaded(url)
        #expect(
            after.metadata.items.contains { $0.keySpace == .quickTimeMetadata && $0.key == "title" && $0.value == .string("Nouveau titre") }
        )
    }

    /// Three `data` atoms of one `©ART` survive a save of another field, and
    /// mutagen reads all three back.
    @Test(.enabled(if: TestSupport.hasPythonModule("mutagen")))
    func severalArtistsSurviveATitleSave() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("three.m4a")
        let ilst = B.box(
            "ilst",
            children: [
                B.item("©nam", B.text("Old")),
                B.item("©ART", B.text("Ann"), B.text("Bob"), B.text("Cléo")),
            ])
        let file =
            B.ftyp() + B.audioMovie(extra: [B.box("udta", children: [B.meta(handler: "mdir", [ilst])])])
            + B.box("mdat", [1, 2, 3])
        try Data(file).write(to: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.artist == "Ann; Bob; Cléo")
        item.metadata.title = "New"
        try await item.save()
        let script =
            "import sys, mutagen.mp4\nt = mutagen.mp4.MP4(sys.argv[1]).tags\nprint('|'.join(t['\\xa9ART']))\nprint('|'.join(t['\\xa9nam']))"
        let lines = try TestSupport.runChecked("python3", ["-c", script, url.path]).text.split(separator: "\n")
        #expect(lines == ["Ann|Bob|Cléo", "New"])
    }

    /// ffmpeg's AC-3 5.1 in MP4: six channels from `dac3`, as ffprobe says.
    @Test(.enabled(if: TestSupport.hasTool("ffmpeg") && TestSupport.hasTool("ffprobe")), arguments: ["ac3", "eac3"])
    func ac3ChannelsMatchFFprobe(codec: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("surround.mp4")
        try TestSupport.runChecked(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                "-ac", "6", "-c:a", codec, url.path,
            ])
        let probed = try TestSupport.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=channels", "-of", "csv=p=0", url.path])
        let item = try await MediaItem.loaded(url)
        #expect(item.properties.channels == 6)
        #expect(item.properties.channels == Int(probed.text.trimmingCharacters(in: CharacterSet(charactersIn: ", \n"))))
    }
}
