import Foundation
import Testing

@testable import MetadataKit

private typealias R = RIFFBuilder

/// WAV reading and writing on synthetic files: properties, INFO and ID3
/// chunks, sizes, truncation, RF64, and the layout of saves.
@Suite struct WAVTests {
    static let fast = SaveOptions(durability: .noSync)

    // MARK: Reading

    @Test func readsPCMPropertiesAndInfo() async throws {
        let url = try R.file(
            R.simpleWAV(
                info: [
                    ("INAM", "Title"), ("IART", "Artist"), ("IPRD", "Album"), ("ICMT", "Note"),
                    ("IGNR", "Jazz"), ("ICRD", "2021-04-05"), ("IPRT", "7"), ("ISFT", "Tool"),
                ],
                dataBytes: 44_100 * 4), ext: "wav")
        defer { R.remove(url) }
        let item = try await MediaItem.loaded(url)
        #expect(item.fileType == .wav)
        #expect(item.isEditable)
        #expect(item.properties.codec == "PCM")
        #expect(item.properties.channels == 2)
        #expect(item.properties.sampleRate == 44_100)
        #expect(item.properties.bitsPerSample == 16)
        #expect(item.properties.bitrate == 1_411_200)
        #expect(item.properties.duration == 1.0)
        let m = item.metadata
        #expect(m.title == "Title" && m.artist == "Artist" && m.album == "Album" && m.comments == "Note")
        #expect(m.genre?.name == "Jazz" && m.date == "2021-04-05" && m.trackNumber == 7)
        #expect(m.items.contains(MetadataItem(keySpace: .riff, key: "ISFT", value: .string("Tool"), dataType: .utf8)))
        #expect(m.items.allSatisfy { $0.keySpace == .riff })
    }

    @Test func codecsFromFormatTagsAndExtensibleGUIDs() throws {
        func parsed(_ fmt: [UInt8], fact: UInt32? = nil) throws -> MediaProperties {
            var chunks = [fmt]
            if let fact { chunks.append(R.chunk("fact", R.le32(fact))) }
            chunks.append(R.chunk("data", R.samples(9600)))
            return try R.parse(R.wave(chunks)).properties
        }
        let float = try parsed(R.fmt(tag: 3, channels: 1, rate: 48_000, bits: 32))
        #expect(float.codec == "PCM float" && float.bitsPerSample == 32 && float.duration == 0.05)
        let extensible = try parsed(R.extensibleFmt(subTag: 1))
        #expect(extensible.codec == "PCM" && extensible.bitsPerSample == 24 && extensible.channels == 2)
        #expect(extensible.duration == 9600.0 / 8 / 48_000)
        #expect(try parsed(R.extensibleFmt(subTag: 3, validBits: 32)).codec == "PCM float")
        // A compressed format: duration from `fact`.
        let alaw = try parsed(R.fmt(tag: 6, channels: 1, rate: 8000, bits: 8), fact: 4000)
        #expect(alaw.codec == "A-law" && alaw.duration == 0.5)
        #expect(try parsed(R.fmt(tag: 0x1234, channels: 1, rate: 8000, bits: 8)).codec == "WAVE format 0x1234")
        // A non-standard GUID is shown as such.
        var odd = R.extensibleFmt(subTag: 1)
        odd[odd.count - 1] = 0x72
        #expect(try parsed(odd).codec?.hasPrefix("Extensible 00000001-0000-0010-8000-00AA00389B72") == true)
    }

    @Test func id3ChunkWinsOverInfo() async throws {
        let tag = R.id3([("TIT2", "ID3 title"), ("TPE1", "ID3 artist")])
        let url = try R.file(
            R.simpleWAV(info: [("INAM", "INFO title"), ("IPRD", "INFO album")], after: [R.chunk("id3 ", tag)]),
            ext: "wav")
        defer { R.remove(url) }
        let m = try await MediaItem.loaded(url).metadata
        #expect(m.title == "ID3 title" && m.artist == "ID3 artist" && m.album == "INFO album")
        #expect(m.items.map(\.keySpace) == [.riff, .riff, .id3, .id3])
        // "ID3 " (upper case) is read the same.
        let upper = try R.parse(R.simpleWAV(after: [R.chunk("ID3 ", tag)]))
        #expect(upper.items.map(\.key) == ["TIT2", "TPE1"])
    }

    @Test func oddChunksWithPadBytesAndLatin1Text() throws {
        let latin1 = R.chunk(
            "LIST",
            Array("INFO".utf8) + R.chunk("INAM", [0x43, 0x61, 0x66, 0xE9, 0]) + R.chunk("IART", Array("Odd".utf8))
                + R.chunk("ICMT", Array("Text\0old junk".utf8)))
        let bytes = R.wave([
            R.fmt(), R.chunk("abcd", [1, 2, 3]), latin1, R.chunk("data", R.samples(401)), R.chunk("zzzz", [9], pad: false),
        ])
        let parsed = try R.parse(bytes)
        #expect(
            parsed.items == [
                MetadataItem(keySpace: .riff, key: "INAM", value: .string("Café"), dataType: .latin1),
                MetadataItem(keySpace: .riff, key: "IART", value: .string("Odd"), dataType: .utf8),
                MetadataItem(keySpace: .riff, key: "ICMT", value: .string("Text"), dataType: .utf8),
            ])
        #expect(parsed.properties.duration == Double(401 / 4) / 44_100)
    }

    static let infoChunk = R.info([("INAM", "Only Info")])

    @Test func wrongAndHostileSizesFailCleanly() throws {
        let data = R.chunk("data", R.samples(40))
        let cases: [(String, [UInt8], MediaError.Code)] = [
            ("fmt 0xFFFFFFFF", R.wave([R.chunk("fmt ", R.samples(16), size: 0xFFFF_FFFF), data]), .truncated),
            ("no fmt", R.wave([data]), .malformed),
            ("zero channels", R.wave([R.fmt(channels: 0), data]), .malformed),
            ("short fmt", R.wave([R.chunk("fmt ", [1, 0, 2, 0]), data]), .malformed),
            ("RF64 without ds64", R.wave([R.fmt(), data], riffSize: 0xFFFF_FFFF, form: "RF64"), .malformed),
        ]
        for (name, bytes, code) in cases {
            #expect(R.code { try R.parse(bytes) } == code, "\(name)")
        }
        // Damage that is read around (RIFFAIFFDamageTests has a test per class): a warning, the code, its offset.
        let damaged: [(String, [UInt8], [MediaError.Code], Int64, Int)] = [
            ("chunk past RIFF end", R.wave([R.fmt(), data], riffSize: 40), [.sizeOutOfRange], 36, 10),
            // The 2 bytes of the tag's body in the chunk can't be read as frames: the chunk is kept as it is.
            (
                "ID3 tag larger than its chunk",
                R.simpleWAV(after: [
                    R.chunk("id3 ", Array(R.id3([("TIT2", "x")]).prefix(12))),
                    R.chunk("zzzz", R.samples(64)),
                ]),
                [.sizeOutOfRange, .malformed], 12 + 24 + 408 + 8 + 6, 100
            ),
            ("RIFF size past EOF", R.wave([R.fmt(), data], riffSize: 0x7FFF_FFFF), [.sizeOutOfRange], 4, 10),
        ]
        for (name, bytes, codes, offset, frames) in damaged {
            let parsed = try R.parse(bytes)
            #expect(parsed.warnings.map(\.code) == codes, "\(name)")
            #expect(parsed.warnings.first?.offset == offset, "\(name)")
            #expect(parsed.isEditable && parsed.properties.duration == Double(frames) / 44_100, "\(name)")
        }
        // An INFO subchunk past its list: read around with a warning at it, the file read-only (RIFFAIFFDamageTests).
        let pastList = try R.parse(
            R.wave([R.fmt(), R.chunk("LIST", Array("INFO".utf8) + R.le32(0) + Array("INAM".utf8) + R.le32(100) + [65, 0]), data]))
        #expect(pastList.warnings.map(\.code) == [.sizeOutOfRange] && pastList.warnings.first?.offset == 12 + 24 + 12)
        #expect(!pastList.isEditable && pastList.items.isEmpty && pastList.properties.duration == 10 / 44_100)
        // No data chunk: the properties of fmt, 0 s, a warning, read-only (as mutagen reads it; exiftool's RIFF.wav).
        let noData = try R.parse(R.wave([R.fmt(), Self.infoChunk]))
        #expect(noData.warnings.map(\.code) == [.malformed] && noData.warnings.first?.offset == 12 + 24 + Int64(Self.infoChunk.count))
        #expect(!noData.isEditable && noData.properties.duration == 0 && noData.properties.sampleRate == 44_100)
        #expect(noData.items.map(\.key) == ["INAM"])
        // 0xFFFFFFFF sizes on the data chunk of a file whose RIFF size is right: refused too.
        #expect(R.code { try R.parse(R.wave([R.fmt(), R.chunk("data", R.samples(40), size: 0xFFFF_FFFF)])) } == .truncated)
    }

    /// Every prefix of a small file fails or loads with a warning: cuts
    /// inside `data` load read-only with the frames present; cuts after it
    /// (a RIFF size larger than the file, a chunk cut off) load editable.
    @Test func everyPrefixOfASmallFile() async throws {
        let whole = R.simpleWAV(
            info: [("INAM", "Title"), ("IART", "A")], dataBytes: 64,
            after: [R.chunk("id3 ", R.id3([("TALB", "Album")]))])
        let dataPayload = 12 + 24 + R.info([("INAM", "Title"), ("IART", "A")]).count + 8
        #expect(try R.parse(whole).items.count == 3)
        for length in 0..<whole.count {
            let prefix = Array(whole.prefix(length))
            if (dataPayload..<dataPayload + 64).contains(length) {
                let parsed = try R.parse(prefix)
                #expect(!parsed.isEditable)
                #expect(parsed.properties.duration == Double((length - dataPayload) / 4) / 44_100)
                #expect(parsed.items.count == 2)
                #expect(parsed.warnings.map(\.code) == [.truncated])
            } else if length >= dataPayload + 64 {
                let parsed = try R.parse(prefix)
                #expect(parsed.isEditable && parsed.items.count == 2, "prefix of \(length) bytes")
                #expect(!parsed.warnings.isEmpty, "prefix of \(length) bytes")
            } else if let parsed = try? R.parse(prefix) {
                // Whole chunks before `data` (fmt at least): no audio, read-only, 0 s.
                #expect(length >= 36 && !parsed.isEditable && parsed.properties.duration == 0, "prefix of \(length) bytes")
            } else {
                #expect(R.code { try R.parse(prefix) } != nil, "prefix of \(length) bytes")
            }
        }
        // A truncated file is never written.
        let url = try R.file(Array(whole.prefix(dataPayload + 10)), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "New"
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
    }

    // MARK: RF64 / BW64

    static func rf64(form: String = "RF64", dataBytes: Int = 400, declaredData: UInt64? = nil, after: [[UInt8]] = []) -> [UInt8] {
        let fmt = R.fmt()
        let data = R.chunk("data", R.samples(dataBytes), size: 0xFFFF_FFFF)
        let rest = after.flatMap { $0 }
        let riffSize = UInt64(4 + 36 + fmt.count + data.count + rest.count)
        let ds64 = R.chunk("ds64", R.le64(riffSize) + R.le64(declaredData ?? UInt64(dataBytes)) + R.le64(UInt64(dataBytes / 4)) + R.le32(0))
        return Array(form.utf8) + R.le32(0xFFFF_FFFF) + Array("WAVE".utf8) + ds64 + fmt + data + rest
    }

    @Test(arguments: ["RF64", "BW64"])
    func rf64SizesComeFromDS64AndSurviveASave(form: String) async throws {
        let url = try R.file(Self.rf64(form: form, dataBytes: 4 * 4410), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.properties.duration == 0.1)
        item.metadata.title = "Big"
        try await item.save(options: Self.fast)
        #expect(item.metadata.title == "Big")
        #expect(item.properties.duration == 0.1)
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Array(bytes[0..<8]) == Array(form.utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
        let riffSize = bytes[20..<28].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(riffSize == UInt64(bytes.count - 8))
        #expect(try R.chunkIDs(url).prefix(3) == ["ds64", "fmt ", "data"])
        // ds64 data size past the end of the file: refused cleanly.
        #expect(R.code { try R.parse(Self.rf64(form: form, declaredData: 1 << 40)) } == .truncated)
    }

    /// A chunk other than `data` whose 32-bit size is 0xFFFFFFFF takes its
    /// size from the `ds64` table; without an entry, the walk fails cleanly.
    @Test func ds64TableSizesOtherChunks() throws {
        let bext = R.chunk("bext", R.samples(10), size: 0xFFFF_FFFF)
        let fmt = R.fmt(), data = R.chunk("data", R.samples(400))
        func file(table: [UInt8], entries: UInt32) -> [UInt8] {
            let ds64Payload =
                R.le64(UInt64(4 + 36 + table.count + fmt.count + bext.count + data.count)) + R.le64(400) + R.le64(100)
                + R.le32(entries) + table
            return Array("RF64".utf8) + R.le32(0xFFFF_FFFF) + Array("WAVE".utf8) + R.chunk("ds64", ds64Payload) + fmt + bext + data
        }
        let good = try R.parse(file(table: Array("bext".utf8) + R.le64(10), entries: 1))
        #expect(good.properties.duration == 100.0 / 44_100)
        #expect(R.code { try R.parse(file(table: Array("junk".utf8) + R.le64(10), entries: 1)) } == .truncated)
        #expect(R.code { try R.parse(file(table: [], entries: 1_000_000)) } == .sizeOutOfRange)
    }

    /// A sparse file just under 4 GiB: adding a tag would need a size over
    /// 0xFFFFFFFF, so the save throws instead of wrapping; in RF64 it works.
    @Test func noWrappedSizesPastFourGiB() throws {
        #expect(R.code { try IFFEditPlanner.containerSize(chunksLength: Int64(UInt32.max) - 4, format: "RIFF") } == nil)
        #expect(R.code { try IFFEditPlanner.containerSize(chunksLength: Int64(UInt32.max) - 3, format: "RIFF") } == .unsupportedFeature)

        let dataSize: UInt32 = 0xFFFF_FF00
        let head = R.wave([R.fmt(), Array("data".utf8) + R.le32(dataSize)], riffSize: 4 + 24 + 8 + dataSize)
        let url = try R.file(head, ext: "wav")
        defer { R.remove(url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(head.count) + UInt64(dataSize))
        try handle.close()
        let source = try FileSource(url: url)
        #expect(try WAVParser.parse(source, url).properties.duration != nil)
        let items = [MetadataItem(keySpace: .id3, key: "TIT2", value: .string("Too big"), dataType: .utf8)]
        #expect(R.code { try WAVEditPlanner.plan(source, items, Self.fast) } == .unsupportedFeature)
    }

    // MARK: Writing

    func save(_ bytes: [UInt8], _ change: (inout Metadata) -> Void) async throws -> (url: URL, plan: FileEditPlan, item: MediaItem) {
        let url = try R.file(bytes, ext: "wav")
        var item = try await MediaItem.loaded(url)
        change(&item.metadata)
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata,
            keySpaces: MediaFormat.wav.keySpaces)
        let plan = try WAVEditPlanner.plan(FileSource(url: url), items, Self.fast)
        try await item.save(options: Self.fast)
        return (url, plan, item)
    }

    static func dataPayload(_ url: URL) throws -> [UInt8] {
        let source = try FileSource(url: url)
        let data = try #require(try WAVStructure(parsing: source).structure.first("data"))
        return try source.getBytes(at: data.payloadOffset, count: Int(data.size))
    }

    @Test func tagsAfterDataAreATailEdit() async throws {
        let original = R.simpleWAV(after: [R.chunk("id3 ", R.id3([("TIT2", "Old")], padding: 0))])
        let inode = { (url: URL) in try MediaChecks.inode(url) }
        let url = try R.file(original, ext: "wav")
        defer { R.remove(url) }
        let before = try inode(url)
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A much longer title than before"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: WAVEditPlanner.keySpaces)
        guard case .patchedTail(let patches, let offset, _) = try WAVEditPlanner.plan(FileSource(url: url), items, Self.fast) else {
            Issue.record("expected a tail edit")
            return
        }
        #expect(patches.map(\.offset) == [4]) // the RIFF size
        #expect(offset == Int64(12 + 24 + 408))
        try await item.save(options: Self.fast)
        #expect(try inode(url) == before)
        #expect(item.metadata.title == "A much longer title than before")
        #expect(try Self.dataPayload(url) == R.samples(400))
        #expect(try R.chunkIDs(url) == ["fmt ", "data", "id3 "])
    }

    @Test func sameSizeInfoEditIsInPlaceAndJunkAbsorbsGrowth() async throws {
        // Same length: a patch of the changed bytes only.
        let same = try await save(R.simpleWAV(info: [("INAM", "Title"), ("IART", "Artist")])) { $0.title = "Tidle" }
        defer { R.remove(same.url) }
        guard case .inPlace(let patches) = same.plan else {
            Issue.record("expected in place: \(same.plan)")
            return
        }
        #expect(patches.map(\.bytes.count) == [1])
        #expect(same.item.metadata.title == "Tidle")

        // A JUNK chunk before data shrinks to absorb a longer title.
        let junk = R.chunk("JUNK", [UInt8](repeating: 0, count: 64))
        let grown = try await save(
            R.wave([R.fmt(), R.info([("INAM", "T")]), junk, R.chunk("bext", [1, 2, 3]), R.chunk("data", R.samples(400))])
        ) {
            $0.title = "A longer title"
        }
        defer { R.remove(grown.url) }
        guard case .inPlace = grown.plan else {
            Issue.record("expected in place: \(grown.plan)")
            return
        }
        #expect(grown.item.metadata.title == "A longer title")
        #expect(try R.chunkIDs(grown.url) == ["fmt ", "LIST", "JUNK", "bext", "data"])
        #expect(try Self.dataPayload(grown.url) == R.samples(400))
    }

    @Test func growingTagsBeforeDataRewriteOnceThenFitInJunk() async throws {
        let odd = R.chunk("abcd", [1, 2, 3])
        let first = try await save(R.wave([R.fmt(), odd, R.info([("INAM", "T"), ("ICOP", "(C) me")]), R.chunk("data", R.samples(400))])) {
            $0.title = "Longer title"
        }
        defer { R.remove(first.url) }
        guard case .rewrite = first.plan else {
            Issue.record("expected a rewrite: \(first.plan)")
            return
        }
        #expect(try R.chunkIDs(first.url) == ["fmt ", "abcd", "LIST", "JUNK", "data"])
        let bytes = [UInt8](try Data(contentsOf: first.url))
        #expect(Array(bytes[36..<48]) == odd) // unknown chunk kept byte for byte, pad included
        #expect(first.item.metadata.items.contains { $0.key == "ICOP" && $0.value == .string("(C) me") })

        var item = first.item
        item.metadata.title = "Even longer title, still fitting"
        let items = try MetadataChanges().resolvedItems(
            loaded: first.item.metadata, edited: item.metadata, keySpaces: WAVEditPlanner.keySpaces)
        guard case .inPlace = try WAVEditPlanner.plan(FileSource(url: first.url), items, Self.fast) else {
            Issue.record("expected the second save in place")
            return
        }
        try await item.save(options: Self.fast)
        #expect(item.metadata.title == "Even longer title, still fitting")
        #expect(try Self.dataPayload(first.url) == R.samples(400))
    }

    @Test func changesGoToBothTagsAndNewFieldsToID3Only() async throws {
        let both = try await save(
            R.simpleWAV(
                info: [("INAM", "Old"), ("IART", "Info artist")],
                after: [R.chunk("id3 ", R.id3([("TIT2", "Old")]))])
        ) {
            $0.title = "New"
            $0.artist = "New artist"
            $0.composer = "Composer"
        }
        defer { R.remove(both.url) }
        let items = both.item.metadata.items
        #expect(items.filter { $0.key == "INAM" || $0.key == "TIT2" }.map(\.value) == [.string("New"), .string("New")])
        #expect(items.first { $0.key == "IART" }?.value == .string("New artist"))
        #expect(items.first { $0.key == "TPE1" } == nil) // artist lived only in INFO
        #expect(items.first { $0.key == "TCOM" }?.value == .string("Composer"))

        // Neither tag: an `id3 ` chunk and an INFO list mirroring what it can hold, at the end.
        let none = try await save(R.simpleWAV()) {
            $0.title = "Fresh"
            $0.trackNumber = 2
            $0.trackCount = 9
            $0.composer = "C"
        }
        defer { R.remove(none.url) }
        #expect(try R.chunkIDs(none.url) == ["fmt ", "data", "id3 ", "LIST"])
        #expect(none.item.metadata.title == "Fresh" && none.item.metadata.trackCount == 9)
        #expect(
            none.item.metadata.items.filter { $0.keySpace == .riff }
                == [
                    MetadataItem(keySpace: .riff, key: "INAM", value: .string("Fresh"), dataType: .utf8),
                    MetadataItem(keySpace: .riff, key: "ITRK", value: .string("2/9"), dataType: .utf8),
                ])
        guard case .patchedTail = none.plan else {
            Issue.record("expected a tail edit: \(none.plan)")
            return
        }
    }

    /// An odd `data` chunk written last without its pad byte gets one when a
    /// tag is appended; bytes after the RIFF container stay after it.
    @Test func missingPadByteAndTrailingBytes() async throws {
        let noPad = R.wave([R.fmt(), R.chunk("data", R.samples(401), pad: false)])
        let first = try await save(noPad) { $0.title = "Padded" }
        defer { R.remove(first.url) }
        let bytes = [UInt8](try Data(contentsOf: first.url))
        #expect(bytes[12 + 24 + 8 + 401] == 0)
        #expect(try R.chunkIDs(first.url) == ["fmt ", "data", "id3 ", "LIST"])
        #expect(try Self.dataPayload(first.url) == R.samples(401))

        let trailing: [UInt8] = Array("trailing garbage".utf8)
        let second = try await save(R.simpleWAV(info: [("INAM", "x")]) + trailing) { $0.title = "Longer title here" }
        defer { R.remove(second.url) }
        let saved = [UInt8](try Data(contentsOf: second.url))
        #expect(Array(saved.suffix(trailing.count)) == trailing)
        let riffSize = saved[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(riffSize + 8 == saved.count - trailing.count)
        #expect(second.item.metadata.title == "Longer title here")
    }

    @Test func saveToAnotherFileWritesTheTailCopy() async throws {
        let original = R.simpleWAV(after: [
            R.chunk("id3 ", R.id3([("TIT2", "Old")])), R.chunk("LIST", Array("INFO".utf8) + R.chunk("INAM", Array("Old\0".utf8))),
        ])
        let url = try R.file(original, ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A title long enough to grow the tag"
        let items = try MetadataChanges().resolvedItems(
            loaded: try await MediaItem.loaded(url).metadata, edited: item.metadata, keySpaces: WAVEditPlanner.keySpaces)
        guard case .patchedTail = try WAVEditPlanner.plan(FileSource(url: url), items, Self.fast) else {
            Issue.record("expected a tail edit")
            return
        }
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.wav")
        try await item.save(to: copy, options: Self.fast)
        #expect([UInt8](try Data(contentsOf: url)) == original)
        let saved = try await MediaItem.loaded(copy)
        #expect(saved.metadata.title == "A title long enough to grow the tag")
        #expect(saved.metadata.items.filter { $0.key == "INAM" || $0.key == "TIT2" }.count == 2)
        #expect(try Self.dataPayload(copy) == R.samples(400))
    }

    @Test func removingAllTagsRemovesBothChunks() async throws {
        let url = try R.file(
            R.simpleWAV(info: [("INAM", "x")], after: [R.chunk("id3 ", R.id3([("TIT2", "y")])), R.chunk("cue ", [0, 0, 0, 0])]),
            ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        try await item.save(options: SaveOptions(removesAllTags: true, durability: .noSync))
        #expect(item.metadata.items.isEmpty)
        #expect(try R.chunkIDs(url) == ["fmt ", "data", "cue "])
        #expect(try Self.dataPayload(url) == R.samples(400))
    }

    @Test func rawInfoItemsAndInvalidKeys() async throws {
        let url = try R.file(R.simpleWAV(), ext: "wav")
        defer { R.remove(url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.items.append(MetadataItem(keySpace: .riff, key: "ISFT", value: .string("MetadataKit"), dataType: .utf8))
        try await item.save(options: Self.fast)
        #expect(item.metadata.items == [MetadataItem(keySpace: .riff, key: "ISFT", value: .string("MetadataKit"), dataType: .utf8)])
        #expect(try R.chunkIDs(url) == ["fmt ", "data", "LIST"])
        item.metadata.items.append(MetadataItem(keySpace: .riff, key: "TOOLONG", value: .string("x"), dataType: .utf8))
        await #expect(throws: MediaError.self) { try await item.save(options: Self.fast) }
    }
}
