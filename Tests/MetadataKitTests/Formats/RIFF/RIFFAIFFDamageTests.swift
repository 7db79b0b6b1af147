import Foundation
import Testing

@testable import MetadataKit

private typealias R = RIFFBuilder

/// Damaged WAV and AIFF files of the kinds found in the wild, built byte by
/// byte: each loads with its metadata and a warning at the damage's offset,
/// and a save keeps the audio bytes and gives a file ffprobe reads. Where
/// ffprobe and mutagen are installed, what they read from the same damaged
/// file is compared with what MetadataKit reads.
@Suite struct RIFFAIFFDamageTests {
    static let fast = SaveOptions(durability: .noSync)
    static let hasFFprobe = ToolCheck.has("ffprobe")
    static let hasMutagen = ToolCheck.has("python3:mutagen")

    /// ffprobe's format tags and duration; nil when ffprobe is missing or fails on the file.
    static func ffprobe(_ url: URL) throws -> (tags: [String: String], duration: Double)? {
        guard hasFFprobe else { return nil }
        let output = try TestSupport.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration:format_tags", "-of", "json", url.path])
        guard output.status == 0 else { return nil }
        return try RIFFAIFFInteropTests.ffprobe(url)
    }

    /// mutagen's ID3 text frames; nil when mutagen is missing or fails on the file.
    static func mutagen(_ url: URL, container: String) throws -> [String: Any]? {
        guard hasMutagen else { return nil }
        let output = try TestSupport.run("python3", ["-c", RIFFAIFFInteropTests.mutagenReader, url.path, container])
        guard output.status == 0 else { return nil }
        return try RIFFAIFFInteropTests.json(output.standardOutput)
    }

    /// An ID3v2.4 tag whose header declares `size` body bytes, whatever it holds.
    static func tag(_ frames: [(String, String)], declaring size: Int) -> [UInt8] {
        var tag = R.id3(frames)
        for index in 0..<4 { tag[6 + index] = UInt8(size >> (7 * (3 - index)) & 0x7F) }
        return tag
    }

    static let info = R.info([("INAM", "Info Title"), ("IART", "Info Artist")])
    static let id3Chunk = R.chunk("id3 ", R.id3([("TIT2", "ID3 Title"), ("TALB", "ID3 Album")]))

    /// Loads `bytes`, checks the warnings (code and offset), changes the
    /// title, saves, and checks the audio payload, the container size and
    /// that the saved file has no warning left and reads in ffprobe.
    /// Returns the saved file's URL (the caller removes its folder).
    func loadAndSave(
        _ bytes: [UInt8], ext: String, warnings expected: [(MediaError.Code, Int64)],
        title: String = "Saved Title", after: [MediaError.Code] = [],
        audio expectedAudio: [UInt8]? = nil
    ) async throws -> (url: URL, loaded: MediaItem, saved: MediaItem) {
        let audioID = ext == "wav" ? "data" : "SSND"
        let url = try R.file(bytes, ext: ext)
        let audio = try expectedAudio ?? R.payload(of: audioID, in: url)
        let item = try await MediaItem.loaded(url)
        #expect(item.warnings.map(\.code) == expected.map(\.0), "\(item.warnings)")
        #expect(item.warnings.map(\.offset) == expected.map(\.1), "\(item.warnings)")
        #expect(item.isEditable)
        var edited = item
        edited.metadata.title = title
        try await edited.save(options: Self.fast)
        #expect(edited.metadata.title == title)
        #expect(edited.warnings.map(\.code) == after, "\(edited.warnings)")
        #expect(try R.payload(of: audioID, in: url) == audio)
        if let probe = try Self.ffprobe(url) {
            #expect(abs(probe.duration - (item.properties.duration ?? -1)) < 0.001)
        } else {
            #expect(!Self.hasFFprobe, "ffprobe can't read the saved file")
        }
        return (url, item, edited)
    }

    // MARK: WAV

    /// RIFF sizes a few bytes off: too large (all chunks whole), too small
    /// (the last chunk runs past the RIFF end). ffprobe and mutagen read both.
    @Test(arguments: [6, 1, -6, -1])
    func riffSizeOffFromTheFile(delta: Int) async throws {
        let body = R.fmt() + Self.info + R.chunk("data", R.samples(400)) + Self.id3Chunk
        let bytes = R.wave([body], riffSize: UInt32(body.count + 4 + delta))
        let id3Offset = Int64(bytes.count - Self.id3Chunk.count)
        let (url, loaded, saved) = try await loadAndSave(bytes, ext: "wav", warnings: [(.sizeOutOfRange, delta > 0 ? 4 : id3Offset)])
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "ID3 Title" && loaded.metadata.artist == "Info Artist" && loaded.metadata.album == "ID3 Album")
        #expect(saved.metadata.album == "ID3 Album" && saved.metadata.artist == "Info Artist")
        #expect(try R.containerSize(url) == (try Data(contentsOf: url)).count - 8)
        #expect(try R.chunkIDs(url) == ["fmt ", "LIST", "data", "id3 "])
        if let probe = try Self.ffprobe(url) { #expect(probe.tags["title"] == "Saved Title") }
        if let tags = try Self.mutagen(url, container: "wav") { #expect(tags["TIT2"] as? [String] == ["Saved Title"]) }
    }

    /// What ffprobe and mutagen read from the damaged originals matches.
    @Test(.enabled(if: hasFFprobe || hasMutagen, "needs ffprobe or mutagen"))
    func otherReadersReadTheSameDamagedFiles() async throws {
        let body = R.fmt() + Self.info + R.chunk("data", R.samples(400)) + Self.id3Chunk
        for delta in [6, -6] {
            let url = try R.file(R.wave([body], riffSize: UInt32(body.count + 4 + delta)), ext: "wav")
            defer { R.remove(url) }
            let item = try await MediaItem.loaded(url)
            if let probe = try Self.ffprobe(url) {
                #expect(probe.tags["title"] == item.metadata.items.first { $0.key == "INAM" }?.value.stringValue)
                #expect(abs(probe.duration - (item.properties.duration ?? 0)) < 0.001)
            }
            if let tags = try Self.mutagen(url, container: "wav") {
                #expect(tags["TIT2"] as? [String] == [item.metadata.title ?? ""] && tags["TALB"] as? [String] == ["ID3 Album"])
            }
        }
    }

    /// A RIFF or FORM size that leaves no room for a chunk (0, 4 or 8: never
    /// written by a streaming writer): the chunks are read to the end of the
    /// file with a warning at the size, as ffprobe, mutagen and TagLib read
    /// them, and a save writes the size of the chunks.
    @Test(arguments: [(UInt32(0), "wav"), (4, "wav"), (8, "wav"), (0, "aiff"), (8, "aiff")])
    func containerSizeWithNoRoomForAChunk(size: UInt32, ext: String) async throws {
        let bytes =
            ext == "wav"
            ? R.wave([R.fmt(), Self.info, R.chunk("data", R.samples(400)), Self.id3Chunk], riffSize: size)
            : R.aiff(
                [
                    R.comm(frames: 100), R.ssnd(400), R.text("NAME", "Info Title"),
                    R.chunk("ID3 ", R.id3([("TALB", "ID3 Album")]), bigEndian: true),
                ], formSize: size)
        let (url, loaded, saved) = try await loadAndSave(bytes, ext: ext, warnings: [(.sizeOutOfRange, 4)])
        defer { R.remove(url) }
        #expect(loaded.metadata.album == "ID3 Album" && loaded.properties.duration == 100 / 44_100.0)
        #expect(saved.metadata.album == "ID3 Album")
        #expect(try R.containerSize(url) == (try Data(contentsOf: url)).count - 8)
    }

    /// An INFO subchunk whose size runs past its list (TagLib's fuzzed
    /// `infloop.wav` has one): the subchunks before it are read, with a
    /// warning at it; the file is read-only, and a save is refused before
    /// anything is written.
    @Test func infoSubchunkPastItsList() async throws {
        let list = R.chunk(
            "LIST",
            Array("INFO".utf8) + R.chunk("INAM", Array("Info Title\0".utf8)) + Array("ICOP".utf8) + R.le32(0xFFFF_FFEF) + [1, 2, 3, 4])
        let bytes = R.wave([R.fmt(), R.chunk("data", R.samples(400)), list])
        let url = try R.file(bytes, ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        let listOffset = Int64(12 + 24 + 408)
        #expect(item.warnings.map(\.code) == [.sizeOutOfRange] && item.warnings.first?.offset == listOffset + 12 + 20)
        #expect(item.metadata.title == "Info Title" && item.properties.duration == 100 / 44_100.0 && !item.isEditable)
        item.metadata.title = "New"
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
        #expect([UInt8](try Data(contentsOf: url)) == bytes)
    }

    /// A LIST/INFO chunk (last) that runs past the RIFF size but not past the file.
    @Test func infoListPastTheRIFFEnd() async throws {
        let body = R.fmt() + R.chunk("data", R.samples(400)) + Self.info
        let bytes = R.wave([body], riffSize: UInt32(body.count + 4 - 10))
        let (url, loaded, saved) = try await loadAndSave(bytes, ext: "wav", warnings: [(.sizeOutOfRange, 12 + 24 + 408)])
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "Info Title" && loaded.metadata.artist == "Info Artist")
        #expect(saved.metadata.artist == "Info Artist")
        if let probe = try Self.ffprobe(url) { #expect(probe.tags["title"] == "Saved Title" && probe.tags["artist"] == "Info Artist") }
    }

    /// Garbage after `data`: a chunk header whose size runs past the end of
    /// the file, or a few stray bytes. The bytes are kept, after the RIFF container.
    @Test(arguments: [true, false])
    func garbageAfterData(isChunk: Bool) async throws {
        let garbage: [UInt8] =
            isChunk
            ? Array("LIST".utf8) + R.le32(1000) + Array("INFOINAM".utf8) + R.le32(6) + Array("abc".utf8)
            : [0xFF, 0x00, 0x13, 0x37, 0x42]
        let bytes = R.wave([R.fmt(), Self.info, R.chunk("data", R.samples(400)), garbage])
        let offset = Int64(bytes.count - garbage.count)
        if isChunk {
            // ffprobe also reads the INFO entries that are whole in the cut list; MetadataKit leaves the cut chunk unread.
            let original = try R.file(bytes, ext: "wav")
            defer { R.remove(original) }
            if let probe = try Self.ffprobe(original) { #expect(probe.tags["artist"] == "Info Artist" && probe.tags["title"] == "abc") }
        }
        let (url, loaded, saved) = try await loadAndSave(
            bytes, ext: "wav", warnings: [(isChunk ? .truncated : .malformed, offset)],
            title: "A title longer than before")
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "Info Title" && loaded.properties.duration == 100.0 / 44_100)
        #expect(saved.metadata.artist == "Info Artist")
        let after = [UInt8](try Data(contentsOf: url))
        #expect(Array(after.suffix(garbage.count)) == garbage)
        #expect(try R.containerSize(url) == after.count - garbage.count - 8)
    }

    /// An ID3 chunk whose tag declares more bytes than the chunk (followed by
    /// another chunk) or than the file (the last chunk): read within the chunk.
    @Test(arguments: [false, true])
    func id3TagLargerThanItsChunk(pastFile: Bool) async throws {
        let frames = [("TIT2", "ID3 Title"), ("TALB", "ID3 Album")]
        let whole = R.id3(frames)
        let tag = Self.tag(frames, declaring: whole.count - 10 + 300) + [UInt8](repeating: 0, count: 16)
        var chunks = [R.fmt(), Self.info, R.chunk("data", R.samples(400)), R.chunk("id3 ", tag)]
        if !pastFile { chunks.append(R.chunk("zzzz", R.samples(400))) }
        let tagOffset = Int64(12 + 24 + Self.info.count + 408 + 8)
        let bytes = R.wave(chunks)
        let original = try R.file(bytes, ext: "wav")
        defer { R.remove(original) }
        if Self.hasMutagen {
            // mutagen reads past the chunk when the file has the bytes and fails on the file otherwise.
            let tags = try Self.mutagen(original, container: "wav")
            #expect((tags?["TIT2"] as? [String]) == (pastFile ? nil : ["ID3 Title"]))
        }
        let (url, loaded, saved) = try await loadAndSave(bytes, ext: "wav", warnings: [(.sizeOutOfRange, tagOffset + 6)])
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "ID3 Title" && loaded.metadata.album == "ID3 Album")
        #expect(saved.metadata.album == "ID3 Album")
        let savedTag = try #require(try R.payload(of: "id3 ", in: url))
        let declared = savedTag[6..<10].reduce(0) { $0 << 7 | Int($1) }
        #expect(declared + 10 <= savedTag.count)
        if !pastFile { #expect(try R.payload(of: "zzzz", in: url) == R.samples(400)) }
        if let tags = try Self.mutagen(url, container: "wav") {
            #expect(tags["TIT2"] as? [String] == ["Saved Title"] && tags["TALB"] as? [String] == ["ID3 Album"])
        }
    }

    /// An ID3 chunk that can't be read whole (a frame runs past the chunk):
    /// its items are skipped or partial, a warning says so, a save keeps the
    /// chunk byte for byte and refuses to write ID3 items beside it.
    @Test func unreadableID3ChunkIsKeptAsItIs() async throws {
        var tag = R.id3([("TIT2", "ID3 Title")]) + R.id3([("TALB", "Cut album text")]).dropFirst(10).prefix(14)
        for index in 0..<4 { tag[6 + index] = UInt8(200 >> (7 * (3 - index)) & 0x7F) }
        let chunk = R.chunk("id3 ", tag)
        let bytes = R.wave([R.fmt(), Self.info, R.chunk("data", R.samples(400)), chunk])
        let chunkOffset = bytes.count - chunk.count
        let url = try R.file(bytes, ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.isEditable)
        #expect(item.warnings.count == 2 && item.warnings.allSatisfy { ($0.offset ?? 0) > Int64(chunkOffset) }, "\(item.warnings)")
        #expect(item.metadata.artist == "Info Artist")

        // INFO only: saved, the ID3 chunk kept as it was.
        item.metadata.artist = "New Artist"
        try await item.save(options: Self.fast)
        #expect(item.metadata.artist == "New Artist")
        #expect(try R.payload(of: "id3 ", in: url) == tag)
        #expect(try R.payload(of: "data", in: url) == R.samples(400))
        if Self.hasFFprobe { #expect(try Self.ffprobe(url)?.tags["artist"] == "New Artist") }

        // A field only ID3 can hold: refused before anything is written.
        let before = try Data(contentsOf: url)
        item.metadata.composer = "Composer"
        let error = await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
        #expect(error?.code == .unsupportedFeature)
        #expect(try Data(contentsOf: url) == before)

        // Removing all tags removes it.
        var fresh = try await MediaItem.loaded(url)
        try await fresh.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect(try R.chunkIDs(url) == ["fmt ", "data"])
    }

    /// An odd chunk before `data` without its pad byte. The byte after the
    /// next chunk's ID is printable here ('d', the low byte of 100), so
    /// only the sizes tell the two alignments apart.
    @Test func wavMissingPadByte() async throws {
        let bytes = R.wave([R.fmt(), Self.info, R.chunk("abcd", [1, 2, 3], pad: false), R.chunk("data", R.samples(100))])
        let offset = Int64(12 + 24 + Self.info.count)
        let (url, loaded, _) = try await loadAndSave(
            bytes, ext: "wav", warnings: [(.malformed, offset)],
            audio: R.samples(100))
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "Info Title" && loaded.properties.duration == 25.0 / 44_100)
        let ids = try R.chunkIDs(url)
        #expect(ids == ["fmt ", "LIST", "JUNK", "abcd", "data"], "\(ids)") // rewritten, with padding for the next save
        #expect(try R.payload(of: "abcd", in: url) == [1, 2, 3])
    }

    /// ID3 chunks whose header can't be used: version bytes 0xFF, an
    /// unknown version. Read with a warning, no items, kept by a save.
    @Test(arguments: [(0xFF, MediaError.Code.malformed), (5, .unsupportedFeature)])
    func id3HeaderThatCantBeUsed(version: Int, code: MediaError.Code) async throws {
        var tag = R.id3([("TIT2", "Hidden")])
        tag[3] = UInt8(version)
        let bytes = R.wave([R.fmt(), Self.info, R.chunk("data", R.samples(400)), R.chunk("id3 ", tag)])
        let parsed = try R.parse(bytes)
        #expect(parsed.warnings.map(\.code) == [code] && (parsed.warnings[0].offset ?? 0) >= Int64(bytes.count - tag.count - 8))
        #expect(parsed.items.map(\.keySpace) == [.riff, .riff] && parsed.isEditable)
        let (url, _, _) = try await loadAndSave(bytes, ext: "wav", warnings: [(code, parsed.warnings[0].offset ?? -1)], after: [code])
        defer { R.remove(url) }
        #expect(try R.payload(of: "id3 ", in: url) == tag)
    }

    // MARK: AIFF

    /// An odd-sized text chunk written without its pad byte: in the middle
    /// (the FORM size counts no pad byte; ffprobe and mutagen lose COMM
    /// there) or last (the FORM size counts one the file lacks).
    @Test(arguments: [false, true])
    func aiffMissingPadByte(isLast: Bool) async throws {
        let name = Array(R.text("NAME", "Title").dropLast()) // 5 bytes of text, no pad byte
        let audio = [R.comm(frames: 100), R.ssnd(400)]
        let bytes = isLast ? R.aiff(audio + [name], formSize: UInt32((audio.flatMap { $0 } + name).count + 5)) : R.aiff([name] + audio)
        let expected: (MediaError.Code, Int64) = isLast ? (.sizeOutOfRange, 4) : (.malformed, 12)
        // (The audio payload is given: a walk that expects pad bytes can't find SSND in the damaged file.)
        let (url, loaded, saved) = try await loadAndSave(
            bytes, ext: "aiff", warnings: [expected], title: "Title 2",
            audio: Array(R.ssnd(400).dropFirst(8)))
        defer { R.remove(url) }
        #expect(loaded.metadata.title == "Title" && loaded.properties.duration == 100.0 / 44_100)
        #expect(saved.metadata.title == "Title 2")
        #expect(try R.chunkIDs(url) == (isLast ? ["COMM", "SSND", "NAME"] : ["NAME", "COMM", "SSND"]))
        if let probe = try Self.ffprobe(url) { #expect(probe.tags["title"] == "Title 2") }
    }

    /// `COMM` counts sample frames but there is no `SSND`: the properties
    /// come from `COMM`, as in ffprobe and mutagen.
    @Test func aiffCommonWithoutSoundData() async throws {
        let bytes = R.aiff([R.text("NAME", "Title"), R.comm(frames: 4410), R.text("ANNO", "note")])
        let url0 = try R.file(bytes, ext: "aiff")
        defer { R.remove(url0) }
        if let probe = try Self.ffprobe(url0) {
            #expect(probe.tags["title"] == "Title" && abs(probe.duration - 0.1) < 0.001)
        }
        if Self.hasMutagen {
            #expect(try Self.mutagen(url0, container: "aiff") != nil)
        }
        let (url, loaded, saved) = try await loadAndSave(
            bytes, ext: "aiff", warnings: [(.malformed, 12 + 14)], title: "New title",
            after: [.malformed])
        defer { R.remove(url) }
        #expect(loaded.properties.duration == 0.1 && loaded.properties.sampleRate == 44_100 && loaded.properties.channels == 2)
        #expect(loaded.metadata.comments == "note" && saved.metadata.comments == "note")
    }

    /// A `COMM` rate so near zero (about 2^-994 Hz, still above 0) that the
    /// frame count would last longer than a Double holds (found by the
    /// `aiff` fuzz target): read with a warning at `COMM` and no duration,
    /// never an infinite one; the tags still read and save.
    @Test func aiffRateTooSmallForADuration() async throws {
        var comm = R.comm(frames: 0xFFFF_FF00)
        comm.replaceSubrange(16..<18, with: [0x3C, 0x1D]) // the 80-bit rate's exponent: 2^(15389 - 16383)
        let bytes = R.aiff([comm, R.text("NAME", "Title"), R.ssnd(400)])
        let url = try R.file(bytes, ext: "aiff")
        defer { R.remove(url) }
        let audio = try R.payload(of: "SSND", in: url)
        var item = try await MediaItem.loaded(url)
        #expect(item.warnings.map(\.code) == [.malformed] && item.warnings.map(\.offset) == [12], "\(item.warnings)")
        #expect(item.warnings.first?.message.contains("4294967040 sample frames") == true)
        #expect(item.properties.duration == nil && item.properties.channels == 2)
        #expect(item.metadata.title == "Title")
        item.metadata.title = "New title"
        try await item.save(options: Self.fast)
        let saved = try await MediaItem.loaded(url)
        #expect(saved.metadata.title == "New title" && saved.properties.duration == nil)
        #expect(try R.payload(of: "SSND", in: url) == audio)
    }

    /// Random 1–3 byte corruptions of a small WAV and AIFF (fixed seed, see
    /// ``FLACOggBuilder/corruptionOutcomes``): every read and every planned
    /// save ends in a result or a MediaError, never a crash or another error.
    @Test(arguments: ["wav", "aiff"])
    func randomCorruptionsFailCleanlyOrWarn(ext: String) throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let isWAV = ext == "wav"
        let file =
            isWAV
            ? R.wave([R.fmt(), Self.info, R.chunk("abcd", [1, 2, 3]), R.chunk("data", R.samples(64)), Self.id3Chunk])
            : R.aiff([R.text("NAME", "Odd"), R.comm(frames: 16), R.ssnd(64), R.chunk("ID3 ", R.id3([("TPE1", "A")]), bigEndian: true)])
        let edits = [
            MetadataItem(keySpace: isWAV ? .riff : .aiff, key: isWAV ? "INAM" : "NAME", value: .string("Fuzzed é"), dataType: .utf8),
            MetadataItem(keySpace: .id3, key: "TIT2", value: .string("Fuzzed"), dataType: .utf8),
        ]
        let outcomes = try FLACOggBuilder.corruptionOutcomes(
            file, range: 0..<file.count, count: 1500, in: directory,
            read: isWAV ? WAVParser.parse : AIFFParser.parse,
            plan: { source, items in
                try (isWAV ? WAVEditPlanner.plan : AIFFEditPlanner.plan)(
                    source,
                    items.filter { $0.key != "INAM" && $0.key != "NAME" && $0.key != "TIT2" }
                        + edits, Self.fast)
            })
        #expect(outcomes["non-MediaError"] == nil, "\(outcomes) (SplitMix64, the helper's fixed seed)")
        #expect(outcomes["parsed", default: 0] > 100 && outcomes["planned", default: 0] > 100, "\(outcomes)")
    }

    /// Files that used to be in hostile/ and now read with warnings.
    @Test(arguments: ["wav-chunk-past-riff.wav", "wav-id3-larger-than-chunk.wav"])
    func damagedFixturesLoadWithWarnings(name: String) async throws {
        let item = try await MediaItem.loaded(TestSupport.fixtures.appendingPathComponent("damaged/\(name)"))
        #expect(!item.warnings.isEmpty && item.warnings.allSatisfy { $0.offset != nil })
        #expect(item.properties.duration == 10.0 / 44_100)
    }
}
