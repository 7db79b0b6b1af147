import Foundation
import Testing

@testable import MetadataKit

/// Damaged files that mutagen reads (the damaged half of the corpus of
/// ``MutagenAgreementTests``, built byte by byte here): MetadataKit reads
/// what remains too, with a warning at the damage's offset, and never
/// refuses them.
struct DamagedLikeMutagenTests {
    /// A WavPack block header (WavPack file format, "Block Header"): 16 bits,
    /// stereo, 44.1 kHz (rate index 9), a whole frame in one block.
    static func wavPackBlock(declaredSize: Int? = nil, payload: Int = 200, total: UInt32 = 44100, index: UInt32 = 0) -> [UInt8] {
        let flags: UInt32 = 1 | 1 << 11 | 1 << 12 | 9 << 23
        let size = declaredSize ?? (24 + payload)
        return Array("wvpk".utf8) + APEBuilder.le32(size) + APEBuilder.le16(0x410) + [0, 0] + APEBuilder.le32(total)
            + APEBuilder.le32(index) + APEBuilder.le32(total) + APEBuilder.le32(flags) + APEBuilder.le32(0)
            + APEBuilder.payload(payload)
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> URL { try DSDBuilder.file(bytes, name: name) }

    /// mutagen reads the first block's header of a file cut inside it.
    @Test func aWavPackFileCutInsideItsFirstBlockGivesItsProperties() async throws {
        let tag = APEBuilder.tag([APEBuilder.text("Title", "kept")])
        for length in [32, 33, 100, 150] {
            let block = Array(Self.wavPackBlock(declaredSize: 5000).prefix(length))
            let url = try Self.write(block + tag, "cut.wv")
            defer { DSDBuilder.remove(url) }
            let item = try await MediaItem.loaded(url)
            #expect(item.fileType == .wavPack, "\(length)")
            #expect(
                item.properties.sampleRate == 44100 && item.properties.channels == 2 && item.properties.bitsPerSample == 16, "\(length)")
            #expect(abs((item.properties.duration ?? 0) - 1) < 1e-9, "\(length)")
            #expect(item.metadata.title == "kept", "\(length)")
            #expect(item.warnings.contains { $0.code == .truncated && $0.offset == 4 }, "\(length): \(item.warnings)")
        }
    }

    /// A bad block in the middle: the first block's total holds; the tag is read.
    @Test func aWavPackBlockBrokenInTheMiddleIsReadAround() async throws {
        var stream = (0..<4).flatMap { Self.wavPackBlock(total: 4 * 11025, index: UInt32($0) * 11025) }
        let middle = 2 * (32 + 200)
        stream.replaceSubrange(middle..<middle + 4, with: Array("wvXX".utf8))
        let url = try Self.write(stream + APEBuilder.tag([APEBuilder.text("Artist", "A")]), "middle.wv")
        defer { DSDBuilder.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.artist == "A" && item.properties.sampleRate == 44100)
        #expect(abs((item.properties.duration ?? 0) - 1) < 1e-9)
    }

    /// An 'ID3 ' chunk whose size runs past the end of the file (mutagen
    /// reads the tag by its own header): the tag is read, with a warning at
    /// the chunk's size; a save keeps the old bytes and writes the items.
    @Test func aDSDIFFID3ChunkPastTheEndIsRead() async throws {
        let id3 = DSDBuilder.id3([("TIT2", "Tïtle"), ("TPE1", "Ärtist")])
        var chunk = DSDBuilder.chunk("ID3 ", id3)
        chunk.replaceSubrange(4..<12, with: DSDBuilder.be64(1 << 40))
        let whole = DSDBuilder.dff(after: [chunk])
        let url = try Self.write(whole, "past.dff")
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Tïtle" && item.metadata.artist == "Ärtist")
        let chunkOffset = Int64(whole.count - chunk.count)
        #expect(item.warnings.contains { $0.code == .truncated && $0.offset == chunkOffset + 4 }, "\(item.warnings)")
        #expect(item.properties.sampleRate == 2_822_400)
        #expect(item.isEditable)
        item.metadata.album = "new"
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "Tïtle" && reread.metadata.album == "new")
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(bytes.count > whole.count && bytes.suffix(chunk.count) == chunk[...], "the old chunk's bytes are kept")
    }

    /// A DSF or DSDIFF ID3 tag with a damaged frame after good ones (a frame
    /// size past the tag): the frames before it are read, as mutagen reads
    /// them, with a warning at the damage; a save keeps the tag byte for
    /// byte and refuses ID3 changes (it could not keep the damaged bytes
    /// beside new frames).
    @Test(arguments: ["dsf", "dff"])
    func anID3TagWithADamagedFrameIsReadAround(kind: String) async throws {
        var tag = DSDBuilder.id3([("TIT2", "Tïtle"), ("TPE1", "Ärtist")], padding: 40)
        let damage = tag.count - 40
        tag.replaceSubrange(damage..<damage + 10, with: Array("TALB".utf8) + [0x7F, 0x7F, 0x7F, 0x7F, 0, 0])
        let bytes = kind == "dsf" ? DSDBuilder.dsf(tag: tag) : DSDBuilder.dff(after: [DSDBuilder.chunk("ID3 ", tag)])
        let tagOffset = kind == "dsf" ? bytes.count - tag.count : bytes.count - tag.count - (tag.count & 1)
        let url = try Self.write(bytes, "damaged.\(kind)")
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "Tïtle" && item.metadata.artist == "Ärtist", "\(kind)")
        #expect(item.warnings.contains { $0.offset == Int64(tagOffset + damage) }, "\(kind): \(item.warnings)")
        #expect(item.warnings.contains { $0.offset == Int64(tagOffset) && $0.message.contains("refuses ID3 changes") }, "\(kind)")
        item.metadata.title = "new"
        await #expect(throws: MediaError.self, "\(kind)") { try await item.save() }
        #expect([UInt8](try Data(contentsOf: url)) == bytes, "\(kind): the file is unchanged")
    }

    /// Cut 'ID3 ' and 'PROP' chunks whose sizes are near 2^64: no overflow.
    @Test(arguments: [UInt64.max, UInt64(Int64.max), UInt64(Int64.max) - 11, 1 << 62])
    func hugeSizesOfCutChunksDontOverflow(size: UInt64) throws {
        var id3 = DSDBuilder.chunk("ID3 ", DSDBuilder.id3([("TIT2", "T")]))
        id3.replaceSubrange(4..<12, with: DSDBuilder.be64(size))
        let tagged = try DSDBuilder.parse(DSDBuilder.dff(after: [id3]), name: "huge.dff")
        #expect(tagged.items.count == 1 && tagged.properties.sampleRate == 2_822_400, "\(size)")
        var bytes = DSDBuilder.dff()
        let prop = try #require(bytes.indices.first { Array(bytes[$0..<$0 + 4]) == Array("PROP".utf8) })
        bytes.replaceSubrange(prop + 4..<prop + 12, with: DSDBuilder.be64(size))
        let parsed = try DSDBuilder.parse(bytes, name: "huge.dff")
        #expect(parsed.properties.sampleRate == 2_822_400 && !parsed.warnings.isEmpty, "\(size)")
    }

    /// A DSDIFF file cut inside 'PROP': mutagen reads the rate from 'FS  '.
    /// A save is refused (a rewrite would leave 'PROP' outside the form) and
    /// the file is unchanged.
    @Test func aDSDIFFFileCutInsidePROPGivesWhatItHolds() async throws {
        let whole = DSDBuilder.dff()
        let fs = try #require(whole.indices.first { Array(whole[$0..<$0 + 4]) == Array("FS  ".utf8) })
        let cut = Array(whole.prefix(fs + 16))
        let url = try Self.write(cut, "cut.dff")
        defer { DSDBuilder.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.sampleRate == 2_822_400)
        #expect(!item.warnings.isEmpty)
        item.metadata.title = "T"
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect([UInt8](try Data(contentsOf: url)) == cut)
    }

    /// An AC-3 or E-AC-3 file cut inside its first frame (mutagen reads its
    /// header): recognised, its properties read, the duration estimated, a warning.
    @Test(arguments: ["ac3", "eac3"])
    func aRawStreamCutInsideItsFirstFrameIsRead(kind: String) throws {
        let frame = kind == "ac3" ? StreamBuilder.ac3Frame() : StreamBuilder.eac3Frame()
        for length in [64, frame.count / 2, frame.count - 1] {
            let parsed = try StreamBuilder.parse(Array(frame.prefix(length)), name: "cut.\(kind)")
            #expect(parsed.fileType.identifier == "ac3", "\(kind) \(length)")
            #expect(parsed.properties.sampleRate == 48000, "\(kind) \(length)")
            #expect(parsed.properties.channels == (kind == "ac3" ? 6 : 2), "\(kind) \(length)")
            // 1536 samples a frame (AC-3: 6 blocks of 256; this E-AC-3 frame: 6 blocks too).
            let expected = 1536.0 / 48000 * Double(length) / Double(frame.count)
            #expect(abs((parsed.properties.duration ?? 0) - expected) < 1e-9, "\(kind) \(length)")
            #expect(parsed.warnings.contains { $0.code == .truncated && $0.offset == 0 }, "\(kind) \(length): \(parsed.warnings)")
        }
        // Junk that is no frame stays unrecognised.
        #expect(throws: MediaError.self) { try StreamBuilder.parse([0x0B, 0x77] + [UInt8](repeating: 0xFF, count: 62), name: "x.ac3") }
    }

    /// An ASF header object whose size runs past the end of the file.
    @Test func anASFHeaderPastTheEndIsRead() throws {
        let objects = [
            ASFBuilder.fileProperties(), ASFBuilder.audioStream(), ASFBuilder.contentDescription(["Tïtle", "Äuthor", nil, nil, nil]),
        ]
        let parsed = try ASFBuilder.parse(ASFBuilder.file(objects, headerSize: 1 << 40))
        #expect(parsed.items.contains { $0.key == "Title" && $0.value == .string("Tïtle") })
        #expect(parsed.properties.sampleRate == 44_100)
        #expect(parsed.warnings.contains { $0.offset == 16 }, "\(parsed.warnings)")
    }

    /// An APE tag whose header is damaged but whose footer holds: the items are read.
    @Test func anAPETagWithADamagedHeaderIsReadFromItsFooter() async throws {
        var tag = APEBuilder.tag([APEBuilder.text("Title", "from the footer"), APEBuilder.text("Track", "2/9")])
        tag.replaceSubrange(0..<8, with: Array("XXXXXXXX".utf8))
        let audio = APEBuilder.optimFROG()
        let url = try Self.write(audio + tag, "header.ofr")
        defer { DSDBuilder.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata.title == "from the footer" && item.metadata.trackNumber == 2 && item.metadata.trackCount == 9)
        #expect(item.warnings.contains { $0.offset == Int64(audio.count + tag.count - 32 + 20) }, "\(item.warnings)")
    }

    /// A DSF whose metadata pointer leads past the end of the file, or into the samples.
    @Test(arguments: [UInt64(1) << 62, 1_000_000, 200])
    func aDSFTagPointerThatLeadsNowhereIsReadAround(pointer: UInt64) throws {
        let tag = DSDBuilder.id3([("TIT2", "T")])
        let parsed = try DSDBuilder.parse(DSDBuilder.dsf(tag: tag, pointer: pointer), name: "p.dsf")
        #expect(parsed.properties.sampleRate == 2_822_400 && parsed.properties.channels == 2)
        #expect(parsed.warnings.contains { $0.offset == 20 }, "\(parsed.warnings)")
    }
}
