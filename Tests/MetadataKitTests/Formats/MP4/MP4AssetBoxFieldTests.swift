import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// The 3GPP asset boxes with several fields (3GPP TS 26.244 §8.5–8.8):
/// `clsf`, `kywd`, `rtng` and `loci` read into `3gpp` items and written
/// back — ffmpeg's `loci` read, changed and read by exiftool and ffprobe;
/// hand-built boxes (UTF-16, odd codes) re-encoded byte for byte; every cut
/// and hostile box read around and kept; values that can't be stored
/// exactly refused before anything is written.
@Suite struct MP4AssetBoxFieldTests {
    static let eng: [UInt8] = [0x15, 0xC7]
    static let deu: [UInt8] = [0x10, 0xB5]

    static func utf16(_ text: String) -> [UInt8] {
        [0xFE, 0xFF] + text.utf16.flatMap { B.u16(Int($0)) } + [0, 0]
    }

    /// Hand-built boxes of each kind, the items they read as.
    static let boxes: [(box: [UInt8], items: [(String, MetadataValue)])] = [
        (
            B.box("clsf", B.u32(0) + Array("ABCD".utf8) + B.u16(3) + eng + Array("Klasse".utf8) + [0]),
            [("clsf", .string("Klasse")), ("clsf:entity", .string("ABCD")), ("clsf:table", .string("3"))]
        ),
        (
            B.box("rtng", B.u32(0) + B.u32(0x0000_0001) + Array("PG13".utf8) + eng + utf16("Ab 12 ✓")),
            [("rtng", .string("Ab 12 ✓")), ("rtng:entity", .string("0x00000001")), ("rtng:criteria", .string("PG13"))]
        ),
        (
            B.box("kywd", B.u32(0) + deu + [2, 5] + Array("eins".utf8) + [0, 8] + Array("zwei ü".utf8) + [0]),
            [("kywd", .strings(["eins", "zwei ü"]))]
        ),
        (
            B.box(
                "loci",
                B.u32(0) + eng + Array("Turm".utf8) + [0, 1] + B.u32(150_000) + B.u32(UInt32(bitPattern: -2_000_000)) + B.u32(0)
                    + Array("earth".utf8) + [0] + utf16("Notiz")),
            [
                ("loci", .string("Turm")), ("loci:role", .string("1")), ("loci:longitude", .string("2.28882")),
                ("loci:latitude", .string("-30.51758")), ("loci:altitude", .string("0")), ("loci:body", .string("earth")),
                ("loci:notes", .string("Notiz")),
            ]
        ),
    ]

    static func file(udta: [[UInt8]]) -> [UInt8] {
        B.ftyp("3gp4", ["3gp4", "isom"]) + B.audioMovie(extra: [B.box("udta", children: udta)])
    }

    @Test func handBuiltBoxesReadAndReencodeByteForByte() throws {
        let (parsed, url) = try B.parse(Self.file(udta: Self.boxes.map(\.box)))
        defer { try? FileManager.default.removeItem(at: url) }
        let items = parsed.items.filter { $0.keySpace == .threeGPP }
        #expect(items.map(\.key) == Self.boxes.flatMap { $0.items.map(\.0) })
        #expect(items.map(\.value) == Self.boxes.flatMap { $0.items.map(\.1) })
        #expect(items.first { $0.key == "clsf" }?.language == "eng")
        #expect(items.first { $0.key == "kywd" }?.language == "deu")
        #expect(items.first { $0.key == "rtng" }?.dataType == .utf16)
        #expect(items.first { $0.key == "loci:notes" }?.dataType == .utf16)
        let groups = MP4AssetBoxes.groups(items)
        #expect(groups.count == Self.boxes.count)
        for (group, expected) in zip(groups, Self.boxes) {
            #expect(try MP4AssetBoxes.box(group) == expected.box, "\(group[0].key)")
        }
        // iPhone keywords: bare NUL-separated strings, no FullBox header.
        let (iphone, iphoneURL) = try B.parse(Self.file(udta: [B.box("kywd", Array("Hund\0Katze\0".utf8))]))
        defer { try? FileManager.default.removeItem(at: iphoneURL) }
        #expect(iphone.items.first { $0.key == "kywd" }?.value == .strings(["Hund", "Katze"]))
    }

    /// Items grouped by box however they are ordered (an edited item is appended).
    @Test func partsFindTheirBoxWhereverTheyStand() throws {
        func item(_ key: String, _ text: String) -> MetadataItem {
            MetadataItem(keySpace: .threeGPP, key: key, value: .string(text), dataType: .utf8)
        }
        let groups = MP4AssetBoxes.groups([
            item("loci", "A"), item("loci:role", "0"), item("titl", "T"), item("loci", "B"), item("loci:role", "2"),
            item("loci:latitude", "1.5"), item("titl", "U"),
        ])
        #expect(groups.map { $0.map(\.key) } == [["loci", "loci:role", "loci:latitude"], ["titl"], ["loci", "loci:role"], ["titl"]])
        #expect(groups[0].map(\.value.stringValue) == ["A", "0", "1.5"].map(Optional.some))
        #expect(throws: MediaError.self) { try MP4AssetBoxes.box([item("loci:latitude", "1")]) }
    }

    /// Random values of every field: written, read back the same, written again byte for byte.
    @Test func randomValuesRoundTrip() throws {
        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SplitMix64(state: seed)
        let alphabet = Array("aZ09 -äß✓€漢😀")
        func text() -> String { String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        func code() -> String { String((0..<4).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random))) }) }
        for round in 0..<50 {
            let utf16 = Bool.random(using: &random)
            let type: MetadataDataType = utf16 ? .utf16 : .utf8
            let language = ["eng", "deu", "jpn", nil].randomElement(using: &random)!
            func main(_ key: String, _ value: MetadataValue) -> MetadataItem {
                MetadataItem(keySpace: .threeGPP, key: key, value: value, dataType: type, language: language)
            }
            func part(_ key: String, _ value: String) -> MetadataItem {
                MetadataItem(keySpace: .threeGPP, key: key, value: .string(value), dataType: .utf8)
            }
            let fixed = { MP4AssetBoxes.decimal(fixed: Int32.random(in: -90 * 65536...90 * 65536, using: &random)) }
            let keywords = (0..<Int.random(in: 2...5, using: &random)).map { _ in text() }
            let groups: [[MetadataItem]] = [
                [
                    main("clsf", .string(text())), part("clsf:entity", code()),
                    part("clsf:table", String(UInt16.random(in: 0...9999, using: &random))),
                ],
                [main("rtng", .string(text())), part("rtng:entity", code()), part("rtng:criteria", code())],
                [main("kywd", .strings(keywords))],
                [
                    main("loci", .string(text())), part("loci:role", String(Int.random(in: 0...2, using: &random))),
                    part("loci:longitude", fixed()), part("loci:latitude", fixed()), part("loci:altitude", fixed()),
                    part("loci:body", "earth"), part("loci:notes", text()),
                ],
            ]
            let bytes = try groups.map { try MP4AssetBoxes.box($0) }
            let (parsed, url) = try B.parse(Self.file(udta: bytes))
            try? FileManager.default.removeItem(at: url)
            let read = parsed.items.filter { $0.keySpace == .threeGPP }
            #expect(read == groups.flatMap { $0 }, "seed \(seed), round \(round)")
            #expect(try MP4AssetBoxes.groups(read).map { try MP4AssetBoxes.box($0) } == bytes, "seed \(seed), round \(round)")
        }
    }

    /// Every cut of every box, and hostile counts and sizes: read or skipped,
    /// never a crash; a box that can't be read is kept byte for byte by a save.
    @Test func everyPrefixAndHostileBoxes() async throws {
        var hostile: [[UInt8]] = [
            B.box("kywd", B.u32(0) + Self.eng + [255, 200] + Array("short".utf8)), // count and size past the box
            B.box("loci", B.u32(0) + Self.eng + Array("no terminator".utf8)), // string runs to the end: no fields after it
            B.box("clsf", B.u32(0) + Array("AB".utf8)), B.box("rtng", []),
            B.box("loci", B.u32(0) + Self.eng + [0xFE, 0xFF, 0, 0x41]), // UTF-16 without its terminator
            B.box("kywd", B.u32(0) + Self.eng + [1, 3] + [0xFE, 0xFF, 0x00]), // odd UTF-16 keyword
            B.box("clsf", B.u32(0) + [UInt8](repeating: 0x41, count: 70_000)), // past the 64 KiB limit
        ]
        for (box, _) in Self.boxes {
            for length in 8..<box.count {
                var cut = Array(box[0..<length])
                cut.replaceSubrange(0..<4, with: B.u32(length))
                hostile.append(cut)
            }
        }
        for (index, box) in hostile.enumerated() {
            let bytes = Self.file(udta: [box, B.box("titl", B.u32(0) + Self.eng + Array("T".utf8) + [0])])
            let url = try B.write(bytes, ext: "3gp")
            defer { try? FileManager.default.removeItem(at: url) }
            var item = try await MediaItem.loaded(url)
            let readable = MP4AssetBoxes.parse(
                try #require(try MP4Movie(FileSource(url: url)).moov.child("udta")?.children.first).header,
                source: try FileSource(url: url))
            #expect(item.metadata.items.filter { $0.keySpace == .threeGPP }.count >= 1, "box \(index)")
            guard readable == nil else { continue }
            item.metadata[.title] = .text("Neu")
            try await item.save()
            let saved = try [UInt8](Data(contentsOf: url))
            #expect(saved.firstRange(of: box) != nil, "box \(index) was not kept byte for byte")
        }
    }

    /// Values the box can't hold exactly are refused before anything is written.
    @Test func valuesThatCantBeStoredAreRefused() async throws {
        let bytes = Self.file(udta: Self.boxes.map(\.box))
        let cases: [(String, MetadataValue)] = [
            ("loci:latitude", .string("35.123456")), ("loci:latitude", .string("91")), ("loci:role", .string("shooting")),
            ("clsf:entity", .string("ABCDE")), ("clsf:table", .string("70000")), ("rtng:criteria", .string("0x41424344")),
            ("kywd", .strings([String(repeating: "k", count: 300)])), ("yrrc", .string("soon")),
        ]
        for (key, value) in cases {
            let url = try B.write(bytes, ext: "3gp")
            defer { try? FileManager.default.removeItem(at: url) }
            var item = try await MediaItem.loaded(url)
            item.metadata.items.removeAll { $0.keySpace == .threeGPP && $0.key == key }
            item.metadata.items.append(MetadataItem(keySpace: .threeGPP, key: key, value: value, dataType: .utf8))
            await #expect(throws: MediaError.self, "\(key)") { try await item.save() }
            #expect(try Data(contentsOf: url) == Data(bytes), "\(key)")
        }
        // A part without the box's own item.
        let url = try B.write(bytes, ext: "3gp")
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        let loaded = item.metadata.items
        item.metadata.items.removeAll { $0.key == "loci" }
        await #expect(throws: MediaError.self) { try await item.save() }
        #expect(try Data(contentsOf: url) == Data(bytes))
        // The same file takes values it can hold: only the changed box is rewritten.
        item.metadata.items = loaded
        item.metadata.items.removeAll { $0.key == "loci:latitude" || $0.key == "clsf:table" }
        item.metadata.items += [
            MetadataItem(keySpace: .threeGPP, key: "loci:latitude", value: .string("-12.3456"), dataType: .utf8),
            MetadataItem(keySpace: .threeGPP, key: "clsf:table", value: .string("65535"), dataType: .utf8),
        ]
        try await item.save()
        let reread = try await MediaItem.loaded(url)
        #expect(reread.metadata.items.first { $0.key == "loci:latitude" }?.value == .string("-12.3456"))
        #expect(reread.metadata.items.first { $0.key == "loci:notes" }?.value == .string("Notiz"))
        #expect(reread.metadata.items.first { $0.key == "clsf:table" }?.value == .string("65535"))
        let saved = try [UInt8](Data(contentsOf: url))
        #expect(saved.firstRange(of: Self.boxes[1].box) != nil && saved.firstRange(of: Self.boxes[2].box) != nil)
        #expect(saved.firstRange(of: Self.boxes[3].box) == nil)
    }
}
