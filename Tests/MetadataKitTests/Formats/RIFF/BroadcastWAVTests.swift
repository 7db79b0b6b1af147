import Foundation
import Testing

@testable import MetadataKit

private typealias R = RIFFBuilder

/// Broadcast Wave `bext`, `iXML` and `cart` chunks in WAV and in FLAC `riff`
/// blocks: reading the fixtures, writes that keep every other byte, refusals,
/// truncation and hostile chunks.
@Suite struct BroadcastWAVTests {
    static let fast = SaveOptions(durability: .noSync)
    static let valid = TestSupport.fixtures.appendingPathComponent("valid")
    static let recorderWAV = valid.appendingPathComponent("bwf-field-recorder.wav")
    static let recorderFLAC = valid.appendingPathComponent("bwf-field-recorder.flac")

    static func value(_ item: MediaItem, _ space: MetadataKeySpace, _ key: String) -> String? {
        item.metadata.items.first { $0.keySpace == space && $0.key == key }?.value.stringValue
    }

    /// A copy of `url` in a temporary folder.
    static func copy(_ url: URL) throws -> URL {
        try R.file(Array(try Data(contentsOf: url)), ext: url.pathExtension)
    }

    /// The top-level chunks of a RIFF file: ID and payload.
    static func chunks(_ bytes: [UInt8]) -> [(id: String, payload: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var position = 12
        while position + 8 <= bytes.count {
            let id = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            let size =
                Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16 | Int(bytes[position + 7]) << 24
            let end = min(position + 8 + size, bytes.count)
            result.append((id, Array(bytes[position + 8..<end])))
            position = end + (size & 1)
        }
        return result
    }

    static func payload(_ url: URL, _ id: String) throws -> [UInt8] {
        try #require(chunks(Array(try Data(contentsOf: url))).first { $0.id == id }).payload
    }

    // MARK: Reading

    @Test func readsFieldRecorderWAV() async throws {
        let item = try await MediaItem.loaded(Self.recorderWAV)
        #expect(item.warnings.isEmpty)
        let m = item.metadata
        #expect(m[.originator]?.text == "Sound Devices")
        #expect(m[.originatorReference]?.text == "USSDVKL0123456789")
        #expect(m[.originationDate]?.text == "2026-11-30" && m[.originationTime]?.text == "14:05:09")
        #expect(m[.timeReference]?.text == "4868064000")
        #expect(m[.description]?.text == "sSPEED=025.000-ND\r\nsTAKE=3\r\n" && m.comments == nil)
        #expect(m[.project]?.text == "NightShoot" && m[.scene]?.text == "12A" && m[.take]?.text == "3")
        #expect(m[.tape]?.text == "DAY04" && m[.circled]?.text == "TRUE" && m[.note]?.text == "Plane overhead & wind")
        #expect(
            m.title == nil && Self.value(item, .cart, "Title") == "Morning Promo" && Self.value(item, .cart, "Artist") == "Station Voice")
        let expected: [(MetadataKeySpace, String, String)] = [
            (.bext, "Version", "2"), (.bext, "LoudnessValue", "-23.00"), (.bext, "LoudnessRange", "5.40"),
            (.bext, "MaxTruePeakLevel", "-1.50"), (.bext, "MaxMomentaryLoudness", "-18.20"),
            (.bext, "MaxShortTermLoudness", "-20.10"), (.bext, "CodingHistory", "A=PCM,F=96000,W=24,M=stereo,T=MixPre-6 II\r\n"),
            (.bext, "UMID", "060A2B340101010501010D43130000000102030405060708090A0B0C0D0E0F10"),
            (.broadcastWAV, "TimeReferenceSeconds", "50709"),
            (.cart, "Version", "0101"), (.cart, "CutID", "CUT123"), (.cart, "ClientID", "ACME"), (.cart, "Category", "PROMO"),
            (.cart, "OutCue", "...and now the news"), (.cart, "StartDate", "2026-12-01"), (.cart, "EndTime", "23:59:59"),
            (.cart, "ProducerAppID", "MetadataKit tests"), (.cart, "LevelReference", "32768"),
            (.cart, "PostTimer1", "SEGs=441000"), (.cart, "PostTimer2", "INTs=48000"),
            (.cart, "URL", "https://example.com/cut123"), (.cart, "TagText", "<cue>promo</cue>\r\n"),
        ]
        for (space, key, value) in expected {
            #expect(Self.value(item, space, key) == value, "\(space):\(key)")
        }
        #expect(Self.value(item, .cart, "Classification") == nil && Self.value(item, .cart, "PostTimer3") == nil)
        let names = item.metadata.items.first { $0.keySpace == .iXML && $0.key == "TRACK_LIST" }?.value
        #expect(names == .strings(["Boom", "Lav 1"]))
        let document = try #require(Self.value(item, .broadcastWAV, "iXML"))
        #expect(document.hasPrefix("<?xml") && document.hasSuffix("</BWFXML>\n") && document.contains("<TRACK_COUNT>2</TRACK_COUNT>"))
    }

    @Test func flacForeignMetadataGivesTheSameItems() async throws {
        let wav = try await MediaItem.loaded(Self.recorderWAV)
        let flac = try await MediaItem.loaded(Self.recorderFLAC)
        let spaces = BroadcastWAV.keySpaces
        let fromWAV = wav.metadata.items.filter { spaces.contains($0.keySpace) }
        #expect(fromWAV.count > 40)
        #expect(flac.metadata.items.filter { spaces.contains($0.keySpace) } == fromWAV)
        #expect(flac.metadata[.scene]?.text == "12A" && flac.metadata[.originator]?.text == "Sound Devices")
        #expect(flac.metadata.title == nil)
    }

    // MARK: Writing WAV

    @Test func bextEditRewritesOnlyTheChangedFields() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        let before = try Self.payload(url, "bext")
        let order = Self.chunks(Array(try Data(contentsOf: url))).map(\.id)
        var item = try await MediaItem.loaded(url)
        item.metadata[.originator] = .text("Zaxcom")
        item.metadata[.timeReference] = .text("8589934597") // 2^33 + 5: both halves
        item.metadata[.description] = .text("New description")
        try await item.save(options: Self.fast)
        let after = try Self.payload(url, "bext")
        #expect(after.count == before.count)
        #expect(Self.chunks(Array(try Data(contentsOf: url))).map(\.id) == order)
        let changed: [Range<Int>] = [0..<256, 256..<288, 338..<346]
        for index in before.indices where !changed.contains(where: { $0.contains(index) }) {
            #expect(before[index] == after[index], "byte \(index) of bext changed")
        }
        #expect(Array(after[338..<346]) == [5, 0, 0, 0, 2, 0, 0, 0])
        #expect(Array(after[256..<263]) == Array("Zaxcom\0".utf8))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata[.timeReference]?.text == "8589934597")
        #expect(Self.value(reread, .broadcastWAV, "TimeReferenceSeconds") == "89478.485385")
        #expect(reread.metadata[.description]?.text == "New description" && reread.metadata[.originator]?.text == "Zaxcom")
        for id in ["iXML", "cart", "fmt ", "data"] {
            #expect(try Self.payload(url, id) == (try Self.payload(Self.recorderWAV, id)), "\(id)")
        }
    }

    @Test func ixmlEditReplacesOnlyTheElementText() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        let before = try Self.payload(url, "iXML")
        var item = try await MediaItem.loaded(url)
        item.metadata[.scene] = .text("14B & C")
        item.metadata[.note] = nil
        try await item.save(options: Self.fast)
        #expect(item.lastSavePath == .inPlace)
        let after = try Self.payload(url, "iXML")
        #expect(after.count == before.count) // the NUL padding absorbs the growth
        let old = String(decoding: IXML.split(before).text, as: UTF8.self)
        let new = String(decoding: IXML.split(after).text, as: UTF8.self)
        #expect(
            new
                == old.replacingOccurrences(of: "<SCENE>12A</SCENE>", with: "<SCENE>14B &amp; C</SCENE>")
                .replacingOccurrences(of: "<NOTE>Plane overhead &amp; wind</NOTE>", with: "<NOTE></NOTE>"))
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata[.scene]?.text == "14B & C" && reread.metadata[.note] == nil)
        #expect(try Self.payload(url, "bext") == (try Self.payload(Self.recorderWAV, "bext")))
    }

    @Test func ixmlSelfClosingAndMissingElements() throws {
        let document = Array("<BWFXML>\n<NOTE/>\n<SPEED><NOTE>x</NOTE></SPEED>\n</BWFXML>\n".utf8) + [0, 0, 0]
        let items = [
            MetadataItem(
                keySpace: .broadcastWAV, key: "iXML", value: .string(String(decoding: IXML.split(document).text, as: UTF8.self)),
                dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "NOTE", value: .string("hi"), dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "TAKE", value: .string("7"), dataType: .utf8),
        ]
        #expect(IXML.items(of: document, at: 0).items.filter { $0.keySpace == .iXML }.isEmpty)
        let payload = try #require(try IXML.payload(for: items, old: document))
        #expect(
            String(decoding: IXML.split(payload).text, as: UTF8.self)
                == "<BWFXML>\n<NOTE>hi</NOTE>\n<SPEED><NOTE>x</NOTE></SPEED>\n<TAKE>7</TAKE>\n</BWFXML>\n")
        #expect(IXML.split(payload).padding.isEmpty)
    }

    @Test func cartEditKeepsReservedAndOtherFields() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        let before = try Self.payload(url, "cart")
        var item = try await MediaItem.loaded(url)
        item.metadata.items.removeAll { $0.keySpace == .cart && ["CutID", "PostTimer2"].contains($0.key) }
        item.metadata.items.append(MetadataItem(keySpace: .cart, key: "CutID", value: .string("CUT999"), dataType: .utf8))
        item.metadata.items.append(MetadataItem(keySpace: .cart, key: "PostTimer3", value: .string("AUDs=12"), dataType: .utf8))
        try await item.save(options: Self.fast)
        let after = try Self.payload(url, "cart")
        let cutID = 4 + 2 * 64
        let timers = 4 + 7 * 64 + 36 + 3 * 64 + 4
        for index in before.indices
        where !(cutID..<cutID + 64).contains(index) && !(timers + 8..<timers + 24).contains(index) {
            #expect(before[index] == after[index], "byte \(index) of cart changed")
        }
        #expect(Array(after[timers + 8..<timers + 24]) == [UInt8](repeating: 0, count: 8) + Array("AUDs".utf8) + [12, 0, 0, 0])
        let reread = try await MediaItem.loaded(url)
        #expect(Self.value(reread, .cart, "CutID") == "CUT999" && Self.value(reread, .cart, "PostTimer3") == "AUDs=12")
        #expect(Self.value(reread, .cart, "PostTimer2") == nil && Self.value(reread, .cart, "TagText") == "<cue>promo</cue>\r\n")
    }

    @Test func newChunksOnAPlainWAV() async throws {
        let url = try R.file(R.simpleWAV(info: [("INAM", "T")]), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items += [
            MetadataItem(keySpace: .bext, key: "Description", value: .string("made here"), dataType: .utf8),
            MetadataItem(keySpace: .bext, key: "LoudnessValue", value: .string("-16.5"), dataType: .utf8),
            MetadataItem(keySpace: .iXML, key: "SCENE", value: .string("1"), dataType: .utf8),
        ]
        try await item.save(options: Self.fast)
        let reread = try await MediaItem.loaded(url)
        // Loudness needs version 2, which the new chunk then gets.
        #expect(Self.value(reread, .bext, "Version") == "2" && Self.value(reread, .bext, "LoudnessValue") == "-16.50")
        #expect(reread.metadata[.description]?.text == "made here" && reread.metadata[.scene]?.text == "1" && reread.metadata.title == "T")
        #expect(try Self.payload(url, "bext").count == 602)
        #expect(Self.value(reread, .broadcastWAV, "iXML")?.contains("<SCENE>1</SCENE>") == true)
    }

    @Test func removingEveryItemRemovesTheChunk() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.removeAll { $0.keySpace == .cart }
        try await item.save(options: Self.fast)
        #expect(Self.chunks(Array(try Data(contentsOf: url))).map(\.id) == ["fmt ", "bext", "iXML", "data"])
    }

    @Test func removingAllTagsRemovesTheChunks() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect(Self.chunks(Array(try Data(contentsOf: url))).map(\.id) == ["fmt ", "data"])
        #expect(try Self.payload(url, "data") == (try Self.payload(Self.recorderWAV, "data")))
    }

    @Test func refusedWritesChangeNothing() async throws {
        let url = try Self.copy(Self.recorderWAV)
        defer { R.remove(url) }
        let original = try Data(contentsOf: url)
        func attempt(_ edit: (inout MediaItem) -> Void) async throws {
            var item = try await MediaItem.loaded(url)
            edit(&item)
            await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
            #expect(try Data(contentsOf: url) == original)
        }
        func set(_ item: inout MediaItem, _ space: MetadataKeySpace, _ key: String, _ value: MetadataValue) {
            item.metadata.items.removeAll { $0.keySpace == space && $0.key == key }
            item.metadata.items.append(MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8))
        }
        try await attempt { $0.metadata[.originator] = .text(String(repeating: "x", count: 33)) }
        try await attempt { $0.metadata[.timeReference] = .text("soon") }
        try await attempt { set(&$0, .iXML, "TRACK_LIST", .strings(["A", "B"])) }
        try await attempt { set(&$0, .broadcastWAV, "TimeReferenceSeconds", .string("1")) }
        try await attempt { set(&$0, .bext, "LoudnessRange", .string("400")) }
        try await attempt { set(&$0, .bext, "UMID", .string("XYZ")) }
        try await attempt { set(&$0, .cart, "PostTimer1", .string("TOOLONG=1")) }
        try await attempt { set(&$0, .cart, "Nonsense", .string("1")) }
        try await attempt { set(&$0, .iXML, "SPEED", .string("1")) }
    }

    // MARK: FLAC

    @Test func flacSaveKeepsRiffBlocksAndRefusesToChangeThem() async throws {
        let url = try Self.copy(Self.recorderFLAC)
        defer { R.remove(url) }
        func riffBlocks() throws -> [[UInt8]] {
            let source = try FileSource(url: url)
            let layout = try FLACLayout(parsing: source)
            return try layout.blocks.filter { $0.kind == .application }.map { try source.getBytes(at: $0.bodyOffset, count: $0.length) }
        }
        let before = try riffBlocks()
        #expect(before.count == 6)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "FLAC title"
        try await item.save(options: Self.fast)
        #expect(try riffBlocks() == before)
        var again = try await MediaItem.loaded(url)
        #expect(again.metadata.title == "FLAC title" && again.metadata[.scene]?.text == "12A")
        again.metadata.items.removeAll { $0.keySpace == .bext && $0.key == "Originator" }
        again.metadata.items.append(MetadataItem(keySpace: .bext, key: "Originator", value: .string("x"), dataType: .utf8))
        let error = await #expect(throws: MediaError.self) { try await again.save(options: Self.fast) }
        #expect(error?.code == .unsupportedFeature && error?.reason.contains("bext:Originator") == true)
        #expect(try riffBlocks() == before)
        // A field that only a bext chunk holds is refused the same way.
        var third = try await MediaItem.loaded(url)
        third.metadata[.originator] = .text("y")
        await #expect(throws: MediaError.self) { try await third.save(options: Self.fast) }
        #expect(try riffBlocks() == before)
    }

    // MARK: Damage

    @Test func everyPrefixOfTheChunksReadsWithoutCrashing() throws {
        let bytes = Array(try Data(contentsOf: Self.recorderWAV))
        for (id, payload) in Self.chunks(bytes) where BroadcastWAV.ids.contains(FourCC(id) ?? "    ") {
            for length in 0...payload.count {
                let read = BroadcastWAV.items(of: FourCC(id)!, payload: Array(payload[..<length]), at: 100, sampleRate: 96_000)
                let items = try #require(read).items
                if id == "bext", length < 602 { #expect(read?.warnings.first?.offset == 100) }
                if id == "iXML", length > 0, length < IXML.split(payload).text.count {
                    // A cut document: a warning, or (cut inside the last end tag's name) none.
                    #expect(items.contains { $0.key == "iXML" })
                }
            }
        }
    }

    @Test(arguments: [recorderWAV, recorderFLAC])
    func everyPrefixOfTheFileLoadsOrFailsCleanly(_ fixture: URL) async throws {
        let bytes = Array(try Data(contentsOf: fixture))
        let url = try R.file([], ext: fixture.pathExtension)
        defer { R.remove(url) }
        for length in stride(from: 0, to: bytes.count, by: 7) {
            try Data(bytes[..<length]).write(to: url)
            var item = MediaItem(url: url)
            do {
                try await item.load()
            } catch {
                continue
            }
            for warning in item.warnings { #expect((0...Int64(length)).contains(warning.offset ?? 0)) }
        }
    }

    @Test func hostileChunksWarnWithTheirOffset() async throws {
        var description = [UInt8](repeating: 0, count: 602)
        description.replaceSubrange(0..<4, with: [0x43, 0xE9, 0xFF, 0x41]) // not UTF-8: read as ISO 8859-1
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        let wav = R.wave([
            R.chunk("fmt ", R.fmt()), R.chunk("bext", description), R.chunk("iXML", Array("<BWFXML><SCENE>1</SCENE>\(deep)</BWFXML>".utf8)),
            R.chunk("cart", Array("0101".utf8)), R.chunk("data", R.samples(40)),
        ])
        let url = try R.file(wav, ext: "wav")
        defer { R.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.metadata[.description]?.text == "Cé\u{FF}A")
        #expect(item.metadata[.scene]?.text == "1")
        let chunkOffsets = Self.offsets(wav)
        let ixmlWarning = try #require(item.warnings.first { $0.message.contains("iXML") })
        #expect(ixmlWarning.offset == chunkOffsets["iXML"]! + 8 + 24 + 63 * 3) // the 64th level
        #expect(item.warnings.contains { $0.message.contains("'cart'") && $0.offset == chunkOffsets["cart"]! + 8 })

        // A chunk claiming more than the file: the walker reads around it, the items too.
        let huge = R.wave([R.chunk("fmt ", R.fmt()), R.chunk("data", R.samples(40)), R.chunk("bext", Array("cut".utf8), size: 0xFFFF_FF00)])
        let hugeURL = try R.file(huge, ext: "wav")
        defer { R.remove(hugeURL) }
        let read = try await MediaItem.loaded(hugeURL)
        #expect(!read.warnings.isEmpty)
    }

    @Test func flacRiffBlockLargerThanItsChunk() throws {
        // A `riff` block whose chunk says more bytes than the block holds.
        var body = Array("riff".utf8) + Array("bext".utf8) + R.le32(5000) + Array("Desc".utf8)
        body += [UInt8](repeating: 0, count: 10)
        let read = try FLACForeignMetadata.items(
            layout: FLACLayout(markerOffset: 0, blocks: [FLACBlock(type: 2, isLast: true, offset: 0, length: body.count)], audioStart: 0),
            source: FileSource(bytes: [0, 0, 0, 0] + body, path: "riff.flac"), sampleRate: 48_000)
        #expect(read.items.first?.value.stringValue == "Desc")
        #expect(read.warnings.first?.offset == 12)
    }

    static func offsets(_ bytes: [UInt8]) -> [String: Int64] {
        var result: [String: Int64] = [:]
        var position = 12
        for (id, payload) in chunks(bytes) {
            result[id] = result[id] ?? Int64(position)
            position += 8 + payload.count + (payload.count & 1)
        }
        return result
    }
}
