import Foundation
import Testing

@testable import MetadataKit

private typealias B = DSDBuilder

enum DSDTools {
    static let present = ToolCheck.has("ffprobe") && ToolCheck.has("python3:mutagen")
}

/// DSF and DSDIFF files built in the test (ffmpeg and sox can't write them),
/// tagged by MetadataKit and by mutagen, read back by the other side; ffprobe
/// must agree on the properties and the sample data must not change.
@Suite(.enabled(if: DSDTools.present, "needs ffprobe and python3 with mutagen"))
struct DSDInteropTests {
    static let fast = SaveOptions(durability: .noSync)

    /// Prints {"info": {...}, "tags": {frame: [texts]}} for a DSF or DFF file.
    static let mutagenReader = """
        import sys, json
        from mutagen.dsf import DSF
        from mutagen.dsdiff import DSDIFF
        f = (DSF if sys.argv[1].endswith(".dsf") else DSDIFF)(sys.argv[1])
        out = {"info": {"length": f.info.length, "sample_rate": f.info.sample_rate, "channels": f.info.channels,
                        "bits": f.info.bits_per_sample, "bitrate": f.info.bitrate}, "tags": {}}
        if f.tags is not None:
            out["version"] = f.tags.version[1]
            for frame in f.tags.values():
                if hasattr(frame, "text"):
                    out["tags"][frame.HashKey] = [str(t) for t in frame.text]
            out["pictures"] = [len(p.data) for p in f.tags.getall("APIC")]
        print(json.dumps(out))
        """

    static let mutagenTagger = """
        import sys
        from mutagen.dsf import DSF
        from mutagen.dsdiff import DSDIFF
        from mutagen.id3 import TIT2, TPE1, TXXX, APIC
        f = (DSF if sys.argv[1].endswith(".dsf") else DSDIFF)(sys.argv[1])
        if f.tags is None:
            f.add_tags()
        f.tags.add(TIT2(encoding=3, text=["Mutagen Tïtle"]))
        f.tags.add(TPE1(encoding=1, text=["Mutagen Ärtist"]))
        f.tags.add(TXXX(encoding=3, desc="MOOD", text=["calm"]))
        f.tags.add(APIC(encoding=3, mime="image/png", type=3, desc="", data=b"\\x89PNG\\r\\n\\x1a\\n" + b"x" * 300))
        f.save(v2_version=int(sys.argv[2]))
        """

    static func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.mutagenReader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    static func ffprobe(_ url: URL) throws -> (sampleRate: Int, channels: Int, duration: Double, title: String?) {
        let output = try TestSupport.runChecked(
            "ffprobe",
            ["-v", "error", "-show_entries", "stream=sample_rate,channels:format=duration:format_tags=title", "-of", "json", url.path])
        let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let format = try #require(json["format"] as? [String: Any])
        return (
            Int(stream["sample_rate"] as? String ?? "") ?? -1, stream["channels"] as? Int ?? -1,
            Double(format["duration"] as? String ?? "") ?? -1, (format["tags"] as? [String: String])?["title"]
        )
    }

    static func files() -> [(name: String, bytes: [UInt8])] {
        [
            ("stereo.dsf", B.dsf(channels: 2, rate: 2_822_400, blocks: 2)),
            ("mono128.dsf", B.dsf(channels: 1, rate: 5_644_800, blocks: 3)),
            ("stereo.dff", B.dff(channels: 2, rate: 2_822_400, bytes: 4 * 7056)),
            ("surround.dff", B.dff(channels: 6, rate: 5_644_800, bytes: 6 * 3528, after: [B.diin(title: "DIIN", artist: "Art")])),
        ]
    }

    @Test(arguments: [0, 1, 2, 3])
    func propertiesAgreeWithFFprobeAndMutagen(index: Int) async throws {
        let (name, bytes) = Self.files()[index]
        let url = try B.file(bytes, name: name)
        defer { B.remove(url) }
        let item = try await MediaItem.loaded(url)
        let probe = try Self.ffprobe(url)
        let p = item.properties
        // ffmpeg reports DSD streams at a byte rate: 8 samples per byte.
        #expect(p.sampleRate == probe.sampleRate * 8 && p.channels == probe.channels)
        #expect(abs((p.duration ?? -1) - probe.duration) < 0.0005)
        let info = try #require(try Self.mutagen(url)["info"] as? [String: Any])
        #expect(p.sampleRate == info["sample_rate"] as? Int && p.channels == info["channels"] as? Int)
        #expect(p.bitsPerSample == info["bits"] as? Int && p.bitrate == info["bitrate"] as? Int)
        #expect(abs((p.duration ?? -1) - (info["length"] as? Double ?? 0)) < 1e-9)
    }

    /// MetadataKit writes the full field set; mutagen (and ffprobe for DSF)
    /// read it; the sample data is unchanged; mutagen then adds to the tag
    /// and MetadataKit reads both its frames and ours.
    @Test(arguments: [(0, 4), (2, 4), (1, 3), (3, 3)])
    func ourTagReadByMutagenAndBack(index: Int, version: Int) async throws {
        let (name, bytes) = Self.files()[index]
        let url = try B.file(bytes, name: name)
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Tïtle ✓"
        item.metadata.artist = "Ärtist"
        item.metadata.album = "Album"
        item.metadata.genre = Genre(name: "Classical")
        item.metadata.date = "2021"
        item.metadata.trackNumber = 3
        item.metadata.comments = "Comment ñ"
        item.metadata.artwork = [Artwork(data: Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 500)), mimeType: "image/jpeg")]
        try await item.save(options: SaveOptions(id3v2Version: version == 3 ? .v2_3 : .v2_4, durability: .noSync))

        let written = [UInt8](try Data(contentsOf: url))
        let read = try Self.mutagen(url)
        let tags = try #require(read["tags"] as? [String: [String]])
        #expect(read["version"] as? Int == version)
        #expect(tags["TIT2"] == ["Tïtle ✓"] && tags["TPE1"] == ["Ärtist"] && tags["TALB"] == ["Album"])
        #expect(tags["TCON"] == ["Classical"] && tags["TRCK"] == ["3"])
        #expect(read["pictures"] as? [Int] == [504])
        if name.hasSuffix(".dsf") {
            #expect(try Self.ffprobe(url).title == "Tïtle ✓")
            #expect(written[B.dsfDataOffset - 12..<bytes.count] == bytes[B.dsfDataOffset - 12..<bytes.count])
        } else {
            let sound = try #require(DSDIFFTests.chunks(written).first { $0.id == "DSD " })
            let old = try #require(DSDIFFTests.chunks(bytes).first { $0.id == "DSD " })
            #expect(written[sound.offset..<sound.offset + 12 + sound.size] == bytes[old.offset..<old.offset + 12 + old.size])
        }

        try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path, "\(version)"])
        let reread = try await MediaItem.loaded(url)
        #expect(reread.warnings.isEmpty)
        #expect(reread.metadata.title == "Mutagen Tïtle" && reread.metadata.artist == "Mutagen Ärtist")
        #expect(reread.metadata.album == "Album" && reread.metadata.trackNumber == 3)
        #expect(reread.metadata.items.contains { $0.key == "TXXX:MOOD" && $0.value == .string("calm") })
        // Mutagen's picture has our picture's key (APIC with an empty description): it replaces it.
        #expect(reread.metadata.artwork.map(\.byteCount) == [308])
        #expect(abs((reread.properties.duration ?? 0) - (item.properties.duration ?? 1)) < 1e-12)
    }

    /// A file mutagen tagged first is read, changed and saved; mutagen reads
    /// the change and every frame nobody changed.
    @Test(arguments: [0, 3])
    func mutagenTagReadAndChanged(index: Int) async throws {
        let (name, bytes) = Self.files()[index]
        let url = try B.file(bytes, name: name)
        defer { B.remove(url) }
        try TestSupport.runChecked("python3", ["-c", Self.mutagenTagger, url.path, "3"])
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Mutagen Tïtle" && item.metadata.artwork.count == 1)
        item.metadata.album = "Added"
        try await item.save(options: Self.fast)
        let read = try Self.mutagen(url)
        let tags = try #require(read["tags"] as? [String: [String]])
        #expect(read["version"] as? Int == 3)
        #expect(tags["TALB"] == ["Added"] && tags["TIT2"] == ["Mutagen Tïtle"] && tags["TXXX:MOOD"] == ["calm"])
        #expect(read["pictures"] as? [Int] == [308])
    }
}
