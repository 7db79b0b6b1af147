import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

/// Truncated and hostile tags: every one must throw a ``MediaError`` or parse
/// cleanly — never crash, hang or allocate past the file.
@Suite struct ID3HostileTests {
    /// A small valid file: an ID3v2.4 tag with a few frames, then MPEG frames.
    private static func sampleTag() -> [UInt8] {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.text(["Title", "Zwei"], encoding: 3)),
            B.frame("TPE1", B.text(["Björk"], encoding: 1)),
            B.frame("COMM", B.comment("note")),
            B.frame("APIC", B.picture(B.tinyPNG)),
            B.frame("TXXX", B.text(["K", "V"], encoding: 0)),
        ]
        tag.padding = 16
        return tag.bytes()
    }

    /// Text invalid in its frame's encoding (a lone UTF-16 surrogate, broken
    /// UTF-8) is read with U+FFFD in its place and a warning at the frame
    /// (mutagen drops such a frame); a frame that encodes U+FFFD itself, and
    /// valid text, give none.
    @Test func textInvalidInItsEncodingIsReadWithAWarning() throws {
        var tag = B(version: 4)
        let loneSurrogate: [UInt8] = [1, 0xFF, 0xFE, 0x4B, 0x00, 0x00, 0xD8, 0x6F, 0x00] // "K", U+D800, "o"
        let brokenUTF8: [UInt8] = [3] + Array("ab".utf8) + [0xC3, 0x28]
        tag.frames = [
            B.frame("TIT2", B.text(["Title"], encoding: 3)),
            B.frame("TPE1", loneSurrogate),
            B.frame("TALB", brokenUTF8),
            B.frame("TCOM", B.text(["ok \u{FFFD} here"], encoding: 1)),
        ]
        let bytes = tag.bytes()
        let parsed = try B.parse(bytes + B.mpegFrames(2))
        func value(_ key: String) -> String? { parsed.items.first { $0.key == key }?.value.stringValue }
        #expect(value("TPE1") == "K\u{FFFD}o")
        #expect(value("TALB") == "ab\u{FFFD}(")
        #expect(value("TCOM") == "ok \u{FFFD} here")
        let offsets = parsed.warnings.filter { $0.message.contains("not valid in its encoding") }.compactMap(\.offset)
        let tpe1 = Int64(try #require(Self.find(Array("TPE1".utf8), in: bytes)))
        let talb = Int64(try #require(Self.find(Array("TALB".utf8), in: bytes)))
        #expect(offsets == [tpe1, talb], "\(parsed.warnings)")
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.indices.first { bytes[$0...].starts(with: pattern) }
    }

    @Test func everyPrefixOfTheTagLoadsWhatIsThere() async throws {
        let tag = Self.sampleTag()
        let file = tag + B.mpegFrames(3)
        let full = try B.parse(file).items.map(\.key)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mdkit-prefix-\(UUID().uuidString).mp3")
        defer { try? FileManager.default.removeItem(at: url) }
        for length in 0..<tag.count {
            try Data(file[0..<length]).write(to: url)
            var item = MediaItem(url: url)
            do {
                try await item.load()
                // A cut tag: the frames that are there, a warning, read-only.
                #expect(length >= 10, "prefix of \(length) bytes loaded")
                #expect(item.warnings.first?.code == .truncated && item.warnings.first?.offset == 6)
                #expect(!item.isEditable)
                let keys = item.metadata.items.map(\.key)
                #expect(Array(full.prefix(keys.count)) == keys, "prefix \(length): \(keys)")
            } catch {
                // Only a cut header leaves nothing to read.
                #expect(length < 10, "prefix of \(length) bytes failed: \(error)")
            }
        }
        // A cut tag is never saved: the save is refused and the file left as it is.
        try Data(file[0..<150]).write(to: url)
        var cut = try await MediaItem.loaded(url)
        cut.metadata.title = "x"
        let error = await #expect(throws: MediaError.self) { try await cut.save(options: SaveOptions(durability: .noSync)) }
        #expect(error?.code == .truncated)
        #expect(try Data(contentsOf: url) == Data(file[0..<150]))
        // Cuts inside the audio always load, with the tag intact.
        for length in stride(from: tag.count, through: file.count, by: 97) {
            try Data(file[0..<length]).write(to: url)
            var item = MediaItem(url: url)
            try await item.load()
            #expect(item.metadata.artist == "Björk" && item.warnings.isEmpty && item.isEditable)
        }
    }

    @Test func tagSizePastEndOfFile() throws {
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.text(["x"], encoding: 0), version: 3)]
        tag.sizeOverride = 100_000
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .string("x"))
        #expect(parsed.warnings.map(\.code) == [.truncated] && parsed.warnings.first?.offset == 6)
        #expect(!parsed.isEditable)
    }

    @Test(arguments: [UInt8(2), 3, 4])
    func frameSizePastTagEnd(version: UInt8) async throws {
        var tag = B(version: version)
        let id = version == 2 ? "TT2" : "TIT2"
        tag.frames = [
            B.frame(version == 2 ? "TAL" : "TALB", B.text(["ok"], encoding: 0), version: version),
            B.frame(id, B.text(["x"], encoding: 0), version: version, sizeOverride: 500),
        ]
        tag.padding = 40
        let frameOffset = Int64(10 + tag.frames[0].count)
        let bytes = tag.bytes() + B.mpegFrames(2)
        let parsed = try B.parse(bytes)
        #expect(parsed.items.map(\.key) == [version == 2 ? "TAL" : "TALB"])
        #expect(parsed.warnings.map(\.code) == [.sizeOutOfRange] && parsed.warnings.first?.offset == frameOffset)
        // v2.3/v2.4 keep the damaged frame byte for byte; a v2.2 tag must be upgraded, which can't keep it.
        #expect(parsed.isEditable == (version != 2))
        let url = try B.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.artist = "New artist"
        if version == 2 {
            await #expect(throws: MediaError.self) { try await item.save(options: SaveOptions(durability: .noSync)) }
            #expect(try [UInt8](Data(contentsOf: url)) == bytes)
            return
        }
        try await item.save(options: SaveOptions(durability: .noSync))
        let written = [UInt8](try Data(contentsOf: url))
        #expect(ID3WriterTests.contains(written, tag.frames[1]), "the damaged frame is kept as it was")
        #expect(item.metadata.artist == "New artist" && item.metadata.album == "ok")
        #expect(item.warnings.map(\.code) == [.sizeOutOfRange])
    }

    @Test(arguments: [UInt8(3), 4])
    func frameSizeAllOnes(version: UInt8) throws {
        var tag = B(version: version)
        tag.frames = [B.frame("TIT2", B.text(["x"], encoding: 0), version: version, sizeOverride: 0xFFFF_FFFF)]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.items.isEmpty && parsed.warnings.first?.offset == 10)
    }

    @Test func decompressedSizeOfTwoGigabytes() throws {
        let text = B.text(["small"], encoding: 0)
        var v3 = B(version: 3)
        v3.frames = [B.frame("TIT2", B.be32(0x8000_0000) + B.compress(text), version: 3, flags: 0x0080)]
        var v4 = B(version: 4)
        v4.frames = [B.frame("TIT2", B.syncsafe(0x0FFF_FFFF) + B.compress(text), flags: 0x0009)]
        for tag in [v3, v4] {
            // Kept as stored (raw), reported.
            let parsed = try B.parse(tag.bytes())
            #expect(parsed.item("TIT2")?.dataType == .binary)
            #expect(parsed.warnings.map(\.code) == [.sizeOutOfRange] && parsed.warnings.first?.offset == 20)
            #expect(parsed.isEditable)
        }
    }

    @Test func brokenZlibStream() throws {
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.be32(10) + [0x78, 0x9C, 1, 2, 3, 4, 5], version: 3, flags: 0x0080)]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .data(Data(tag.frames[0][10...])))
        #expect(parsed.warnings.map(\.code) == [.malformed])
    }

    @Test func understatedDecompressedSizeStillInflates() throws {
        let text = B.text([String(repeating: "abc", count: 300)], encoding: 0)
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.be32(10) + B.compress(text), version: 3, flags: 0x0080)]
        #expect(try B.parse(tag.bytes()).item("TIT2")?.value == .string(String(repeating: "abc", count: 300)))
    }

    /// A declared decompressed size of 0 (found by the fuzzer: the buffer
    /// doubled from 0 forever) grows like an unknown size.
    @Test func declaredDecompressedSizeOfZeroStillInflates() throws {
        let text = B.text(["zero"], encoding: 0)
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.be32(0) + B.compress(text), version: 3, flags: 0x0080)]
        #expect(try B.parse(tag.bytes()).item("TIT2")?.value == .string("zero"))
    }

    @Test func hundredThousandTinyFrames() throws {
        var tag = B(version: 4)
        tag.frames = [[UInt8]](repeating: B.frame("TXXX", [0, 0x41]), count: 100_000)
        let bytes = tag.bytes()
        let clock = ContinuousClock()
        let start = clock.now
        let parsed = try B.parse(bytes)
        let elapsed = clock.now - start
        #expect(parsed.items.count == 100_000)
        // A guard against quadratic work (hours), not a speed test: generous for a loaded machine.
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test func extendedHeaderPastTagEnd() throws {
        var v3 = B(version: 3)
        v3.extendedHeader = B.be32(0x7FFF_FFF0) + [0, 0]
        var v4 = B(version: 4)
        v4.extendedHeader = B.syncsafe(3) + [1, 0]
        for tag in [v3, v4] {
            let parsed = try B.parse(tag.bytes())
            #expect(parsed.items.isEmpty)
            #expect(parsed.warnings.map(\.code) == [.sizeOutOfRange] && parsed.warnings.first?.offset == 10)
        }
    }

    @Test func emptyAndFlagOnlyFramesAreKept() throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", []), B.frame("TPE1", B.syncsafe(0), flags: 0x0001), B.frame("TALB", B.text(["a"], encoding: 0))]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.items.map(\.key) == ["TIT2", "TPE1", "TALB"])
        #expect(parsed.item("TIT2")?.value == .data(Data()) && parsed.item("TPE1")?.value == .data(Data()))
        #expect(Metadata(items: parsed.items).title == nil && Metadata(items: parsed.items).album == "a")
        #expect(parsed.warnings.isEmpty)
    }

    @Test func unknownVersionIsSkipped() throws {
        var tag = B(version: 5)
        tag.frames = [B.frame("TIT2", B.text(["x"], encoding: 0))]
        let parsed = try B.parse(tag.bytes() + B.mpegFrames(2))
        #expect(parsed.items.isEmpty)
        #expect(parsed.properties.codec == "MP3")
    }

    @Test func junkAfterFramesEndsTheList() throws {
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.text(["x"], encoding: 0), version: 3), Array("junk!junk!junk!".utf8)]
        #expect(try B.parse(tag.bytes()).items.map(\.key) == ["TIT2"])
    }
}
