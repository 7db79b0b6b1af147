import Foundation
import Testing

@testable import MetadataKit

/// APEv2 tags (mutagen's `APEv2`, appended at the end; an ID3v1 tag after one)
/// on raw AAC, AC-3 and E-AC-3 streams made by ffmpeg: read as `.ape` items
/// with the properties unchanged; a save rewrites the APE tag the file has
/// (a new field goes to a new ID3v2 tag, the primary key space) and mutagen
/// reads the result; the stream bytes never change.
@Suite(.enabled(if: RawStreamTools.present, "needs ffmpeg, ffprobe and python3 with mutagen"))
struct RawStreamAPETests {
    static let tagger = """
        import sys
        from mutagen.apev2 import APEv2, APEValue, BINARY
        t = APEv2()
        t["Title"] = "Äpe tïtle"
        t["Artist"] = ["One", "Twö"]
        t["Custom"] = "keep me"
        t["Blob"] = APEValue(b"\\x00\\x01", BINARY)
        t.save(sys.argv[1])
        if sys.argv[2] == "v1":
            # An ID3v1 tag after it (mutagen's APEv2 appends after an ID3v1 tag it finds).
            with open(sys.argv[1], "ab") as f:
                f.write(b"TAG" + b"v1 title".ljust(30, b"\\0") + b"\\0" * 94 + b"\\xff")
        """

    static let reader = """
        import sys, json
        from mutagen.apev2 import APEv2
        from mutagen.id3 import ID3
        out = {"ape": {k.lower(): str(v) for k, v in APEv2(sys.argv[1]).items()}}
        try: out["id3"] = {f.HashKey: [str(t) for t in f.text] for f in ID3(sys.argv[1]).values() if hasattr(f, "text")}
        except Exception: out["id3"] = {}
        print(json.dumps(out))
        """

    static func mutagen(_ url: URL) throws -> [String: [String: Any]] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: [String: Any]])
    }

    @Test(arguments: ["aac-stereo", "ac3-stereo-48k", "eac3-stereo"], ["none", "v1"])
    func mutagenAPETagsAreReadAndRewritten(kind: String, trailer: String) async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try RawStreamInteropTests.make(kind, in: directory)
        let stream = [UInt8](try Data(contentsOf: url))
        let untagged = try await MediaItem.loaded(url)
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, trailer])

        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable, "\(item.warnings)")
        #expect(item.properties == untagged.properties)
        func raw(_ item: MediaItem, _ key: String) -> MetadataValue? {
            item.metadata.items.first { $0.keySpace == .ape && $0.key == key }?.value
        }
        #expect(item.metadata.title == "Äpe tïtle" && raw(item, "ARTIST") == .strings(["One", "Twö"]))
        #expect(raw(item, "BLOB") == .data(Data([0, 1])) && raw(item, "CUSTOM") == .string("keep me"))
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 } == (trailer == "v1"))

        item.metadata.title = "Néw ✓"
        item.metadata.album = "Älbum"
        try await item.save(options: SaveOptions(durability: .noSync))
        let read = try Self.mutagen(url)
        #expect(read["ape"]?["title"] as? String == "Néw ✓" && read["ape"]?["custom"] as? String == "keep me")
        #expect(read["ape"]?["artist"] as? String == "One\u{0}Twö" && read["ape"]?["blob"] != nil)
        #expect(read["ape"]?["album"] == nil && read["id3"]?["TALB"] as? [String] == ["Älbum"])
        let written = [UInt8](try Data(contentsOf: url))
        let tagSize = Int(written[6]) << 21 | Int(written[7]) << 14 | Int(written[8]) << 7 | Int(written[9])
        #expect(Array(written[(10 + tagSize)...].prefix(stream.count)) == stream, "the stream changed")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Néw ✓" && reread.metadata.album == "Älbum" && reread.properties == untagged.properties)
        #expect(reread.warnings.isEmpty)
    }

    /// `.ape` items on a stream without an APE tag are refused, as for MP3
    /// (TagLib adds none either), before anything is written.
    @Test func noAPETagIsAdded() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try RawStreamInteropTests.make("aac-stereo", in: directory)
        let before = try Data(contentsOf: url)
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .ape, key: "TITLE", value: .string("x"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == before)
    }
}
