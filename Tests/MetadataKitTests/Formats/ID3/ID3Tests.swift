import Foundation
import Testing

@testable import MetadataKit

private typealias B = ID3Builder

@Suite struct ID3Tests {
    // MARK: Versions and text

    @Test func version23TagReadsFramesAndNormalizedFields() async throws {
        var tag = B(version: 3)
        tag.frames = [
            B.frame("TIT2", B.text(["Björk"], encoding: 0), version: 3),
            B.frame("TPE1", B.text(["日本語"], encoding: 1), version: 3),
            B.frame("TALB", B.text(["Début"], encoding: 1, terminate: true), version: 3),
            B.frame("TRCK", B.text(["3/12"], encoding: 0), version: 3),
            B.frame("TCON", B.text(["(17)"], encoding: 0), version: 3),
            B.frame("TYER", B.text(["1993"], encoding: 0), version: 3),
            B.frame("COMM", B.comment("engineered", description: "iTunNORM", encoding: 1), version: 3),
            B.frame("COMM", B.comment("Nice record", encoding: 1), version: 3),
            B.frame("TXXX", B.text(["MOOD", "happy"], encoding: 0), version: 3),
        ]
        tag.padding = 64
        let item = try await B.load(tag.bytes() + B.mpegFrames(4))
        #expect(item.fileType == .mp3)
        #expect(item.isEditable)
        #expect(item.metadata.title == "Björk")
        #expect(item.metadata.artist == "日本語")
        #expect(item.metadata.album == "Début")
        #expect(item.metadata.trackNumber == 3)
        #expect(item.metadata.trackCount == 12)
        #expect(item.metadata.genre?.name == "Rock")
        #expect(item.metadata.date == "1993")
        #expect(item.metadata.comments == "Nice record")
        #expect(item.item("TIT2")?.dataType == .latin1)
        #expect(item.item("TPE1")?.dataType == .utf16)
        #expect(item.item("COMM:iTunNORM")?.value == .string("engineered"))
        #expect(item.item("COMM:iTunNORM")?.language == "eng")
        #expect(item.item("COMM")?.value == .string("Nice record"))
        #expect(item.item("TXXX:MOOD")?.value == .string("happy"))
        #expect(item.metadata.items.count == 9)
    }

    @Test(arguments: [(UInt8(0), "Björk Guðmundsdóttir"), (1, "日本語 Björk 🎵"), (2, "日本語 Björk 🎵"), (3, "日本語 Björk 🎵")])
    func version24EncodingsDecode(encoding: UInt8, text: String) throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", B.text([text], encoding: encoding, terminate: true))]
        let parsed = try B.parse(tag.bytes())
        let types: [MetadataDataType] = [.latin1, .utf16, .utf16BigEndian, .utf8]
        #expect(parsed.item("TIT2")?.value == .string(text))
        #expect(parsed.item("TIT2")?.dataType == types[Int(encoding)])
        #expect(parsed.properties == MediaProperties())
    }

    @Test(arguments: [UInt8(0), 1, 2, 3])
    func multipleValuesBecomeStrings(encoding: UInt8) throws {
        let values = encoding == 0 ? ["Ängel", "Ñu", "C"] : ["Ängel", "日本", "C"]
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TPE1", B.text(values, encoding: encoding, terminate: true)),
            B.frame("TXXX", B.text(["LIST", "a", "b"], encoding: encoding)),
        ]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TPE1")?.value == .strings(values))
        #expect(parsed.item("TXXX:LIST")?.value == .strings(["a", "b"]))
        #expect(Metadata(items: parsed.items).artist == values.joined(separator: "; "))
    }

    @Test func utf16ByteOrders() throws {
        // Big-endian BOM; then a second string without a BOM keeps that order.
        let bigEndian: [UInt8] =
            [1] + B.encode("Ünïcode", encoding: 1, bigEndianBOM: true) + [0, 0]
            + Array("ab".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        // No BOM at all: little-endian is assumed.
        let noBOM: [UInt8] = [1] + Array("Ünïcode".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", bigEndian, version: 3), B.frame("TPE1", noBOM, version: 3)]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .strings(["Ünïcode", "ab"]))
        #expect(parsed.item("TPE1")?.value == .string("Ünïcode"))
    }

    @Test func utf16TerminatorIsAlignedToCodeUnits() throws {
        // "Ā" is 0x0100: LE bytes 00 01; followed by "\u{100}" again the bytes
        // 01 00 | 00 01 contain "00 00" off the unit boundary, which is no terminator.
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", [2, 0x00, 0x41, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00])]
        #expect(try B.parse(tag.bytes()).item("TIT2")?.value == .string("A\u{100}\u{100}"))
    }

    @Test func version22FramesKeepTheirIDs() async throws {
        var tag = B(version: 2)
        tag.frames = [
            B.frame("TT2", B.text(["Titel"], encoding: 0), version: 2),
            B.frame("TP1", B.text(["Künstler"], encoding: 1), version: 2),
            B.frame("COM", B.comment("Kommentar", encoding: 0), version: 2),
            B.frame("TXX", B.text(["KEY", "value"], encoding: 0), version: 2),
            B.frame("PIC", B.picture(B.tinyPNG, description: "cover", legacyFormat: "PNG"), version: 2),
        ]
        let url = try B.file(tag.bytes() + B.mpegFrames(3))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        #expect(item.metadata.title == "Titel")
        #expect(item.metadata.artist == "Künstler")
        #expect(item.metadata.comments == "Kommentar")
        #expect(item.item("TXX:KEY")?.value == .string("value"))
        let artwork = try #require(item.metadata.artwork.first)
        #expect(item.item("PIC")?.dataType == .png)
        #expect(artwork.mimeType == "image/png")
        #expect(artwork.description == "cover")
        #expect(artwork.width == 3 && artwork.height == 2)
        #expect(try await artwork.data() == Data(B.tinyPNG))
    }

    @Test func commentsLanguagesAndLyrics() throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("COMM", B.comment("iTunes norm", description: "iTunNORM", language: "eng")),
            B.frame("COMM", B.comment("kein", language: "XXX")),
            B.frame("USLT", B.comment("la la", description: "", language: "deu", encoding: 1)),
            B.frame("USLT", [0, 0, 0, 0] + Array("desc".utf8) + [0] + Array("text".utf8)),
        ]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("COMM:iTunNORM")?.language == "eng")
        #expect(parsed.item("COMM")?.language == "XXX", "kept as stored")
        #expect(parsed.item("COMM")?.value == .string("kein"))
        #expect(parsed.item("USLT")?.value == .string("la la"))
        #expect(parsed.item("USLT")?.language == "deu")
        #expect(parsed.item("USLT:desc")?.language == "", "three zero bytes")
        #expect(Metadata(items: parsed.items).comments == "kein")
    }

    @Test func iTunNORMAloneIsNoComment() throws {
        var tag = B(version: 3)
        tag.frames = [B.frame("COMM", B.comment(" 0000", description: "iTunNORM"), version: 3)]
        #expect(Metadata(items: try B.parse(tag.bytes()).items).comments == nil)
    }

    @Test func otherFrameKinds() throws {
        var tag = B(version: 4)
        tag.frames = [
            B.frame("WXXX", [3] + Array("shop".utf8) + [0] + Array("https://example.com/a".utf8)),
            B.frame("WOAR", Array("https://example.com/artist".utf8)),
            B.frame("PRIV", Array("com.example".utf8) + [0, 1, 2, 3]),
            B.frame("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array("abc".utf8)),
            B.frame("POPM", Array("me@example.com".utf8) + [0, 196, 0, 0, 0, 7]),
            B.frame("GEOB", [0] + Array("text/plain".utf8) + [0] + Array("f.txt".utf8) + [0] + Array("notes".utf8) + [0, 9, 8]),
            B.frame("MCDI", [1, 2, 3]),
            B.frame("TDRC", B.text(["2024-05-01"], encoding: 3)),
            B.frame("TBPM", B.text(["120"], encoding: 0)),
        ]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("WXXX:shop")?.value == .string("https://example.com/a"))
        #expect(parsed.item("WOAR")?.value == .string("https://example.com/artist"))
        #expect(parsed.item("PRIV:com.example")?.value == .data(Data([1, 2, 3])))
        #expect(parsed.item("UFID:http://musicbrainz.org")?.value == .data(Data("abc".utf8)))
        #expect(parsed.item("POPM:me@example.com")?.value == .integer(196))
        #expect(parsed.item("GEOB:notes")?.value == .data(Data([9, 8])))
        #expect(parsed.item("MCDI")?.value == .data(Data([1, 2, 3])))
        #expect(parsed.item("MCDI")?.dataType == .binary)
        let metadata = Metadata(items: parsed.items)
        #expect(metadata.date == "2024-05-01")
        #expect(metadata.bpm == 120)
    }

    // MARK: Pictures

    @Test func apicIsReadLazilyFromTheFile() async throws {
        var tag = B(version: 3)
        tag.frames = [
            B.frame("TIT2", B.text(["t"], encoding: 0), version: 3),
            B.frame("APIC", B.picture(B.tinyPNG, type: 4, description: "Rückseite", encoding: 1), version: 3),
        ]
        let url = try B.file(tag.bytes() + B.mpegFrames(2))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        try await item.load()
        let artwork = try #require(item.metadata.artwork.first)
        #expect(item.item("APIC")?.dataType == .png)
        #expect(artwork.pictureType == .backCover)
        #expect(artwork.description == "Rückseite")
        #expect(artwork.width == 3 && artwork.height == 2)
        #expect(artwork.byteCount == B.tinyPNG.count)
        guard case .file(_, let offset) = artwork.storage else {
            Issue.record("picture bytes were read into memory")
            return
        }
        // 10 (tag header) + 12 (TIT2) + 10 (frame header) + 1 + "image/png\0" + 1 + BOM + "Rückseite" + 00 00
        #expect(offset == 10 + 12 + 10 + 1 + 10 + 1 + 2 + 18 + 2)
        #expect(try await artwork.data() == Data(B.tinyPNG))
    }

    @Test func apicWithLongDescriptionNeedsASecondRead() async throws {
        let description = String(repeating: "d", count: 5000)
        var tag = B(version: 4)
        tag.frames = [B.frame("APIC", B.picture(B.tinyPNG, mime: "image/png", description: description, encoding: 3))]
        let url = try B.file(tag.bytes())
        defer { try? FileManager.default.removeItem(at: url) }
        let parsed = try MP3Parser.parse(try FileSource(url: url), url)
        let artwork = try #require(Metadata(items: parsed.items).artwork.first)
        #expect(artwork.description == description)
        #expect(try await artwork.data() == Data(B.tinyPNG))
    }

    @Test func largePictureIsNotReadWhileLoading() async throws {
        // A 32 MiB "image" (a PNG header and zeros) between two text frames.
        let image = B.tinyPNG + [UInt8](repeating: 0, count: 32 << 20)
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.text(["before"], encoding: 0)), B.frame("APIC", B.picture(image)),
            B.frame("TPE1", B.text(["after"], encoding: 0)),
        ]
        let url = try B.file(tag.bytes() + B.mpegFrames(4))
        defer { try? FileManager.default.removeItem(at: url) }
        var item = MediaItem(url: url)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try item.loadOnCallingThread() } // the parse alone (MediaItem.loadedOnThisThread)
        #expect(item.metadata.title == "before" && item.metadata.artist == "after")
        let artwork = try #require(item.metadata.artwork.first)
        #expect(artwork.byteCount == image.count && artwork.width == 3)
        guard case .file = artwork.storage else {
            Issue.record("picture bytes were read into memory")
            return
        }
        #expect(elapsed < .milliseconds(500), "load took \(elapsed)")
        #expect(item.properties.duration == 4 * 417 * 8 / 128_000.0)
    }

    // MARK: Unsynchronisation, compression, flags

    /// PNG bytes followed by runs that unsynchronisation must escape.
    private static let falseSyncImage = B.tinyPNG + [0xFF, 0xE0, 0xFF, 0x00, 0xFF, 0xFF, 0xFB, 0x90, 0xFF]

    @Test func wholeTagUnsynchronisationV23() async throws {
        var tag = B(version: 3)
        tag.unsynchronise = true
        tag.extendedHeader = [0, 0, 0, 6, 0, 0, 0, 0, 0, 0]
        tag.frames = [
            B.frame("TIT2", B.text(["ÿÿ title"], encoding: 0), version: 3), // ÿ is 0xFF in latin1
            B.frame("APIC", B.picture(Self.falseSyncImage), version: 3),
        ]
        let bytes = tag.bytes()
        #expect(bytes.count > 10 + tag.frames.joined().count + 10) // something was escaped
        let parsed = try B.parse(bytes)
        #expect(parsed.item("TIT2")?.value == .string("ÿÿ title"))
        let artwork = try #require(Metadata(items: parsed.items).artwork.first)
        #expect(try await artwork.data() == Data(Self.falseSyncImage))
        #expect(artwork.width == 3)
    }

    @Test func perFrameUnsynchronisationWithDataLengthIndicatorV24() async throws {
        let picture = B.picture(Self.falseSyncImage)
        let text = B.text(["ÿ\u{E0}ÿ"], encoding: 0)
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", B.syncsafe(UInt32(text.count)) + B.unsynchronised(text), flags: 0x0003),
            B.frame("APIC", B.syncsafe(UInt32(picture.count)) + B.unsynchronised(picture), flags: 0x0003),
        ]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .string("ÿ\u{E0}ÿ"))
        let artwork = try #require(Metadata(items: parsed.items).artwork.first)
        #expect(try await artwork.data() == Data(Self.falseSyncImage))
    }

    @Test func compressedFramesV23AndV24() async throws {
        let text = B.text([String(repeating: "Compressed title ", count: 20)], encoding: 3)
        let picture = B.picture(B.tinyPNG, description: "zipped")
        var v3 = B(version: 3)
        v3.frames = [
            B.frame("TIT2", B.be32(UInt32(text.count)) + B.compress(text), version: 3, flags: 0x0080),
            // compression + grouping: decompressed size, then the group byte
            B.frame("APIC", B.be32(UInt32(picture.count)) + [7] + B.compress(picture), version: 3, flags: 0x00A0),
        ]
        var v4 = B(version: 4)
        v4.frames = [
            B.frame("TIT2", B.syncsafe(UInt32(text.count)) + B.compress(text), flags: 0x0009),
            // grouping + compression + data length indicator
            B.frame("APIC", [7] + B.syncsafe(UInt32(picture.count)) + B.compress(picture), flags: 0x0049),
        ]
        for tag in [v3, v4] {
            let parsed = try B.parse(tag.bytes())
            #expect(parsed.item("TIT2")?.value == .string(String(repeating: "Compressed title ", count: 20)))
            let artwork = try #require(Metadata(items: parsed.items).artwork.first)
            #expect(artwork.description == "zipped")
            #expect(try await artwork.data() == Data(B.tinyPNG))
        }
    }

    @Test func hardCodedZlibStream() throws {
        // zlib.compress(b"\x03Hello compressed world")
        let stream: [UInt8] = [
            0x78, 0x9C, 0x63, 0xF6, 0x48, 0xCD, 0xC9, 0xC9, 0x57, 0x48, 0xCE, 0xCF, 0x2D, 0x28, 0x4A,
            0x2D, 0x2E, 0x4E, 0x4D, 0x51, 0x28, 0xCF, 0x2F, 0xCA, 0x49, 0x01, 0x00, 0x61, 0x0B, 0x08, 0x95,
        ]
        var tag = B(version: 3)
        tag.frames = [B.frame("TIT2", B.be32(23) + stream, version: 3, flags: 0x0080)]
        #expect(try B.parse(tag.bytes()).item("TIT2")?.value == .string("Hello compressed world"))
    }

    @Test func encryptedFrameIsKeptRaw() throws {
        var tag = B(version: 4)
        tag.frames = [B.frame("TIT2", [0x80, 1, 2, 3], flags: 0x0004), B.frame("TALB", B.text(["ok"], encoding: 0))]
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .data(Data([1, 2, 3])))
        #expect(parsed.item("TIT2")?.dataType == .binary)
        #expect(parsed.item("TALB")?.value == .string("ok"))
    }

    @Test func extendedHeaderV24() throws {
        var tag = B(version: 4)
        tag.extendedHeader = B.syncsafe(6) + [1, 0]
        tag.frames = [B.frame("TIT2", B.text(["ext"], encoding: 3))]
        #expect(try B.parse(tag.bytes()).item("TIT2")?.value == .string("ext"))
    }

    @Test func iTunesPlainFrameSizesInV24() throws {
        // 200 bytes: syncsafe reading of 00 00 00 C8 is invalid (top bit), so plain.
        // 300 bytes = 00 00 01 2C: a valid syncsafe 172, which lands mid-frame.
        let long = B.text([String(repeating: "x", count: 199)], encoding: 0)
        let longer = B.text([String(repeating: "y", count: 299)], encoding: 0)
        var tag = B(version: 4)
        tag.frames = [
            B.frame("TIT2", long, plainSize: true),
            B.frame("TPE1", longer, plainSize: true),
            B.frame("TALB", B.text(["after"], encoding: 0), plainSize: true),
        ]
        tag.padding = 20
        let parsed = try B.parse(tag.bytes())
        #expect(parsed.item("TIT2")?.value == .string(String(repeating: "x", count: 199)))
        #expect(parsed.item("TPE1")?.value == .string(String(repeating: "y", count: 299)))
        #expect(parsed.item("TALB")?.value == .string("after"))
    }

    // MARK: Tag placement

    @Test func footerAndTagAppendedAtTheEnd() async throws {
        var front = B(version: 4)
        front.footer = true
        front.frames = [B.frame("TIT2", B.text(["front"], encoding: 0))]
        var back = B(version: 4)
        back.footer = true
        back.frames = [B.frame("TPE1", B.text(["appended"], encoding: 3))]
        let audio = B.mpegFrames(10)
        let item = try await B.load(front.bytes() + audio + back.bytes() + B.id3v1(title: "v1 title"))
        #expect(item.metadata.title == "front")
        #expect(item.metadata.artist == "appended")
        #expect(item.item("title", .id3v1)?.value == .string("v1 title"))
        // The audio range excludes both tags: exactly 10 frames of CBR audio.
        #expect(item.properties.duration == Double(audio.count) * 8 / 128_000)
    }

    @Test func id3v11TrackAndGenre() async throws {
        let v1 = B.id3v1(title: "Title  ", artist: "Artíst", album: "", year: "1999", comment: "hi", track: 7, genre: 17)
        let item = try await B.load(B.mpegFrames(4) + v1)
        #expect(item.item("title", .id3v1)?.value == .string("Title"))
        #expect(item.item("artist", .id3v1)?.value == .string("Artíst"))
        #expect(item.item("album", .id3v1) == nil)
        #expect(item.item("year", .id3v1)?.value == .string("1999"))
        #expect(item.item("comment", .id3v1)?.value == .string("hi"))
        #expect(item.item("track", .id3v1)?.value == .integer(7))
        #expect(item.item("genre", .id3v1)?.value == .integer(17))
        #expect(item.metadata.trackNumber == 7)
        #expect(item.metadata.genre?.name == "Rock")
        #expect(item.metadata.date == "1999")
        let expected: Double = 4 * 417 * 8 / 128_000
        #expect(item.properties.duration == expected)
    }

    @Test func id3v10HasNoTrackAndGenre255IsOmitted() throws {
        let v1 = B.id3v1(title: "T", comment: String(repeating: "c", count: 30))
        let parsed = try B.parse(B.mpegFrames(2) + v1)
        #expect(parsed.item("comment", .id3v1)?.value == .string(String(repeating: "c", count: 30)))
        #expect(parsed.item("track", .id3v1) == nil)
        #expect(parsed.item("genre", .id3v1) == nil)
    }

    /// The APE tag's items are read (key space `ape`, issue 11), the tags kept out of the audio.
    @Test func apeTagAndLyrics3BeforeID3v1AreOutsideTheAudio() throws {
        // APEv2 with header and footer, one item.
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        let apeItem = le32(5) + le32(0) + Array("Title".utf8) + [0] + Array("hello".utf8)
        let apeSize = UInt32(apeItem.count + 32)
        let apeHeader = Array("APETAGEX".utf8) + le32(2000) + le32(apeSize) + le32(1) + le32(0xA000_0000) + [UInt8](repeating: 0, count: 8)
        let apeFooter = Array("APETAGEX".utf8) + le32(2000) + le32(apeSize) + le32(1) + le32(0x8000_0000) + [UInt8](repeating: 0, count: 8)
        let ape = apeHeader + apeItem + apeFooter
        let lyricsBody = Array("LYRICSBEGIN".utf8) + Array("IND00003110".utf8)
        let lyrics = lyricsBody + Array(String(format: "%06d", lyricsBody.count).utf8) + Array("LYRICS200".utf8)
        let audio = B.mpegFrames(6)
        for trailer in [ape + B.id3v1(title: "x"), lyrics + ape + B.id3v1(title: "x"), ape, ape + lyrics] {
            let parsed = try B.parse(audio + trailer)
            #expect(parsed.properties.duration == Double(audio.count) * 8 / 128_000)
            #expect(
                parsed.items.filter { $0.keySpace.rawValue == "ape" } == [
                    MetadataItem(keySpace: .ape, key: "TITLE", value: .string("hello"), dataType: .utf8)
                ])
        }
    }
}
