import Foundation
import Testing

@testable import MetadataKit

private typealias B = MP4Builder

/// Values MP4 files store in less common ways: several `data` atoms, `gnre`
/// numbers, Mac OS Roman user data text, channel counts in codec boxes.
@Suite struct MP4FidelityTests {
    static func udtaFile(_ children: [[UInt8]]) -> [UInt8] {
        B.ftyp() + B.audioMovie(extra: [B.box("udta", children: children)]) + B.box("mdat", [1, 2, 3])
    }

    // MARK: Several values

    @Test func severalDataAtomsAreOneItemOfSeveralStrings() async throws {
        let ilst = B.box("ilst", children: [B.item("©ART", B.text("Ann"), B.text("Bob"), B.text("Cléo"))])
        let item = try await B.load(Self.udtaFile([B.meta(handler: "mdir", [ilst])]))
        #expect(item.metadata.items.filter { $0.key == "©ART" }.map(\.value) == [.strings(["Ann", "Bob", "Cléo"])])
        #expect(item.metadata.artist == "Ann; Bob; Cléo")
    }

    /// `mdta` data atoms of one locale are several values; of different
    /// locales, one item each with its language.
    @Test func quickTimeDataAtomsGroupByLocale() async throws {
        let eng = Int(MP4MetadataEncoder.packedLanguage("eng")), fra = Int(MP4MetadataEncoder.packedLanguage("fra"))
        let meta = B.meta(
            handler: "mdta", versionAndFlags: false,
            [
                B.keys(["com.apple.quicktime.artist", "com.apple.quicktime.title"]),
                B.box(
                    "ilst",
                    children: [
                        B.indexedItem(1, B.data(1, Array("Ann".utf8)), B.data(1, Array("Bob".utf8)), B.data(1, Array("Cléo".utf8))),
                        B.indexedItem(2, B.data(1, Array("Hello".utf8), language: eng), B.data(1, Array("Bonjour".utf8), language: fra)),
                    ]),
            ])
        let item = try await B.load(B.ftyp("qt  ", ["qt  "]) + B.audioMovie(extra: [meta]), ext: "mov")
        let artists = item.metadata.items.filter { $0.key == "com.apple.quicktime.artist" }
        #expect(artists.map(\.value) == [.strings(["Ann", "Bob", "Cléo"])])
        let titles = item.metadata.items.filter { $0.key == "com.apple.quicktime.title" }
        #expect(titles.map(\.value) == [.string("Hello"), .string("Bonjour")])
        #expect(titles.map(\.language) == ["eng", "fra"])
        #expect(item.metadata.artist == "Ann; Bob; Cléo")
    }

    /// Several values are arrays in `mdkit read --json` and joined in its table.
    @Test(.enabled(if: Capabilities.mdkit, "needs the mdkit binary built beside the tests")) func severalValuesInTheCommandLineTool() throws
    {
        let ilst = B.box("ilst", children: [B.item("©ART", B.text("Ann"), B.text("Bob"), B.text("Cléo"))])
        let url = try B.write(Self.udtaFile([B.meta(handler: "mdir", [ilst])]))
        defer { try? FileManager.default.removeItem(at: url) }
        let tool = try #require(TestSupport.mdkitExecutable).path
        let json = try TestSupport.runChecked(tool, ["read", "--json", "--items", url.path]).standardOutput
        let file = (try JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first ?? [:]
        let items = file["items"] as? [[String: Any]] ?? []
        #expect(items.first { $0["key"] as? String == "©ART" }?["value"] as? [String] == ["Ann", "Bob", "Cléo"])
        let table = try TestSupport.runChecked(tool, ["read", url.path]).text
        #expect(table.split(separator: "\n").contains { $0.contains("artist") && $0.hasSuffix("Ann; Bob; Cléo") })
    }

    /// Three `data` atoms are written back as three after another field changes.
    @Test func severalDataAtomsAreWrittenBackAsTheyWere() async throws {
        let artists = B.item("©ART", B.text("Ann"), B.text("Bob"), B.text("Cléo"))
        let ilst = B.box("ilst", children: [B.item("©nam", B.text("Old")), artists])
        let url = try B.write(Self.udtaFile([B.meta(handler: "mdir", [ilst])]))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        item.metadata.title = "A much longer title than before"
        try await item.save()
        let saved = [UInt8](try Data(contentsOf: url))
        #expect(saved.firstRange(of: artists) != nil, "the ©ART atom with its three data atoms is unchanged")
        // A list of three is encoded as three data atoms.
        let encoded = try MP4MetadataEncoder.iTunesAtom(
            key: "©ART",
            items: [
                MetadataItem(keySpace: .iTunes, key: "©ART", value: .strings(["X", "Y", "Z"]), dataType: .utf8)
            ])
        #expect(encoded == B.item("©ART", B.text("X"), B.text("Y"), B.text("Z")))
    }

    // MARK: gnre

    /// `gnre` as iTunes and AtomicParsley write it: a 2-byte type-0 value,
    /// the ID3 index + 1.
    @Test(arguments: [(18, "Rock"), (1, "Blues"), (10, "Metal")])
    func implicitGenreNumber(number: Int, name: String) async throws {
        let genre = B.item("gnre", B.data(0, B.u16(number)))
        let ilst = B.box("ilst", children: [B.item("©nam", B.text("Old")), genre])
        let url = try B.write(Self.udtaFile([B.meta(handler: "mdir", [ilst])]))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = try await MediaItem.loaded(url)
        #expect(item.metadata.genre?.name == name)
        #expect(item.metadata.genre?.name == Genre(id3Index: number - 1)?.name)
        item.metadata.title = "New"
        try await item.save()
        #expect([UInt8](try Data(contentsOf: url)).firstRange(of: genre) != nil, "gnre kept as it was")
        #expect(try await MediaItem.loaded(url).metadata.genre?.name == name)
    }

    // MARK: Mac OS Roman

    /// The reference: Python's mac_roman codec (generated from Unicode's
    /// ROMAN.TXT), when python3 is installed.
    static let pythonMacRoman: [UnicodeScalar]? = {
        guard TestSupport.hasTool("python3"),
            let output = try? TestSupport.runChecked(
                "python3", ["-c", "print(' '.join('%04X' % ord(c) for c in bytes(range(256)).decode('mac_roman')))"])
        else { return nil }
        let scalars = output.text.split(whereSeparator: \.isWhitespace).compactMap { UInt32($0, radix: 16).flatMap(UnicodeScalar.init) }
        return scalars.count == 256 ? scalars : nil
    }()

    @Test func macOSRomanMatchesTheReferenceForEveryByte() throws {
        // Spot checks from ROMAN.TXT that hold without the reference.
        let known: [UInt8: UnicodeScalar] = [
            0x80: "\u{C4}", 0x8E: "\u{E9}", 0xA5: "\u{2022}", 0xCA: "\u{A0}",
            0xDB: "\u{20AC}", 0xF0: "\u{F8FF}", 0xFF: "\u{2C7}", 0x41: "A",
        ]
        for (byte, scalar) in known {
            #expect(MP4Text.macOSRoman([byte]).unicodeScalars.elementsEqual([scalar]), "byte \(byte)")
        }
        let reference = try #require(Self.pythonMacRoman, "python3 is needed for the full table")
        for byte in 0...255 {
            let decoded = MP4Text.macOSRoman([UInt8(byte)])
            #expect(decoded.unicodeScalars.elementsEqual([reference[byte]]), "byte \(byte)")
        }
    }

    /// `udta` text that is not UTF-8 is Mac OS Roman (old QuickTime writers,
    /// Macintosh language code 0); UTF-8 text is UTF-8 with an ISO language
    /// and with code 0 (as exiftool writes it).
    @Test func userDataTextInMacOSRomanOrUTF8() async throws {
        let high = [UInt8](0x80...0xFF)
        let mac = B.box("©nam", B.u16(high.count) + B.u16(0) + high)
        let utf8 = B.box("©ART", B.userDataText("Café", language: "fra"))
        let exiftool = B.box("©alb", B.userDataText("Zoë", language: nil, macLanguage: 0))
        let item = try await B.load(Self.udtaFile([mac, utf8, exiftool]), ext: "mov")
        #expect(item.metadata.album == "Zoë")
        let title = try #require(item.metadata.items.first { $0.key == "©nam" }?.value.stringValue)
        #expect(title.unicodeScalars.count == 128)
        #expect(title.hasPrefix("ÄÅÇÉÑÖÜá"))
        if let reference = Self.pythonMacRoman {
            #expect(title.unicodeScalars.elementsEqual(reference[0x80...]))
        }
        #expect(item.metadata.artist == "Café")
    }

    // MARK: Channels

    /// Packs (value, bit count) fields, most significant bit first.
    static func bits(_ fields: [(Int, Int)]) -> [UInt8] {
        var bits: [Bool] = []
        for (value, count) in fields { for index in (0..<count).reversed() { bits.append(value >> index & 1 == 1) } }
        while bits.count % 8 != 0 { bits.append(false) }
        return stride(from: 0, to: bits.count, by: 8).map { start in bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }

    static func dac3(acmod: Int, lfe: Int) -> [UInt8] {
        B.box("dac3", bits([(0, 2), (8, 5), (0, 3), (acmod, 3), (lfe, 1), (14, 5), (0, 5)]))
    }

    static func dec3(acmod: Int, lfe: Int, location: Int?) -> [UInt8] {
        var fields = [(448, 13), (0, 3), (0, 2), (16, 5), (0, 1), (0, 1), (0, 3), (acmod, 3), (lfe, 1), (0, 3)]
        fields += location.map { [(1, 4), ($0, 9)] } ?? [(0, 4), (0, 1)]
        return B.box("dec3", bits(fields))
    }

    /// The sample entry's channelcount (2, a template value) gives way to the codec configuration.
    @Test(
        arguments: [
            ("samr", [], 1), ("sawb", [], 1),
            ("ac-3", dac3(acmod: 7, lfe: 1), 6), ("ac-3", dac3(acmod: 2, lfe: 0), 2), ("ac-3", dac3(acmod: 1, lfe: 1), 2),
            ("ec-3", dec3(acmod: 7, lfe: 1, location: nil), 6), ("ec-3", dec3(acmod: 7, lfe: 1, location: 0b0100_0000_0), 8),
            ("ec-3", dec3(acmod: 2, lfe: 0, location: nil), 2),
        ] as [(String, [UInt8], Int)])
    func channelsFromTheCodecConfiguration(format: String, config: [UInt8], channels: Int) async throws {
        let entry = B.audioEntry(FourCC(format)!, channels: 2, sampleRate: 48000, children: config.isEmpty ? [] : [config])
        let movie = B.box(
            "moov",
            children: [
                B.mvhd(timescale: 1000, duration: 1000),
                B.trak(handler: "soun", timescale: 48000, duration: 48000, entry: entry),
            ])
        let item = try await B.load(B.ftyp("mp42", ["mp42", "isom"]) + movie, ext: "mp4")
        #expect(item.properties.channels == channels)
    }
}
