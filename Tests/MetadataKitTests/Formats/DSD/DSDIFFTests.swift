import Foundation
import Testing

@testable import MetadataKit

private typealias B = DSDBuilder

/// DSDIFF reading and writing on files built from the DSDIFF 1.5 specification.
@Suite struct DSDIFFTests {
    static let fast = SaveOptions(durability: .noSync)

    /// The top-level chunks of a DSDIFF file (walked here, not by the library).
    static func chunks(_ bytes: [UInt8]) -> [(id: String, offset: Int, size: Int)] {
        var result: [(String, Int, Int)] = []
        var offset = 16
        while offset + 12 <= bytes.count {
            let size = Int(bytes[offset + 4..<offset + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            result.append((String(decoding: bytes[offset..<offset + 4], as: UTF8.self), offset, size))
            offset += 12 + size + (size & 1)
        }
        return result
    }

    static func formSize(_ bytes: [UInt8]) -> UInt64 { bytes[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }

    @Test func readsPropertiesTheEditedMasterTextAndTheID3Chunk() async throws {
        let bytes = B.dff(
            channels: 2, rate: 2_822_400, bytes: 2 * 28_224,
            after: [B.diin(title: "DIIN Title", artist: "DIIN Artist"), B.chunk("ID3 ", B.id3([("TIT2", "ID3 Tïtle")]))])
        let url = try B.file(bytes, name: "x.dff")
        defer { B.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .dsdiff && item.isEditable && item.warnings.isEmpty)
        let p = item.properties
        #expect(p.codec == "DSD" && p.channels == 2 && p.sampleRate == 2_822_400 && p.bitsPerSample == 1)
        #expect(p.duration == 2 * 28_224 * 8 / 2 / 2_822_400.0 && p.bitrate == 2 * 2_822_400)
        let m = item.metadata
        #expect(m.title == "ID3 Tïtle" && m.artist == "DIIN Artist")
        #expect(m.items.contains { $0.keySpace == .dsdiff && $0.key == "DITI" && $0.value == .string("DIIN Title") })
    }

    @Test func dstPropertiesComeFromFRTE() throws {
        let frte = B.chunk("FRTE", B.be32(750) + B.be16(75))
        let dst = B.chunk("DST ", frte + B.chunk("DSTF", [UInt8](repeating: 1, count: 100)))
        let body = B.chunk("FVER", B.be32(0x0105_0000)) + B.prop(compression: "DST ") + dst
        let bytes = Array("FRM8".utf8) + B.be64(UInt64(body.count + 4)) + Array("DSD ".utf8) + body
        let parsed = try B.parse(bytes, name: "x.dff")
        #expect(parsed.properties.codec == "DST" && parsed.properties.duration == 10)
        #expect(parsed.properties.bitrate == Int((Double(dst.count - 12) * 8 / 10).rounded()))
    }

    @Test func anID3ChunkIsAddedLastAndTheFormSizeFollows() async throws {
        let original = B.dff(after: [B.chunk("COMT", B.be16(0))])
        let url = try B.file(original, name: "x.dff")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "Néw"
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        #expect(Self.formSize(written) == UInt64(written.count - 12))
        #expect(Self.chunks(written).map(\.id) == ["FVER", "PROP", "DSD ", "COMT", "ID3 "])
        #expect(Array(written.prefix(original.count).dropFirst(12)) == Array(original.dropFirst(12)))
        #expect(try await MediaItem.loaded(url).metadata.title == "Néw")

        var again = try await MediaItem.loaded(url)
        try await again.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect([UInt8](try Data(contentsOf: url)) == original)
    }

    @Test func aChangedTitleGoesToTheID3ChunkAndTheEditedMasterText() async throws {
        let bytes = B.dff(after: [
            B.diin(title: "Old", artist: "Artist"), B.chunk("ID3 ", B.id3([("TIT2", "Old"), ("TALB", "Album")], padding: 64)),
        ])
        let url = try B.file(bytes, name: "x.dff")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A longer new title"
        try await item.save(options: Self.fast)
        let written = [UInt8](try Data(contentsOf: url))
        #expect(Self.formSize(written) == UInt64(written.count - 12))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.title == "A longer new title" && reread.metadata.album == "Album")
        #expect(reread.metadata.items.filter { $0.keySpace == .dsdiff }.map(\.value) == [.string("Artist"), .string("A longer new title")])
        // The EMID local chunk is kept.
        let diin = try #require(Self.chunks(written).first { $0.id == "DIIN" })
        #expect(
            Array(written[(diin.offset + 12)..<(diin.offset + 12 + 12 + 9)])
                == B.chunk("EMID", Array("emid-0001".utf8)).prefix(21).map { $0 })
        // The sound data is where it was and unchanged.
        let sound = try #require(Self.chunks(written).first { $0.id == "DSD " })
        let old = try #require(Self.chunks(bytes).first { $0.id == "DSD " })
        #expect(written[sound.offset..<sound.offset + 12 + sound.size] == bytes[old.offset..<old.offset + 12 + old.size])
    }

    @Test func rawEditedMasterKeysAreWritten() async throws {
        let url = try B.file(B.dff(), name: "x.dff")
        defer { B.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .dsdiff, key: "DIAR", value: .string("Ärtist"), dataType: .utf8))
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.artist == "Ärtist")
        // The new DIIN text also goes to a new ID3 chunk, which most readers read instead.
        #expect(Self.chunks([UInt8](try Data(contentsOf: url))).map(\.id) == ["FVER", "PROP", "DSD ", "DIIN", "ID3 "])
        #expect(reread.metadata.items.contains { $0.keySpace == .id3 && $0.key == "TPE1" && $0.value == .string("Ärtist") })
        var bad = reread
        bad.metadata.items.append(MetadataItem(keySpace: .dsdiff, key: "XXXX", value: .string("x"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await bad.save(options: Self.fast) }
    }

    /// A 'FRM8' size 12 bytes too large (it counted its own header): the
    /// warning gives the file's real numbers.
    @Test func aFormSizeTooLargeIsToldInTheFilesNumbers() throws {
        var bytes = B.dff()
        let size = UInt64(bytes.count)
        bytes.replaceSubrange(4..<12, with: B.be64(size))
        let parsed = try B.parse(bytes, name: "x.dff")
        let warning = try #require(parsed.warnings.first { $0.offset == 4 })
        #expect(warning.message == "the 'FRM8' size \(size) makes the file \(size + 12) bytes long, but it has \(size) (12 bytes missing)")
    }

    @Test func lyingSizes() throws {
        // A FRM8 size larger than the file: a warning, the chunks read.
        let long = try B.parse(B.dff(after: [B.chunk("ID3 ", B.id3([("TIT2", "x")]))], formSize: 1 << 50), name: "x.dff")
        #expect(long.items.count == 1 && long.warnings.contains { $0.offset == 4 })
        // 2^64 − 1 and sizes near it: no overflow.
        for size in [UInt64.max, UInt64.max - 3, UInt64(Int64.max), UInt64(Int64.max) + 1] {
            let parsed = try B.parse(B.dff(formSize: size), name: "x.dff")
            #expect(parsed.properties.sampleRate == 2_822_400, "FRM8 size \(size)")
            let chunk = try B.parse(B.dff(after: [B.chunk("COMT", [0, 0], size: size)]), name: "x.dff")
            #expect(chunk.warnings.contains { $0.code == .truncated }, "chunk size \(size)")
            var sound = B.dff()
            let offset = try #require(Self.chunks(sound).first { $0.id == "DSD " }).offset
            sound.replaceSubrange(offset + 4..<offset + 12, with: B.be64(size))
            let cut = try B.parse(sound, name: "x.dff")
            #expect(!cut.isEditable, "sound size \(size)")
        }
        // A DIIN text count larger than its chunk: no item, a warning, and the chunk kept.
        let diin = B.chunk("DIIN", B.chunk("DITI", B.be32(1000) + Array("short".utf8)))
        let parsed = try B.parse(B.dff(after: [diin]), name: "x.dff")
        #expect(parsed.items.isEmpty && parsed.warnings.contains { $0.code == .sizeOutOfRange })
    }

    /// Every prefix fails with a MediaError or loads; cuts inside the sound
    /// data load read-only.
    @Test func everyPrefix() throws {
        let whole = B.dff(bytes: 64, after: [B.diin(title: "T"), B.chunk("ID3 ", B.id3([("TPE1", "A")]))])
        let sound = try #require(Self.chunks(whole).first { $0.id == "DSD " })
        for length in 0..<whole.count {
            let prefix = Array(whole.prefix(length))
            guard length >= 16 else {
                #expect(RIFFBuilder.code { try B.parse(prefix, name: "x.dff") } != nil, "prefix of \(length) bytes")
                continue
            }
            let parsed = try B.parse(prefix, name: "x.dff")
            let cutInSound = length >= sound.offset + 12 && length < sound.offset + 12 + sound.size
            #expect(parsed.isEditable == !cutInSound, "prefix of \(length) bytes")
            #expect(!parsed.warnings.isEmpty, "prefix of \(length) bytes")
        }
        #expect(try B.parse(whole, name: "x.dff").items.count == 2)
    }

    /// A file cut inside 'CHNL' (or 'FS  ') still gives the fields whose
    /// bytes are there, as mutagen reads a cut file's channel count.
    @Test func aCutPropertyChunkGivesTheFieldsItHolds() throws {
        let whole = B.dff(channels: 6, rate: 2_822_400, bytes: 64)
        let bytes = Array(whole)
        // Find 'CHNL' in the PROP chunk: cut 2 bytes into its data (the channel count whole), then 1 byte in.
        let chnl = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("CHNL".utf8) })
        let two = try B.parse(Array(bytes.prefix(chnl + 12 + 2)), name: "x.dff")
        #expect(two.properties.channels == 6 && two.properties.sampleRate == 2_822_400)
        #expect(two.warnings.contains { $0.code == .truncated && $0.offset == Int64(chnl + 4) })
        let one = try B.parse(Array(bytes.prefix(chnl + 12 + 1)), name: "x.dff")
        #expect(one.properties.channels == nil && one.properties.sampleRate == 2_822_400)
    }

    @Test func seededRandomDamage() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(state: seed)
        let whole = B.dff(bytes: 64, after: [B.diin(title: "T", artist: "A"), B.chunk("ID3 ", B.id3([("TPE1", "A")]))])
        for _ in 0..<300 {
            var bytes = whole
            for _ in 0..<4 {
                let position = Int(random.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            }
            do { _ = try B.parse(bytes, name: "x.dff") } catch is MediaError {} catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
