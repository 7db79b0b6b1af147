import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Real-world ID3v2 damage (issues 16 and 17): tags the reader could not
/// fully parse, stacked tags, forgiving reads of broken headers. Each file is
/// built here — by mutagen where that is how such files come about, then
/// patched — and after every save mutagen (when installed) must still read
/// every frame with its value.
@Suite struct ID3FidelityTests {
    static let hasMutagen = ToolCheck.has("python3:mutagen")
    static let fast = SaveOptions(durability: .noSync)

    /// Writes a v2.3 tag with mutagen into `url` (an MPEG stream built here).
    static let mutagenV23 = """
        import sys
        from mutagen.id3 import ID3, TIT2, TPE1, TALB, TRCK, TCON, COMM, TXXX
        tags = ID3()
        tags.add(TIT2(encoding=1, text=["Titel ü"]))
        tags.add(TPE1(encoding=0, text=["Artist"]))
        tags.add(TALB(encoding=0, text=["Album"]))
        tags.add(TRCK(encoding=0, text=["3/12"]))
        tags.add(TCON(encoding=0, text=["Jazz"]))
        tags.add(COMM(encoding=0, lang="deu", desc="", text=["Kommentar"]))
        tags.add(TXXX(encoding=0, desc="MOOD", text=["calm"]))
        tags.save(sys.argv[1], v2_version=3, padding=lambda info: 64)
        """

    /// Prints `{HashKey: [values]}` of every frame mutagen reads (v2.3 names
    /// upgraded to v2.4 ones, as mutagen loads them), plus "version".
    static let mutagenDump = """
        import sys, json
        from mutagen.id3 import ID3
        tags = ID3(sys.argv[1])
        out = {"version": tags.version[1]}
        for frame in tags.values():
            if frame.FrameID == "APIC":
                out[frame.HashKey] = [frame.mime, len(frame.data)]
            elif hasattr(frame, "text"):
                out[frame.HashKey] = [str(t) for t in frame.text]
                if hasattr(frame, "lang"):
                    out[frame.HashKey].append("lang=" + repr(frame.lang))
            else:
                out[frame.HashKey] = [repr(frame.data)] if hasattr(frame, "data") else []
        print(json.dumps(out, sort_keys=True))
        """

    static func dump(_ url: URL) throws -> [String: [String]] {
        let output = try TestSupport.runChecked("python3", ["-c", mutagenDump, url.path])
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        var result: [String: [String]] = [:]
        for (key, value) in object {
            result[key] = (value as? [Any])?.map { "\($0)" } ?? ["\(value)"]
        }
        return result
    }

    /// An MPEG stream with the mutagen v2.3 tag in front, in a new folder.
    static func mutagenFile() throws -> URL {
        let url = try TestSupport.makeTemporaryDirectory().appendingPathComponent("song.mp3")
        try Data(B.mpegFrames(20)).write(to: url)
        try TestSupport.runChecked("python3", ["-c", mutagenV23, url.path])
        return url
    }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// Offset of the first `needle` in `haystack`.
    static func find(_ needle: String, in haystack: [UInt8]) -> Int? {
        let pattern = Array(needle.utf8)
        guard haystack.count >= pattern.count else { return nil }
        return (0...(haystack.count - pattern.count)).first { haystack[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    /// The frame (header and payload) of a v2.3 tag at `offset`.
    static func frame(at offset: Int, in bytes: [UInt8]) -> [UInt8] {
        let size = Int(bytes[offset + 4]) << 24 | Int(bytes[offset + 5]) << 16 | Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7])
        return Array(bytes[offset..<offset + 10 + size])
    }

    // MARK: 1a. An invalid frame ID

    @Test(.enabled(if: hasMutagen))
    func invalidFirstFrameIDIsSkippedAndKept() async throws {
        let url = try Self.mutagenFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var bytes = try Self.bytes(url)
        // The first frame gets a mixed-case ID, as some taggers wrote "Date".
        #expect(bytes[10] == 0x54) // "T" of mutagen's first frame
        let id = Array(bytes[10..<14])
        bytes.replaceSubrange(10..<14, with: Array("Date".utf8))
        try Data(bytes).write(to: url)
        let damaged = Self.frame(at: 10, in: bytes)
        let before = try Self.dump(url)

        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.contains { $0.code == .malformed && $0.offset == 10 }, "\(item.warnings)")
        #expect(item.item("Date")?.value == .data(Data(damaged[10...])))
        // Every other frame is read (mutagen reads them too).
        #expect(item.metadata.album == "Album" && item.metadata.trackNumber == 3 && item.metadata.comments == "Kommentar")
        #expect(item.item("TXXX:MOOD")?.value == .string("calm"))
        #expect(item.isEditable)
        let keys = Set(item.metadata.items.map(\.key))
        #expect(keys.count == 7, "\(keys) (\(String(decoding: id, as: UTF8.self)) renamed)")

        item.metadata.artist = "New artist"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        #expect(written[3] == 3)
        #expect(ID3WriterTests.contains(written, damaged), "the 'Date' frame is kept byte for byte")
        var after = try Self.dump(url)
        #expect(after.removeValue(forKey: "TPE1") == ["New artist"])
        var expected = before
        expected.removeValue(forKey: "TPE1")
        #expect(after == expected, "every other frame reads back the same in mutagen")
        let reread = try await MediaItem.loaded(url)
        #expect(reread.item("Date") == item.item("Date") && reread.metadata.items.count == 7)

        // A version change can't keep a frame it can't read: refused, nothing written.
        var convert = reread
        convert.metadata.title = "x"
        let error = await #expect(throws: MediaError.self) {
            try await convert.save(options: SaveOptions(id3v2Version: .v2_4, durability: .noSync))
        }
        #expect(error?.code == .unsupportedFeature && error?.offset == 10)
        #expect(try Self.bytes(url) == written)
    }

    // MARK: 1b. v2.2 frame IDs inside a v2.3 tag

    @Test(.enabled(if: hasMutagen))
    func version22IDsInAVersion23Tag() async throws {
        let url = try Self.mutagenFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var bytes = try Self.bytes(url)
        // As iTunes wrote them: three letters and a zero byte, with v2.3 headers.
        for (new, old) in [("TT2", "TIT2"), ("TP1", "TPE1"), ("TAL", "TALB"), ("TRK", "TRCK"), ("COM", "COMM"), ("TCO", "TCON")] {
            let offset = try #require(Self.find(old, in: bytes))
            bytes.replaceSubrange(offset..<offset + 4, with: Array(new.utf8) + [0])
        }
        try Data(bytes).write(to: url)
        let before = try Self.dump(url)
        #expect(before["TIT2"] == ["Titel ü"] && before["TALB"] == ["Album"], "mutagen reads them as v2.3 frames: \(before)")

        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Titel ü" && item.metadata.artist == "Artist" && item.metadata.album == "Album")
        #expect(item.metadata.trackNumber == 3 && item.metadata.trackCount == 12 && item.metadata.comments == "Kommentar")
        #expect(item.metadata.genre?.name == "Jazz" && item.item("TXXX:MOOD")?.value == .string("calm"))
        #expect(item.item("COM")?.language == "deu")
        #expect(item.warnings.count == 1 && item.warnings[0].offset == 10, "\(item.warnings)")
        #expect(item.isEditable)
        let untouched = Self.frame(at: try #require(Self.find("TAL\0", in: bytes)), in: bytes)

        item.metadata.artist = "New artist"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        #expect(ID3WriterTests.contains(written, untouched), "unchanged frames keep their bytes")
        #expect(Self.find("TPE1", in: written) != nil, "the edited frame gets its v2.3 ID")
        var after = try Self.dump(url)
        #expect(after.removeValue(forKey: "TPE1") == ["New artist"])
        var expected = before
        expected.removeValue(forKey: "TPE1")
        #expect(after == expected)

        // To v2.4 the frames are converted to their v2.4 IDs, values kept.
        var converted = try await MediaItem.loaded(url)
        converted.metadata.title = "Neu"
        try await converted.save(options: SaveOptions(id3v2Version: .v2_4, durability: .noSync))
        let v24 = try Self.dump(url)
        #expect(v24["version"] == ["4"] && v24["TIT2"] == ["Neu"] && v24["TALB"] == ["Album"] && v24["TRCK"] == ["3/12"])
        #expect(v24["COMM::deu"] == ["Kommentar", "lang='deu'"] && v24["TCON"] == ["Jazz"] && v24["TXXX:MOOD"] == ["calm"])
    }

    // MARK: 2. Stacked tags

    /// Three complete tags in a row: the cover and track only in the second.
    static func stackedFile() -> (bytes: [UInt8], audio: [UInt8]) {
        var first = B(version: 3)
        first.frames = [
            B.frame("TIT2", B.text(["First title"], encoding: 0), version: 3),
            B.frame("TPE1", B.text(["Artist"], encoding: 0), version: 3),
        ]
        first.padding = 20
        var second = B(version: 3)
        second.frames = [
            B.frame("TIT2", B.text(["Shadowed title"], encoding: 0), version: 3),
            B.frame("APIC", B.picture(B.tinyPNG), version: 3),
            B.frame("TRCK", B.text(["7/9"], encoding: 0), version: 3),
        ]
        var third = B(version: 4)
        third.frames = [B.frame("TALB", B.text(["Album in the third"], encoding: 3))]
        third.padding = 10
        let audio = B.mpegFrames(12)
        return (first.bytes() + second.bytes() + third.bytes() + audio, audio)
    }

    @Test func stackedTagsAreMergedAndSavedAsOne() async throws {
        let (bytes, audio) = Self.stackedFile()
        let url = try B.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "First title", "the first tag wins per frame")
        #expect(item.metadata.trackNumber == 7 && item.metadata.trackCount == 9 && item.metadata.album == "Album in the third")
        #expect(item.metadata.artwork.count == 1 && item.metadata.items.filter { $0.key == "TIT2" }.count == 1)
        #expect(item.warnings.count == 2 && item.warnings.allSatisfy { $0.code == .malformed }, "\(item.warnings)")
        #expect(item.properties.codec == "MP3" && item.isEditable)

        item.metadata.title = "Saved"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        #expect(Array(written.suffix(audio.count)) == audio, "the audio starts after all the stacked tags")
        let tagEnd = 10 + (Int(written[6]) << 21 | Int(written[7]) << 14 | Int(written[8]) << 7 | Int(written[9]))
        #expect(tagEnd + audio.count == written.count, "one tag, then the audio")
        #expect(written[3] == 3)
        #expect(item.warnings.isEmpty)
        #expect(item.metadata.title == "Saved" && item.metadata.trackNumber == 7 && item.metadata.album == "Album in the third")
        #expect(try await item.metadata.artwork.first?.data() == Data(B.tinyPNG))
        #expect(item.metadata.items.count == 5)

        if Self.hasMutagen {
            let dump = try Self.dump(url)
            #expect(dump["TIT2"] == ["Saved"] && dump["TRCK"] == ["7/9"] && dump["TALB"] == ["Album in the third"])
            #expect(dump["APIC:"] == ["image/png", "\(B.tinyPNG.count)"])
        }
        if ToolCheck.has("eyeD3") {
            let output = try TestSupport.runChecked("eyeD3", ["--no-color", url.path]).text
            #expect(output.contains("Saved") && output.contains("7/9") && output.contains("Album in the third"), "\(output)")
            #expect(output.contains("FRONT_COVER"), "\(output)")
        }
    }

    // MARK: 7. Forgiving reads of broken headers

    @Test(arguments: [UInt8(3), 4])
    func extendedHeaderFlagWithoutExtendedHeader(version: UInt8) throws {
        // EasyTag set the flag and wrote none: the frames follow the header.
        var tag = B(version: version)
        tag.flags = 0x40
        tag.frames = [B.frame("TIT2", B.text(["Title"], encoding: 0), version: version)]
        tag.padding = 8
        let parsed = try B.parse(tag.bytes() + B.mpegFrames(2))
        #expect(parsed.item("TIT2")?.value == .string("Title"))
        #expect(parsed.warnings.map(\.offset) == [10] && parsed.isEditable)
    }

    @Test(arguments: [UInt8(3), 4])
    func nonsenseExtendedHeaderSizeIsSkipped(version: UInt8) throws {
        var tag = B(version: version)
        // A size pointing far past the tag, then the 6 bytes an extended header has.
        tag.extendedHeader = (version == 3 ? B.be32(0x00FF_FFFF) : B.syncsafe(0x00FF_FFF)) + [0, 0, 0, 0, 0, 0]
        tag.frames = [
            B.frame("TIT2", B.text(["Title"], encoding: 0), version: version),
            B.frame("TPE1", B.text(["Artist"], encoding: 0), version: version),
        ]
        let parsed = try B.parse(tag.bytes() + B.mpegFrames(2))
        #expect(parsed.items.map(\.key) == ["TIT2", "TPE1"])
        #expect(parsed.warnings.map(\.code) == [.sizeOutOfRange] && parsed.warnings.first?.offset == 10)
    }

    @Test func invalidIDsInTheMiddleAndJunkAtTheEnd() async throws {
        var tag = B(version: 4)
        let junk = Array("junk!junk!junk!".utf8)
        tag.frames = [
            B.frame("TIT2", B.text(["Title"], encoding: 3)),
            B.frame("tpe1", B.text(["lower"], encoding: 3)),
            B.frame("TALB", B.text(["Album"], encoding: 3)),
            junk,
        ]
        tag.padding = 30
        let bytes = tag.bytes() + B.mpegFrames(3)
        let url = try B.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.items.map(\.key) == ["TIT2", "tpe1", "TALB"])
        let junkOffset = Int64(10 + tag.frames[0..<3].map(\.count).reduce(0, +))
        #expect(item.warnings.map(\.offset) == [Int64(10 + tag.frames[0].count), junkOffset])
        item.metadata.title = "A longer title than before, so the frames move"
        try await item.save(options: Self.fast)
        let written = try Self.bytes(url)
        #expect(
            ID3WriterTests.contains(written, tag.frames[1]) && ID3WriterTests.contains(written, junk),
            "the invalid frame and the junk are kept as they were")
        #expect(item.metadata.album == "Album" && item.warnings.count == 2)
    }

    // MARK: ID3 inside a chunk

    @Test func tagClaimingMoreThanItsChunkReadsWhatIsThere() throws {
        // As in a WAV/AIFF chunk: the reader is given the chunk's end as its limit.
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.text(["In the chunk"], encoding: 0)),
            B.frame("TPE1", B.text(["Cut off by the chunk end"], encoding: 0)),
        ]
        tag.sizeOverride = 1000
        let bytes = tag.bytes()
        let limit = Int64(10 + tag.frames[0].count + 4)
        try B.withFile(bytes + [UInt8](repeating: 0x55, count: 2000)) { url in
            let source = try FileSource(url: url)
            let header = try #require(try ID3v2Header.parse(from: source, at: 0))
            let reader = ID3v2TagParser(source: source, url: url, header: header, limit: limit)
            let read = try reader.tag()
            #expect(read.items.map(\.key) == ["TIT2"] && read.isTruncated)
            #expect(read.warnings.first?.code == .truncated && read.warnings.first?.offset == 6)
            // A writer given only the frames would lose the rest: frames() refuses.
            let error = #expect(throws: MediaError.self) { try reader.frames() }
            #expect(error?.code == .truncated)
        }
    }

    // MARK: Random damage

    /// Damaged tags that load as editable save without losing a frame: every
    /// item but the edited one reads back the same from the saved copy.
    @Test(arguments: [UInt8(3), 4])
    func randomlyDamagedTagsKeepEveryFrameThroughASave(version: UInt8) async throws {
        var tag = B(version: version)
        tag.frames = [
            B.frame("TIT2", B.text(["Title"], encoding: 1), version: version),
            B.frame("TALB", B.text(["Album"], encoding: 0), version: version),
            B.frame("COMM", B.comment("note", language: "XXX", encoding: 0), version: version),
            B.frame("TXXX", B.text(["K", "V"], encoding: 0), version: version),
            B.frame("PRIV", Array("owner".utf8) + [0, 1, 2, 3], version: version),
            B.frame("TRCK", B.text(["4/9"], encoding: 0), version: version),
        ]
        tag.padding = 24
        let original = tag.bytes()
        let folder = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("damaged.mp3"), copy = folder.appendingPathComponent("saved.mp3")
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(state: seed)
        var saved = 0
        for round in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 10..<original.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            try Data(bytes + B.mpegFrames(3)).write(to: url)
            var item = MediaItem(url: url)
            do { try await item.load() } catch { continue }
            guard item.isEditable else { continue }
            let before = item.metadata.items.filter { $0.key != "TPE1" }
            item.metadata.artist = "Edited"
            do {
                try await item.save(to: copy, options: Self.fast)
            } catch {
                Issue.record("seed \(seed), round \(round): an editable file failed to save: \(error)")
                continue
            }
            saved += 1
            let after = try await MediaItem.loaded(copy)
            #expect(after.metadata.items.filter { $0.key != "TPE1" } == before, "seed \(seed), round \(round)")
            #expect(after.metadata.artist == "Edited", "seed \(seed), round \(round)")
        }
        #expect(saved > 50, "seed \(seed): only \(saved) damaged files were editable")
    }
}
