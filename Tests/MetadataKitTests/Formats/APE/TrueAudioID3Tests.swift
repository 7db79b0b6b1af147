import Foundation
import Testing

@testable import MetadataKit

/// TrueAudio files with a leading ID3v2 tag (what mutagen's `TrueAudio` and
/// TagLib's `TrueAudio::File` write): read as `.id3` items beside the APE
/// tag, ID3v2 winning in the model; written back in place or grown, the
/// stream untouched. Hand-built files (every prefix, broken tags) and, with
/// ffmpeg and mutagen, real ones.
@Suite struct TrueAudioID3Tests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    /// A small TTA1 stream: 22-byte header (1 s of 44.1 kHz stereo 16-bit)
    /// and some payload.
    static func stream(payload: Int = 600) -> [UInt8] {
        Array("TTA1".utf8) + APEBuilder.le16(1) + APEBuilder.le16(2) + APEBuilder.le16(16) + APEBuilder.le32(44100)
            + APEBuilder.le32(44100) + APEBuilder.le32(0) + APEBuilder.payload(payload)
    }

    static func id3(title: String = "ID3 Tïtle", padding: Int = 64) -> [UInt8] {
        var tag = ID3Builder(version: 3)
        tag.frames = [
            ID3Builder.frame("TIT2", ID3Builder.text([title], encoding: 1), version: 3),
            ID3Builder.frame("TPE1", ID3Builder.text(["ID3 Ärtist"], encoding: 1), version: 3),
            ID3Builder.frame("TXXX", ID3Builder.text(["MOOD", "calm"], encoding: 0), version: 3),
        ]
        tag.padding = padding
        return tag.bytes()
    }

    static let apeTag = APEBuilder.tag([APEBuilder.text("Title", "APE title"), APEBuilder.text("Album", "APE album")])

    func write(_ bytes: [UInt8]) throws -> URL {
        let url = directory.appendingPathComponent("a.tta")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func bothTagsAreReadAndID3v2Wins() async throws {
        let head = Self.id3()
        let url = try write(head + Self.stream() + Self.apeTag + APEBuilder.id3v1(title: "v1"))
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .trueAudio && item.warnings.isEmpty && item.isEditable)
        #expect(item.metadata.title == "ID3 Tïtle" && item.metadata.artist == "ID3 Ärtist" && item.metadata.album == "APE album")
        #expect(item.metadata.items.contains { $0.keySpace == .id3 && $0.key == "TXXX:MOOD" })
        #expect(item.metadata.items.contains { $0.keySpace == .ape && $0.key == "TITLE" && $0.value == .string("APE title") })
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 })
        #expect(item.properties.sampleRate == 44100 && item.properties.channels == 2 && item.properties.duration == 1)
    }

    /// A change that fits the old space is patched in place; one that
    /// doesn't grows the tag. Both tags get a field both hold; the stream
    /// and ID3v1's position stay as they were.
    @Test(arguments: [false, true])
    func savesUpdateBothTagsAndKeepTheStream(grows: Bool) async throws {
        let stream = Self.stream()
        let url = try write(Self.id3() + stream + Self.apeTag)
        var item = try await MediaItem.loaded(url)
        let title = grows ? String(repeating: "Lông tïtle ", count: 200) : "Néw"
        item.metadata.title = title
        item.metadata.composer = "Cömposer" // in neither tag: goes to the ID3v2 tag
        try await item.save()
        let bytes = [UInt8](try Data(contentsOf: url))
        let header = try #require(try ID3v2Header.parse(from: try FileSource(url: url), at: 0))
        #expect((header.end == Int64(Self.id3().count)) == !grows)
        #expect(Array(bytes[Int(header.end)..<Int(header.end) + stream.count]) == stream)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.warnings.isEmpty && reread.metadata.title == title && reread.metadata.composer == "Cömposer")
        func raw(_ space: MetadataKeySpace, _ key: String) -> MetadataValue? {
            reread.metadata.items.first { $0.keySpace == space && $0.key == key }?.value
        }
        #expect(raw(.id3, "TIT2") == .string(title) && raw(.ape, "TITLE") == .string(title))
        #expect(raw(.id3, "TXXX:MOOD") == .string("calm") && raw(.id3, "TCOM") == .string("Cömposer") && raw(.ape, "COMPOSER") == nil)
        #expect(raw(.ape, "ALBUM") == .string("APE album"))
    }

    /// A 131-byte APE tag puts the "TAG" of its "APETAGEX" header 128 bytes
    /// from the end: no ID3v1 tag is read there (found by the save above).
    @Test func anAPETagOf131BytesIsNoID3v1() async throws {
        let tag = APEBuilder.tag([APEBuilder.text("Title", String(repeating: "t", count: 53))])
        #expect(tag.count == 131)
        let url = try write(Self.stream() + tag)
        let item = try await MediaItem.loaded(url)
        #expect(!item.metadata.items.contains { $0.keySpace == .id3v1 })
        #expect(item.metadata.title == String(repeating: "t", count: 53) && item.warnings.isEmpty)
    }

    /// `.id3` items on a file without an ID3v2 tag add one; removing every
    /// `.id3` item removes it.
    @Test func rawID3ItemsAddAndRemoveTheTag() async throws {
        let stream = Self.stream()
        let url = try write(stream + Self.apeTag)
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .id3, key: "TIT2", value: .string("Ädded"), dataType: .utf8))
        try await item.save()
        var reread = try await MediaItem.loaded(url)
        #expect([UInt8](try Data(contentsOf: url)).starts(with: Array("ID3".utf8)))
        #expect(reread.metadata.title == "Ädded" && reread.metadata.album == "APE album")
        reread.metadata.items.removeAll { $0.keySpace == .id3 }
        try await reread.save()
        #expect([UInt8](try Data(contentsOf: url)) == stream + Self.apeTag)
    }

    /// Every prefix of a file with both tags loads or fails with a
    /// ``MediaError``; a save of any prefix that loads is either refused
    /// before writing or keeps the stream bytes.
    @Test func everyPrefixReadsOrFailsCleanly() async throws {
        let head = Self.id3(padding: 8)
        let stream = Self.stream(payload: 40)
        let full = head + stream + Self.apeTag
        let url = directory.appendingPathComponent("cut.tta")
        for length in 0...full.count {
            try Data(full.prefix(length)).write(to: url)
            do {
                var item = try await MediaItem.loaded(url)
                if length >= head.count + stream.count {
                    #expect(item.metadata.title == "ID3 Tïtle", "prefix \(length)")
                }
                guard length % 7 == 0 else { continue }
                item.metadata.title = "x"
                do {
                    try await item.save()
                } catch {
                    #expect([UInt8](try Data(contentsOf: url)) == Array(full.prefix(length)), "prefix \(length) changed on refusal")
                }
            } catch is MediaError {
                #expect(length < head.count + 4, "prefix \(length) was refused")
            }
        }
    }

    /// A leading tag whose size runs past the end, or whose frames are
    /// damaged: read around with warnings, a save refused or keeping them.
    @Test func brokenLeadingTagsAreReadAroundAndNotLost() async throws {
        var cut = ID3Builder(version: 3)
        cut.frames = [ID3Builder.frame("TIT2", ID3Builder.text(["a"], encoding: 0), version: 3)]
        cut.sizeOverride = 1 << 20
        let url = try write(cut.bytes() + Self.stream())
        // No stream after the tag's end: not taken for TrueAudio (MP3 reads the cut tag).
        var item = try await MediaItem.loaded(url)
        #expect(item.fileType != .trueAudio)
        let before = [UInt8](try Data(contentsOf: url))
        item.metadata.title = "b"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect([UInt8](try Data(contentsOf: url)) == before)

        var damaged = ID3Builder(version: 3)
        damaged.frames = [
            ID3Builder.frame("TIT2", ID3Builder.text(["a"], encoding: 0), version: 3),
            ID3Builder.frame("TALB", ID3Builder.text(["b"], encoding: 0), version: 3, sizeOverride: 5000),
        ]
        let url2 = try write(damaged.bytes() + Self.stream())
        var read = try await MediaItem.loaded(url2)
        #expect(read.fileType == .trueAudio && read.metadata.title == "a" && !read.warnings.isEmpty)
        let streamStart = damaged.bytes().count
        read.metadata.title = "c"
        do {
            try await read.save()
            let bytes = [UInt8](try Data(contentsOf: url2))
            #expect(try await MediaItem.loaded(url2).metadata.title == "c")
            #expect(Array(bytes.suffix(Self.stream().count)) == Self.stream())
        } catch is MediaError {
            #expect([UInt8](try Data(contentsOf: url2)).count == streamStart + Self.stream().count)
        }
    }
}

private enum TrueAudioTools {
    static let present = ToolCheck.has("ffmpeg") && ToolCheck.has("python3:mutagen")
}

/// TrueAudio made by ffmpeg, tagged by mutagen's `TrueAudio` (ID3v2.4 at the
/// start, ID3v1 at the end, beside ffmpeg's APE tag): read, changed, and read
/// back by mutagen; the decoded audio unchanged.
@Suite(.enabled(if: TrueAudioTools.present, "needs ffmpeg and python3 mutagen"))
struct TrueAudioID3InteropTests {
    let directory: URL

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory()
    }

    static let tagger = """
        import sys
        from mutagen.trueaudio import TrueAudio
        from mutagen.id3 import TIT2, TPE1, TXXX, APIC
        f = TrueAudio(sys.argv[1])
        f.add_tags()
        f.tags.add(TIT2(encoding=3, text=["Mütagen tïtle"]))
        f.tags.add(TPE1(encoding=1, text=["Ärtist", "Second"]))
        f.tags.add(TXXX(encoding=3, desc="MOOD", text=["calm"]))
        f.tags.add(APIC(encoding=3, mime="image/png", type=3, desc="front", data=open(sys.argv[2], "rb").read()))
        f.save(v1=2)
        """

    static let reader = """
        import sys, json
        from mutagen.trueaudio import TrueAudio
        from mutagen.apev2 import APEv2, APENoHeaderError
        f = TrueAudio(sys.argv[1])
        out = {"length": f.info.length, "rate": f.info.sample_rate, "id3": {}, "ape": {}}
        for frame in (f.tags or {}).values():
            if hasattr(frame, "text"):
                out["id3"][frame.HashKey] = [str(t) for t in frame.text]
        out["pictures"] = [len(p.data) for p in f.tags.getall("APIC")] if f.tags else []
        try:
            for key, value in APEv2(sys.argv[1]).items():
                out["ape"][key.lower()] = str(value)
        except APENoHeaderError:
            pass
        print(json.dumps(out))
        """

    func mutagen(_ url: URL) throws -> [String: Any] {
        let output = try TestSupport.runChecked("python3", ["-c", Self.reader, url.path])
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    @Test func mutagenID3IsReadAndWrittenBack() async throws {
        let wav = directory.appendingPathComponent("a.wav")
        try TestSupport.runChecked(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2", wav.path])
        let url = directory.appendingPathComponent("a.tta")
        try TestSupport.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav.path, "-c:a", "tta", "-f", "tta", url.path])
        let cover = directory.appendingPathComponent("cover.png")
        try Data(ID3Builder.tinyPNG).write(to: cover)
        try TestSupport.runChecked("python3", ["-c", Self.tagger, url.path, cover.path])
        let md5 = try MediaChecks.decodedMD5(url)
        let info = try mutagen(url)

        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.isEmpty && item.isEditable, "\(item.warnings)")
        #expect(item.metadata.title == "Mütagen tïtle")
        #expect(item.metadata.items.contains { $0.keySpace == .id3 && $0.key == "TPE1" && $0.value == .strings(["Ärtist", "Second"]) })
        #expect(try await item.metadata.artwork.first?.data() == Data(ID3Builder.tinyPNG))
        #expect(item.metadata.items.contains { $0.keySpace == .id3v1 })
        #expect(abs((item.properties.duration ?? 0) - (info["length"] as? Double ?? -1)) < 0.001)
        #expect(item.properties.sampleRate == info["rate"] as? Int)
        let apeBefore = try #require(info["ape"] as? [String: String])

        item.metadata.title = "Néw ✓"
        item.metadata.artwork.append(Artwork(data: Data(ID3Builder.tinyPNG), pictureType: .backCover, description: "back"))
        try await item.save()
        #expect(try MediaChecks.decodedMD5(url) == md5, "the decoded audio changed")
        let after = try mutagen(url)
        let id3 = try #require(after["id3"] as? [String: [String]])
        #expect(id3["TIT2"] == ["Néw ✓"] && id3["TPE1"] == ["Ärtist", "Second"] && id3["TXXX:MOOD"] == ["calm"])
        #expect(after["pictures"] as? [Int] == [ID3Builder.tinyPNG.count, ID3Builder.tinyPNG.count])
        #expect(after["ape"] as? [String: String] == apeBefore, "ffmpeg's APE tag (no title) is unchanged")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Néw ✓" && reread.warnings.isEmpty)
        #expect(try MediaChecks.decodedMD5(url) == md5)
    }
}
