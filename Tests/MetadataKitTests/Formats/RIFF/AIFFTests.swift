import Foundation
import Testing

@testable import MetadataKit

private typealias R = RIFFBuilder

/// AIFF and AIFF-C reading and writing on synthetic files.
@Suite struct AIFFTests {
    static let fast = SaveOptions(durability: .noSync)

    static func simpleAIFF(text: [(String, String)] = [], frames: UInt32 = 100, after: [[UInt8]] = []) -> [UInt8] {
        R.aiff(text.map { R.text($0.0, $0.1) } + [R.comm(frames: frames), R.ssnd(Int(frames) * 4)] + after)
    }

    @Test func decodesEightyBitSampleRates() {
        for rate: UInt64 in [8000, 11_025, 22_050, 44_100, 48_000, 96_000, 192_000, 1] {
            #expect(AIFFCommon.extended(R.extended(rate)) == Double(rate))
        }
        #expect(AIFFCommon.extended([0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]) == 44_100)
        // 0.5 = 2^-1: exponent 16382, integer bit set.
        #expect(AIFFCommon.extended([0x3F, 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0]) == 0.5)
        #expect(AIFFCommon.extended([UInt8](repeating: 0, count: 10)) == 0)
        #expect(AIFFCommon.extended([0x7F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .infinity)
        #expect(AIFFCommon.extended([0xC0, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]) == -44_100)
    }

    @Test func readsPropertiesAndTextChunks() async throws {
        let url = try R.file(
            Self.simpleAIFF(
                text: [
                    ("NAME", "Name"), ("AUTH", "Author"), ("(c) ", "2020 Someone"),
                    ("ANNO", "First"), ("ANNO", "Second"),
                ], frames: 44_100), ext: "aiff")
        defer { R.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .aiff && item.isEditable)
        #expect(item.properties.codec == "PCM" && item.properties.channels == 2 && item.properties.sampleRate == 44_100)
        #expect(item.properties.bitsPerSample == 16 && item.properties.duration == 1 && item.properties.bitrate == 1_411_200)
        let m = item.metadata
        #expect(m.title == "Name" && m.artist == "Author" && m.comments == "First")
        #expect(m.items.map(\.key) == ["NAME", "AUTH", "(c) ", "ANNO", "ANNO"])
        #expect(m.items.allSatisfy { $0.keySpace == .aiff })
    }

    @Test(
        arguments: [
            ("NONE", "PCM", 16), ("sowt", "PCM", 16), ("fl32", "PCM float", 32), ("FL64", "PCM float", 64),
            ("ulaw", "mu-law", nil), ("ima4", "IMA ADPCM", nil), ("QDM2", "QDesign 2", nil), ("abcd", "abcd", nil),
        ] as [(String, String, Int?)])
    func aifcCompressionTypes(type: String, codec: String, bits: Int?) throws {
        let parsed = try R.parse(
            R.aiff(
                [
                    R.chunk("FVER", R.be32(0xA280_5140), bigEndian: true),
                    R.comm(frames: 8000, bits: 16, rate: 8000, compression: type, name: "some name"),
                    R.ssnd(2000),
                ], type: "AIFC"), ext: "aifc")
        #expect(parsed.properties.codec == codec)
        #expect(parsed.properties.bitsPerSample == bits)
        #expect(parsed.properties.duration == 1)
        #expect(parsed.properties.bitrate == (bits.map { 8000 * 2 * $0 } ?? 2000 * 8))
    }

    @Test func id3ChunkWinsOverTextChunks() throws {
        let parsed = try R.parse(
            Self.simpleAIFF(
                text: [("NAME", "Text name"), ("ANNO", "Note")],
                after: [R.chunk("ID3 ", R.id3([("TIT2", "ID3 name")]), bigEndian: true)]), ext: "aiff")
        let m = Metadata(items: parsed.items)
        #expect(m.title == "ID3 name" && m.comments == "Note")
    }

    @Test func wrongAndHostileSizesFailCleanly() throws {
        let cases: [(String, [UInt8], MediaError.Code)] = [
            ("COMM 0xFFFFFFFF", R.aiff([R.chunk("COMM", [0, 1], bigEndian: true, size: 0xFFFF_FFFF), R.ssnd(8)]), .truncated),
            ("no COMM", R.aiff([R.ssnd(400)]), .malformed),
            ("zero rate", R.aiff([R.comm(rate: 0), R.ssnd(400)]), .malformed),
            ("AIFC COMM without type", R.aiff([R.comm(), R.ssnd(400)], type: "AIFC"), .malformed),
        ]
        for (name, bytes, code) in cases {
            #expect(R.code { try R.parse(bytes, ext: "aiff") } == code, "\(name)")
        }
        #expect(try R.parse(R.aiff([R.comm(frames: 0)]), ext: "aiff").properties.duration == 0)
        // Damage that is read around (RIFFAIFFDamageTests has a test per class).
        let damaged: [(String, [UInt8], MediaError.Code, Int64)] = [
            ("chunk past FORM", R.aiff([R.comm(), R.ssnd(400)], formSize: 40), .sizeOutOfRange, 38),
            ("FORM past EOF", R.aiff([R.comm(), R.ssnd(400)], formSize: 0x7FFF_FFFF), .sizeOutOfRange, 4),
            ("frames but no SSND", R.aiff([R.comm()]), .malformed, 12),
        ]
        for (name, bytes, code, offset) in damaged {
            let parsed = try R.parse(bytes, ext: "aiff")
            #expect(parsed.warnings.map(\.code) == [code] && parsed.warnings.first?.offset == offset, "\(name)")
            #expect(parsed.isEditable && parsed.properties.duration == 100.0 / 44_100, "\(name)")
        }
    }

    /// Every prefix of a small file fails or loads with a warning: cuts
    /// inside `SSND` load read-only; cuts after `COMM` load editable.
    @Test func everyPrefixOfASmallFile() throws {
        let whole = R.aiff([
            R.text("NAME", "Odd"), R.comm(frames: 16), R.ssnd(64), R.chunk("ID3 ", R.id3([("TPE1", "A")]), bigEndian: true),
        ])
        let soundPayload = 12 + 12 + 26 + 8
        #expect(try R.parse(whole, ext: "aiff").items.count == 2)
        for length in 0..<whole.count {
            let prefix = Array(whole.prefix(length))
            if (soundPayload..<soundPayload + 72).contains(length) {
                let parsed = try R.parse(prefix, ext: "aiff")
                #expect(!parsed.isEditable && parsed.items.count == 1)
                #expect(parsed.warnings.map(\.code) == [.truncated])
            } else if length >= soundPayload - 8 {
                // After COMM: a chunk cut off, a FORM size past the end, frames without SSND.
                let parsed = try R.parse(prefix, ext: "aiff")
                #expect(parsed.isEditable && !parsed.warnings.isEmpty, "prefix of \(length) bytes")
                #expect(parsed.items.count == 1, "prefix of \(length) bytes")
            } else {
                #expect(R.code { try R.parse(prefix, ext: "aiff") } != nil, "prefix of \(length) bytes")
            }
        }
    }

    func save(_ bytes: [UInt8], _ change: (inout Metadata) -> Void) async throws -> (url: URL, plan: FileEditPlan, item: MediaItem) {
        let url = try R.file(bytes, ext: "aiff")
        var item = try await MediaItem.loaded(url)
        let loaded = item.metadata
        change(&item.metadata)
        let items = try MetadataChanges().resolvedItems(loaded: loaded, edited: item.metadata, keySpaces: AIFFEditPlanner.keySpaces)
        let plan = try AIFFEditPlanner.plan(FileSource(url: url), items, Self.fast)
        try await item.save(options: Self.fast)
        return (url, plan, item)
    }

    static func soundPayload(_ url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        let sound = try #require(try AIFFStructure(parsing: source).structure.first("SSND"))
        return try source.getBytes(at: sound.payloadOffset, count: Int(sound.size))
    }

    @Test func textEditsInPlaceOrRewriteAndUnknownChunksKept() async throws {
        let mark = R.chunk("MARK", [0, 0, 1], bigEndian: true)
        let original = R.aiff([R.text("NAME", "Title"), R.text("ANNO", "a"), R.text("ANNO", "b"), R.comm(), mark, R.ssnd(400)])
        let same = try await save(original) { $0.title = "Tidle" }
        defer { R.remove(same.url) }
        guard case .inPlace(let patches) = same.plan else {
            Issue.record("expected in place: \(same.plan)")
            return
        }
        #expect(patches.map(\.bytes.count) == [1])

        let grown = try await save(original) {
            $0.title = "A longer title"
            $0.comments = "one comment"
        }
        defer { R.remove(grown.url) }
        guard case .rewrite = grown.plan else {
            Issue.record("expected a rewrite: \(grown.plan)")
            return
        }
        #expect(try R.chunkIDs(grown.url) == ["NAME", "ANNO", "COMM", "MARK", "SSND"])
        #expect(grown.item.metadata.title == "A longer title" && grown.item.metadata.comments == "one comment")
        let bytes = [UInt8](try Data(contentsOf: grown.url))
        #expect(bytes.count >= 12 && bytes[12...].starts(with: R.text("NAME", "A longer title")))
        #expect(try Self.soundPayload(grown.url) == Self.soundPayload(same.url))
        #expect(Data(bytes).range(of: Data(mark)) != nil)
    }

    @Test func id3AtTheEndIsATailEditAndNewFieldsGoToID3() async throws {
        let result = try await save(Self.simpleAIFF(text: [("NAME", "Title")])) {
            $0.album = "Album"
            $0.title = "T2345"
        }
        defer { R.remove(result.url) }
        guard case .patchedTail(let patches, _, _) = result.plan else {
            Issue.record("expected a tail edit: \(result.plan)")
            return
        }
        #expect(patches.contains { (4..<8).contains($0.offset) }) // the FORM size
        #expect(try R.chunkIDs(result.url) == ["NAME", "COMM", "SSND", "ID3 "])
        #expect(result.item.metadata.items.map(\.key) == ["NAME", "TALB"])
        #expect(result.item.metadata.title == "T2345" && result.item.metadata.album == "Album")

        var item = result.item
        try await item.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect(try R.chunkIDs(result.url) == ["COMM", "SSND"])
    }

    @Test func formOverFourGiBIsRefused() throws {
        #expect(R.code { try IFFEditPlanner.containerSize(chunksLength: 1 << 32, format: "AIFF") } == .unsupportedFeature)
        let items = [MetadataItem(keySpace: .aiff, key: "COMM", value: .string("x"), dataType: .utf8)]
        let url = try R.file(Self.simpleAIFF(), ext: "aiff")
        defer { R.remove(url) }
        #expect(R.code { try AIFFEditPlanner.plan(FileSource(url: url), items, Self.fast) } == .invalidValue)
    }
}
